/**
 * LSTM and GRU unrolled over time into standard ops (Gather, MatMul, Add, Split, Sigmoid, Tanh,
 * Mul, Concat), so that the backward pass through time is the existing rules' composition rather
 * than a rule of its own. Needs a static sequence length; covers both directions, the default
 * activations, initial states, and GRU's linear_before_reset both ways (PyTorch exports 1).
 * The equations are ONNX's (gate order iofc for LSTM, zrh for GRU).
 */
import { attr } from '../../builder/graph-builder.js';
import { AmpError } from '../../onnx/errors.js';
import type { onnx } from '../../onnx/generated/onnx.js';
import type { Shape } from '../../onnx/shape-inference.js';
import type { Emitter } from './emitter.js';

const RECURRENT = new Set(['LSTM', 'GRU']);

export function isRecurrent(node: onnx.INodeProto): boolean {
  return !node.domain && RECURRENT.has(node.op_type ?? '');
}

export interface Unrolled {
  /** The nodes unrolled, by name. */
  nodes: string[];
  /** The values they read as initial states (initial_h, initial_c). */
  initialStates: string[];
}

/**
 * Replaces every LSTM and GRU node of `graph` with its unrolled ops, in place. `shapeOf` gives a
 * value's inferred shape (the sequence length must be static).
 */
export function unrollRecurrent(graph: onnx.GraphProto, e: Emitter, shapeOf: (value: string) => Shape | undefined): Unrolled {
  const unrolled: string[] = [];
  const initialStates: string[] = [];
  const nodes: onnx.NodeProto[] = [];
  for (const node of graph.node as onnx.NodeProto[]) {
    if (!isRecurrent(node)) {
      nodes.push(node);
      continue;
    }
    const before = e.nodes.length;
    unrollNode(node, e, shapeOf);
    for (const slot of [5, 6]) if (node.input[slot]) initialStates.push(node.input[slot] as string);
    nodes.push(...e.nodes.splice(before));
    unrolled.push(node.name || node.op_type);
  }
  graph.node = nodes;
  return { nodes: unrolled, initialStates };
}

function refuse(node: onnx.INodeProto, reason: string): never {
  const name = node.name || '(unnamed)';
  throw new AmpError('NO_GRADIENT_RULE', `the gradient of ${node.op_type} (node '${name}') covers ${reason}`, { subject: name });
}

function attribute(node: onnx.INodeProto, name: string): onnx.IAttributeProto | undefined {
  return (node.attribute ?? []).find((a) => a.name === name);
}

function unrollNode(node: onnx.NodeProto, e: Emitter, shapeOf: (value: string) => Shape | undefined): void {
  const lstm = node.op_type === 'LSTM';
  const input = (i: number): string => node.input[i] ?? '';
  const base = node.name || node.op_type;
  if (attribute(node, 'clip')) refuse(node, 'no clip');
  if (Number(attribute(node, 'layout')?.i ?? 0) !== 0) refuse(node, 'layout 0 only (sequence first)');
  if (lstm && Number(attribute(node, 'input_forget')?.i ?? 0) !== 0) refuse(node, 'input_forget 0 only');
  if (lstm && input(7)) refuse(node, 'no peepholes (input P)');
  if (attribute(node, 'activations')) {
    const names = (attribute(node, 'activations')?.strings ?? []).map((s) => Buffer.from(s).toString('utf8'));
    const defaults = lstm ? ['Sigmoid', 'Tanh', 'Tanh'] : ['Sigmoid', 'Tanh'];
    if (names.some((name, k) => name !== defaults[k % defaults.length])) refuse(node, 'the default activations only');
  }
  if (input(4)) refuse(node, 'no sequence_lens input (every sequence its full length)');
  const xShape = shapeOf(input(0));
  const steps = xShape?.[0];
  if (steps === undefined || !(steps > 0)) refuse(node, 'a static sequence length (export with a fixed one)');
  const direction = Buffer.from(attribute(node, 'direction')?.s ?? Buffer.from('forward')).toString('utf8');
  const directions = direction === 'bidirectional' ? ['forward', 'reverse'] : [direction];
  const gates = lstm ? 4 : 3;
  const hidden = Number(attribute(node, 'hidden_size')?.i ?? 0) || refuse(node, 'a hidden_size attribute');
  const linearBeforeReset = Number(attribute(node, 'linear_before_reset')?.i ?? 0) === 1;

  const perStep: string[][] = directions.map(() => []);
  const lastH: string[] = [];
  const lastC: string[] = [];
  const gathered = Array.from({ length: steps }, (_, t) => e.op('Gather', [input(0), e.ints([t])], `${base}/x_${t}`, { axis: attr.int(0) }));
  // x_t is [1, batch, input]: squeezed to [batch, input].
  const xs = gathered.map((x, t) => e.op('Squeeze', [x, e.ints([0])], `${base}/x_${t}_2d`));
  directions.forEach((dir, d) => {
    const pick = (value: string, name: string): string => e.op('Squeeze', [e.op('Gather', [value, e.ints([d])], `${base}/${name}_${d}_picked`, { axis: attr.int(0) }), e.ints([0])], `${base}/${name}_${d}`);
    const wT = e.op('Transpose', [pick(input(1), 'W')], `${base}/W_${d}_t`, { perm: attr.ints([1, 0]) });
    const rT = e.op('Transpose', [pick(input(2), 'R')], `${base}/R_${d}_t`, { perm: attr.ints([1, 0]) });
    let wb: string | undefined;
    let rbParts: string[] | undefined;
    if (input(3)) {
      const [w, r] = e.node('Split', [pick(input(3), 'B'), e.ints([gates * hidden, gates * hidden])], `${base}/B_${d}_split`, { axis: attr.int(0) }, 2) as [string, string];
      wb = w;
      rbParts = e.node('Split', [r, e.ints(Array<number>(gates).fill(hidden))], `${base}/Rb_${d}_gates`, { axis: attr.int(0) }, gates);
    }
    const rGates = e.node('Split', [rT, e.ints(Array<number>(gates).fill(hidden))], `${base}/R_${d}_gates`, { axis: attr.int(1) }, gates);
    let h = input(5) ? pick(input(5), 'initial_h') : undefined;
    let c = lstm && input(6) ? pick(input(6), 'initial_c') : undefined;
    const order = dir === 'reverse' ? [...xs.keys()].reverse() : [...xs.keys()];
    const outputs: string[] = new Array(steps);
    for (const t of order) {
      const at = `${base}/${d}_${t}`;
      let fromX = e.op('MatMul', [xs[t]!, wT], `${at}/xW`);
      if (wb) fromX = e.op('Add', [fromX, wb], `${at}/xW_b`);
      const xGates = e.node('Split', [fromX, e.ints(Array<number>(gates).fill(hidden))], `${at}/x_gates`, { axis: attr.int(1) }, gates);
      // The recurrent part of gate k: h R_k^T (+ Rb_k); zero before the first step without an initial state.
      const recurrent = (k: number): string | undefined => {
        if (!h) return rbParts?.[k];
        const product = e.op('MatMul', [h, rGates[k]!], `${at}/hR_${k}`);
        return rbParts ? e.op('Add', [product, rbParts[k]!], `${at}/hR_b_${k}`) : product;
      };
      const gate = (k: number, activation: 'Sigmoid' | 'Tanh', extra?: string): string => {
        const parts = [xGates[k]!, recurrent(k), extra].filter((p): p is string => p !== undefined);
        const sum = parts.length === 1 ? parts[0]! : e.op('Sum', parts, `${at}/gate_${k}_sum`);
        return e.op(activation, [sum], `${at}/gate_${k}`);
      };
      if (lstm) {
        const i = gate(0, 'Sigmoid');
        const o = gate(1, 'Sigmoid');
        const f = gate(2, 'Sigmoid');
        const candidate = gate(3, 'Tanh');
        const fresh = e.op('Mul', [i, candidate], `${at}/i_c`);
        c = c ? e.op('Add', [e.op('Mul', [f, c], `${at}/f_c`), fresh], `${at}/c`) : fresh;
        h = e.op('Mul', [o, e.op('Tanh', [c], `${at}/c_tanh`)], `${at}/h`);
      } else {
        const z = gate(0, 'Sigmoid');
        const r = gate(1, 'Sigmoid');
        // linear_before_reset 1: r * (h Rh^T + Rbh); 0: (r * h) Rh^T + Rbh.
        let reset: string | undefined;
        if (h && linearBeforeReset) reset = e.op('Mul', [r, recurrent(2)!], `${at}/r_hR`);
        else if (h) {
          const product = e.op('MatMul', [e.op('Mul', [r, h], `${at}/r_h`), rGates[2]!], `${at}/rh_R`);
          reset = rbParts ? e.op('Add', [product, rbParts[2]!], `${at}/rh_R_b`) : product;
        } else if (rbParts) reset = linearBeforeReset ? e.op('Mul', [r, rbParts[2]!], `${at}/r_b`) : rbParts[2];
        const candidate = e.op('Tanh', [reset ? e.op('Add', [xGates[2]!, reset], `${at}/candidate_sum`) : xGates[2]!], `${at}/candidate`);
        const keep = e.op('Sub', [e.float(1), z], `${at}/one_minus_z`);
        const fresh = e.op('Mul', [keep, candidate], `${at}/fresh`);
        h = h ? e.op('Add', [fresh, e.op('Mul', [z, h], `${at}/z_h`)], `${at}/h`) : fresh;
      }
      outputs[t] = h;
    }
    perStep[d] = outputs;
    lastH.push(h as string);
    if (c) lastC.push(c);
  });

  // Y [seq, directions, batch, hidden]; Y_h and Y_c [directions, batch, hidden].
  const [y, yh, yc] = [node.output[0], node.output[1], node.output[2]];
  if (y) {
    const atStep = (t: number): string => e.op('Concat', perStep.map((outs, d) => e.op('Unsqueeze', [outs[t]!, e.ints([0])], `${base}/y_${t}_${d}`)), `${base}/y_${t}`, { axis: attr.int(0) });
    const stacked = Array.from({ length: steps }, (_, t) => e.op('Unsqueeze', [atStep(t), e.ints([0])], `${base}/y_${t}_seq`));
    e.op('Concat', stacked, `${base}/y`, { axis: attr.int(0) }, y);
  }
  const finals = (values: string[], output: string, name: string): void => {
    e.op('Concat', values.map((v, d) => e.op('Unsqueeze', [v, e.ints([0])], `${base}/${name}_${d}`)), `${base}/${name}`, { axis: attr.int(0) }, output);
  };
  if (yh) finals(lastH, yh, 'y_h');
  if (lstm && yc) finals(lastC, yc, 'y_c');
}
