/**
 * The visual audit's packed data: what the page unpacks is what the report holds, for every kind
 * of field (bodies, outer reads, absent inputs, calibration ranges, attributes, weight previews,
 * training regions), hostile names included; and it is a fraction of the audit's own JSON.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTransformer } from '../../../src/builder/recipes/transformer.js';
import { loadModel } from '../../../src/onnx/model-io.js';
import { ampRewrite } from '../../../src/passes/amp.js';
import { rewriteModel } from '../../../src/passes/pipeline.js';
import { packPageData, unpackPageData, type PackedPageData } from '../../../src/report/html/page-data.js';
import type { PageData } from '../../../src/report/html/page-script.js';
import { auditPageData } from '../../../src/report/html/render-html.js';
import { fixturesDir } from '../../support/corpus.js';

const fixture = (name: string) => loadModel(path.join(fixturesDir, name, 'model.onnx'));

/** The page's data as the browser gets it: packed, through JSON, unpacked. */
const roundTrip = (data: PageData): PageData => unpackPageData(JSON.parse(JSON.stringify(packPageData(data))) as PackedPageData);

/** What the page reads of a PageData: the nodes' page fields, the summary's mode and FLOPs. */
function asShown(data: PageData): unknown {
  const { summary, nodes, lists, scopes } = data.report;
  return {
    ...data,
    report: {
      summary: { mode: summary.mode, matrixFlops: summary.matrixFlops },
      nodes: nodes.map(({ node, id, op, domain, scope, list, color, rule, reason, castsAdded, inputs, outputs, subgraphs }) => ({
        node,
        ...(id === undefined ? {} : { id }),
        ...{ op, domain, scope, list, color, rule, reason, castsAdded, inputs, outputs, subgraphs },
      })),
      lists,
      scopes,
    },
  };
}

describe('the packed page data', () => {
  it('unpacks to what the report holds: bodies, outer reads, absent inputs, attributes, shapes and previews', () => {
    const model = fixture('control-flow');
    const data = auditPageData(ampRewrite(model).report, { title: 'control-flow', model });
    expect(data.report.nodes.some((n) => n.inputs.some((e) => e.value === '' && e.type === null))).toBe(true);
    expect(data.report.scopes.some((s) => s.owner !== null)).toBe(true);
    expect(data.facts!.attributes.size).toBeGreaterThan(0);
    expect(roundTrip(data)).toStrictEqual(asShown(data));
  });

  it('carries the ranges a calibration saw, the ids of unnamed nodes and a training graph regions', () => {
    const calibrated = ampRewrite(fixture('transformer-block'), { activationRanges: new Map([['matmul_13', 7e4], ['softmax_15', 0.75]]) }).report;
    const data = auditPageData(calibrated, { title: 'calibrated' });
    expect(data.report.nodes.flatMap((n) => [...n.inputs, ...n.outputs]).filter((e) => e.range !== undefined).length).toBeGreaterThan(1);
    expect(roundTrip(data)).toStrictEqual(asShown(data));

    const { report } = rewriteModel(fixture('mlp-training-adam'));
    const training = auditPageData(report.amp, { title: 'training', model: fixture('mlp-training-adam'), training: report.training!.contract });
    expect(training.regions?.of.length).toBe(report.amp.nodes.length);
    expect(roundTrip(training)).toStrictEqual(asShown(training));
  });

  it('keeps names that are the prototype keys of a plain object as plain keys', () => {
    const model = fixture('transformer-block');
    const data = auditPageData(ampRewrite(model).report, { title: 'hostile', model });
    for (const [name, shape] of [['constructor', '[1]'], ['toString', '[2]'], ['__proto__', '[3]']] as const) data.facts!.shapes.set(name, shape);
    const unpacked = roundTrip(data);
    expect(unpacked.facts!.shapes.get('constructor')).toBe('[1]');
    expect(unpacked.facts!.shapes.get('toString')).toBe('[2]');
    expect(unpacked.facts!.shapes.get('__proto__')).toBe('[3]');
    // A value the model declares no shape for reads as nothing.
    expect(unpacked.facts!.shapes.get('hasOwnProperty')).toBeUndefined();
  });

  it('is a fraction of the objects it stands for, the same bytes each time, the most used strings first', () => {
    const model = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers: 60, vocab: 0, seed: 1 });
    const data = auditPageData(ampRewrite(model).report, { title: 'transformer', model });
    const packed = JSON.stringify(packPageData(data));
    const objects = JSON.stringify(asShown(data));
    expect(packed.length).toBeLessThan(objects.length / 2.5);
    expect(JSON.stringify(packPageData(data))).toBe(packed);
    const table = (JSON.parse(packed) as PackedPageData).strings;
    // 'float' is on nearly every edge; a node's own name is used by it alone (and its id).
    expect(table.indexOf('float')).toBeLessThan(4);
    expect(table.indexOf(data.report.nodes[0]!.node)).toBeGreaterThan(100);
  });

  it('refuses a format it does not know rather than drawing it wrong', () => {
    const packed = packPageData(auditPageData(ampRewrite(fixture('transformer-block')).report, { title: 'x' }));
    expect(() => unpackPageData({ ...packed, format: 2 as 1 })).toThrow(/format 2; this page reads format 1/);
  });
});
