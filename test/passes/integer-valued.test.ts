/**
 * Integer-valued floats and angles (src/passes/amp/integer-valued.ts, rules/integer-valued.json):
 * a float holding integers beyond the low type's exact integers (2048 for float16, 256 for
 * bfloat16) stays float32 with its producer and readers, and Cos/Sin with the angle carriers before
 * them stay float32. On small graphs for the bounds, then on a Hugging Face LlamaForCausalLM
 * export (test/models/llama-rotary.onnx) for the rotary block.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder, attr } from '../../src/builder/graph-builder.js';
import { dtypeAttribute } from '../../src/onnx/attributes.js';
import { DataType } from '../../src/onnx/data-types.js';
import type { onnx } from '../../src/onnx/generated/onnx.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite } from '../../src/passes/amp.js';
import { renderSummary } from '../../src/report/summary.js';
import { repoRoot } from '../support/corpus.js';

const F = DataType.FLOAT;
const MODES = ['fp16', 'bf16'] as const;

/** p (`type`) -> Cast to float 'cast_p' -> `between` -> MatMul 'mm' with a weight -> y. */
function integersIntoMatMul(type: number, between: (b: GraphBuilder, value: string) => string = (_, value) => value): onnx.ModelProto {
  const b = new GraphBuilder('integers_into_matmul');
  b.input('p', type, [4, 8]);
  const cast = b.op('Cast', ['p'], { to: attr.int(F) }, { name: 'cast_p', outputs: ['p_f'] });
  const w = b.initializer('w', [8, 8], Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) * 0.1));
  b.op('MatMul', [between(b, cast), w], {}, { name: 'mm', outputs: ['y'] });
  b.output('y', F, [4, 8]);
  return b.model();
}

function decisionOf(report: ReturnType<typeof ampRewrite>['report'], node: string) {
  return report.nodes.find((n) => n.node === node);
}

function castTo(model: onnx.ModelProto, name: string): number | undefined {
  const cast = model.graph?.node?.find((n) => n.name === name);
  return cast ? dtypeAttribute(cast, 'to') : undefined;
}

describe('rules/integer-valued.json', () => {
  const rules = JSON.parse(readFileSync(path.join(repoRoot, 'rules/integer-valued.json'), 'utf8'));
  it('holds the exact-integer limits (2^11 for float16\'s 11 significant bits, 2^8 for bfloat16\'s 8), and a reason for every entry of its op tables, sorted', () => {
    expect(rules.exactIntegersUpTo).toEqual({ float16: 2048, bfloat16: 256 });
    for (const table of ['sources', 'carriers', 'angleReaders', 'angleCarriers']) {
      const entries: Array<{ op: string; reason: string; bound?: string }> = rules[table];
      expect(entries.length, table).toBeGreaterThan(1);
      for (const entry of entries) expect(entry.reason.length, `${table} ${entry.op}`).toBeGreaterThan(5);
      const ops = entries.map((e) => e.op);
      expect(ops, table).toEqual([...ops].sort());
      if (table === 'carriers') for (const entry of entries) expect(['same', 'max', 'sum', 'product', 'unbounded'], entry.op).toContain(entry.bound);
    }
  });
});

describe('integer-valued floats: kept float32 while their range is not known to fit the low type', () => {
  // Whether the MatMul reading Cast(p) converts, per source type and mode.
  const cases: Array<[string, number, Record<(typeof MODES)[number], boolean>]> = [
    ['bool (0 and 1)', DataType.BOOL, { fp16: true, bf16: true }],
    ['int8 (up to 128)', DataType.INT8, { fp16: true, bf16: true }],
    ['uint8 (up to 255)', DataType.UINT8, { fp16: true, bf16: true }],
    ['int16 (up to 32768)', DataType.INT16, { fp16: false, bf16: false }],
    ['int32 (unknown range)', DataType.INT32, { fp16: false, bf16: false }],
    ['int64 (unknown range)', DataType.INT64, { fp16: false, bf16: false }],
  ];
  it.each(cases)('a Cast from %s', (_, type, converts) => {
    for (const mode of MODES) {
      const { model, report } = ampRewrite(integersIntoMatMul(type), { mode });
      const mm = decisionOf(report, 'mm');
      expect(mm?.color === 'ALLOW', `${mode}: ${mm?.rule} ${mm?.reason}`).toBe(converts[mode]);
      if (converts[mode]) continue;
      const low = mode === 'bf16' ? 'bfloat16' : 'float16';
      expect(mm?.rule).toBe('integer-valued');
      expect(mm?.reason).toContain(`integer-valued: ${low} holds integers exactly only up to ${mode === 'bf16' ? 256 : 2048}, and 'p_f'`);
      // The Cast is not retargeted, and nothing converts its output.
      expect(decisionOf(report, 'cast_p')?.rule).toBe('integer-valued');
      expect(castTo(model, 'cast_p')).toBe(F);
      expect(model.graph?.node?.filter((n) => n.op_type === 'Cast').length).toBe(1);
    }
  });

  it('uint8 fits float16 but not bfloat16 (256 is its last exact integer)', () => {
    // Through Add(p, 2): up to 257.
    const plusTwo = integersIntoMatMul(DataType.UINT8, (b, value) => b.op('Add', [value, b.scalar('two', 2)], {}, { name: 'add_two', outputs: ['add_two'] }));
    expect(decisionOf(ampRewrite(plusTwo, { mode: 'fp16' }).report, 'mm')?.color).toBe('ALLOW');
    const bf16 = ampRewrite(plusTwo, { mode: 'bf16' }).report;
    expect(decisionOf(bf16, 'mm')?.rule).toBe('integer-valued');
    expect(decisionOf(bf16, 'add_two')?.reason).toContain("'add_two' holds integers up to 257");
  });

  it('carriers bound the magnitude: int8 x 20 is beyond 2048, int8 + 1 is not, int8 x 0.5 holds no integers', () => {
    const scaled = (factor: number, op = 'Mul') =>
      ampRewrite(integersIntoMatMul(DataType.INT8, (b, value) => b.op(op, [value, b.scalar('factor', factor)], {}, { name: 'scale', outputs: ['scale'] })), { mode: 'fp16' }).report;
    const times20 = scaled(20);
    expect(decisionOf(times20, 'mm')?.rule).toBe('integer-valued');
    expect(decisionOf(times20, 'mm')?.reason).toContain("'scale' holds integers up to 2560 (from Cast 'cast_p' from int8)");
    expect(decisionOf(times20, 'scale')?.rule).toBe('integer-valued');
    expect(decisionOf(scaled(1, 'Add'), 'mm')?.color).toBe('ALLOW');
    expect(decisionOf(scaled(0.5), 'mm')?.color).toBe('ALLOW');
  });

  it('carried through Unsqueeze, Concat and Reshape (rules/integer-valued.json carriers), and started by CumSum and Range', () => {
    const moved = integersIntoMatMul(DataType.INT64, (b, value) => {
      const unsqueezed = b.op('Unsqueeze', [value, b.ints('axes', [0])], {}, { name: 'unsqueeze', outputs: ['unsqueeze'] });
      const joined = b.op('Concat', [unsqueezed, unsqueezed], { axis: attr.int(0) }, { name: 'concat', outputs: ['concat'] });
      return b.op('Reshape', [joined, b.ints('shape', [8, 8])], {}, { name: 'reshape', outputs: ['reshape'] });
    });
    const moves = ampRewrite(moved, { mode: 'fp16' }).report;
    for (const node of ['cast_p', 'unsqueeze', 'concat', 'reshape', 'mm']) expect(decisionOf(moves, node)?.rule, node).toBe('integer-valued');
    expect(decisionOf(moves, 'mm')?.reason).toContain("'reshape' holds integers of unknown range (from Cast 'cast_p' from int64)");

    // A running sum of a bool mask (positions from the attention mask) grows with its axis.
    const cumsum = integersIntoMatMul(DataType.BOOL, (b, value) => b.op('CumSum', [value, b.ints('axis', [1])], {}, { name: 'cumsum', outputs: ['cumsum'] }));
    const counted = ampRewrite(cumsum, { mode: 'fp16' }).report;
    expect(decisionOf(counted, 'mm')?.rule).toBe('integer-valued');
    expect(decisionOf(counted, 'cumsum')?.rule).toBe('integer-valued');

    // Range(0, limit, 1) as float: positions up to |limit| when the ends are constants.
    const range = (limit: number) => {
      const b = new GraphBuilder('range_into_matmul');
      b.input('x', F, [8, 8]);
      const positions = b.op('Range', [b.scalar('start', 0), b.scalar('limit', limit), b.scalar('delta', limit / 8)], {}, { name: 'range', outputs: ['range'] });
      const column = b.op('Unsqueeze', [positions, b.ints('axes', [1])], {}, { name: 'column', outputs: ['column'] });
      b.op('MatMul', [b.op('Mul', ['x', column], {}, { name: 'scaled', outputs: ['scaled'] }), b.initializer('w', [8, 8], new Float32Array(64).fill(0.1))], {}, { name: 'mm', outputs: ['y'] });
      b.output('y', F, [8, 8]);
      return b.model();
    };
    expect(decisionOf(ampRewrite(range(1000), { mode: 'fp16' }).report, 'scaled')?.rule).not.toBe('integer-valued');
    const bf16 = ampRewrite(range(1000), { mode: 'bf16' }).report;
    expect(decisionOf(bf16, 'scaled')?.rule).toBe('integer-valued');
    expect(decisionOf(bf16, 'scaled')?.reason).toContain("'column' holds integers up to 1000 (from Range 'range')");
    expect(decisionOf(ampRewrite(range(4096), { mode: 'fp16' }).report, 'scaled')?.rule).toBe('integer-valued');
  });
});

describe('angles: Cos and Sin, and the carriers back to the product that made the angle, stay float32', () => {
  it('Sin(Concat(Mul(h, w))) keeps Sin, Concat and Mul float32; the MatMul making h converts', () => {
    const b = new GraphBuilder('sin_of_product');
    b.input('x', F, [4, 8]);
    const h = b.op('MatMul', ['x', b.initializer('w1', [8, 8], new Float32Array(64).fill(0.1))], {}, { name: 'h', outputs: ['h'] });
    const angle = b.op('Mul', [h, b.scalar('frequency', 30)], {}, { name: 'angle', outputs: ['angle'] });
    const both = b.op('Concat', [angle, angle], { axis: attr.int(1) }, { name: 'both', outputs: ['both'] });
    const wave = b.op('Sin', [both], {}, { name: 'wave', outputs: ['wave'] });
    b.op('MatMul', [wave, b.initializer('w2', [16, 8], new Float32Array(128).fill(0.1))], {}, { name: 'out', outputs: ['y'] });
    b.output('y', F, [4, 8]);
    for (const mode of MODES) {
      const { report } = ampRewrite(b.model(), { mode });
      for (const node of ['angle', 'both', 'wave']) {
        expect(decisionOf(report, node)?.rule, `${mode} ${node}`).toBe('angle-input');
        expect(decisionOf(report, node)?.reason).toContain("angle-input: Sin 'wave' reads the angle 'both'");
      }
      // The product is where the angle starts: its factor h is no angle, and Sin's output may enter the low type.
      expect(decisionOf(report, 'h')?.color).toBe('ALLOW');
      expect(decisionOf(report, 'out')?.color).toBe('ALLOW');
    }
  });
});

describe('--force-fp16 wins over the exactness pins (the user knows the range)', () => {
  it('a forced MatMul reading an int64 Cast converts (and the Cast, read by it alone, casts to float16 directly)', () => {
    const { report } = ampRewrite(integersIntoMatMul(DataType.INT64), { forceFp16: ['mm'] });
    expect(decisionOf(report, 'mm')).toMatchObject({ color: 'ALLOW', rule: 'force-fp16' });
    expect(decisionOf(report, 'cast_p')?.rule).toBe('cast-retarget');
  });
});

describe('the rotary block of a Hugging Face LlamaForCausalLM export (test/models/llama-rotary.onnx)', () => {
  const source = loadModel(path.join(repoRoot, 'test/models/llama-rotary.onnx'));
  const rotary = (name: string) => `/m/model/rotary_emb/${name}`;

  it.each(MODES)('%s: the Cast of position_ids stays a Cast to float, and the product up to Cos and Sin stays float32', (mode) => {
    const { model, report } = ampRewrite(source, { mode });
    const low = mode === 'bf16' ? 'bfloat16' : 'float16';
    // The Cast reading position_ids (through an int64 Unsqueeze).
    const positionsCast = model.graph?.node?.find((n) => n.op_type === 'Cast' && n.input?.[0] === rotary('Unsqueeze_1_output_0'));
    expect(positionsCast?.name).toBe(rotary('Cast_1'));
    expect(dtypeAttribute(positionsCast as onnx.INodeProto, 'to')).toBe(F);
    const matmul = decisionOf(report, rotary('MatMul'));
    expect(matmul).toMatchObject({ color: 'NONE', rule: 'integer-valued' });
    expect(matmul?.reason).toContain(`integer-valued: ${low} holds integers exactly only up to ${mode === 'bf16' ? 256 : 2048}, and '${rotary('Cast_1_output_0')}' holds integers of unknown range (from Cast '${rotary('Cast_1')}' from int64)`);
    expect(decisionOf(report, rotary('Cast_1'))?.rule).toBe('integer-valued');
    for (const node of ['Transpose', 'Concat_1', 'Cos', 'Sin']) expect(decisionOf(report, rotary(node)), node).toMatchObject({ color: 'NONE', rule: 'angle-input' });
    // No Cast the pass made reads or writes a value of the block: every value from the Cast to Cos and Sin is float32.
    const block = ['Cast_1', 'MatMul', 'Transpose', 'Concat_1', 'Cos', 'Sin'].map((node) => rotary(`${node}_output_0`));
    for (const node of model.graph?.node ?? []) {
      if (block.some((value) => node.input?.includes(value))) expect(node.op_type === 'Cast' && dtypeAttribute(node, 'to') !== F, `${node.name} reads the block in ${low}`).toBe(false);
    }
    for (const value of block) expect(model.graph?.node?.filter((n) => n.output?.includes(value)).map((n) => n.name)).toHaveLength(1);
    // The layers still convert, and the summary names the hazard.
    expect(report.nodes.filter((n) => n.op === 'MatMul' && n.color === 'ALLOW').length).toBeGreaterThanOrEqual(10);
    expect(renderSummary(report.summary)).toContain(`Allow-list ops kept FP32: 1 (1 integer-valued, e.g. MatMul '${rotary('MatMul')}': integer-valued: ${low} holds integers exactly only up to`);
  });
});
