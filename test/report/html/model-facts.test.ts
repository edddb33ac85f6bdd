/**
 * What the visual audit reads from the model beside the decisions: shapes as the model declares
 * them, else as static inference knows them, and attribute texts.
 */
import { describe, expect, it } from 'vitest';
import { modelFacts } from '../../../src/report/html/model-facts.js';
import { floatTensor, model, node, valueInfo } from '../../support/models.js';

describe('the model facts of the visual audit', () => {
  const graph = (input: Array<number | string>) =>
    model({
      node: [node('MatMul', ['x', 'w'], ['h']), node('Relu', ['h'], ['constructor']), node('Softmax', ['constructor'], ['y'], 'softmax', { attribute: [{ name: 'axis', type: 2, i: -1 }] })],
      input: [valueInfo('x', 1, input)],
      output: [valueInfo('y', 1, input.length ? [input[0]!, 3] : [])],
      initializer: [floatTensor('w', [4, 3], Array.from({ length: 12 }, (_, i) => i / 4))],
    });

  it('shows a shape the model does not declare as static inference knows it, and a declared one as written', () => {
    const facts = modelFacts(graph([2, 4]));
    expect(facts.shapes.get('x')).toBe('[2, 4]');
    // Not declared: inferred from the input and the weight.
    expect(facts.shapes.get('h')).toBe('[2, 3]');
    expect(facts.shapes.get('constructor')).toBe('[2, 3]');
    expect(facts.shapes.get('w')).toBe('[4, 3]');
    expect(facts.previews.get('w')).toBe('0, 0.25, 0.5, 0.75, 1, 1.25, … (12 values)');
    expect(facts.attributes.get('graph\u0000softmax')).toEqual([['axis', '-1']]);
  });

  it('keeps the symbolic dims a model declares, and infers nothing it cannot know fully', () => {
    const facts = modelFacts(graph(['batch', 4]));
    expect(facts.shapes.get('x')).toBe('[batch, 4]');
    expect(facts.shapes.get('y')).toBe('[batch, 3]');
    expect(facts.shapes.get('h')).toBeUndefined();
  });
});
