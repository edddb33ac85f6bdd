import { it } from 'vitest';
import { buildMlpTrainingStep, withInitialState } from '../src/builder/recipes/training.js';
import { rewriteModel } from '../src/passes/pipeline.js';
import { ampRewrite } from '../src/passes/amp.js';
import { loadMnist } from '../src/runtime/mnist.js';
import { train } from '../src/runtime/train.js';
it('x', async () => {
  const step = buildMlpTrainingStep({ inputSize: 784, hidden: 64, hiddenLayers: 2, classes: 10, batch: 'batch', optimizer: 'sgd-momentum' });
  const m = withInitialState(step);
  const data = loadMnist();
  for (const [name, model] of [['fp32', m], ['amp', rewriteModel(m).model], ['fp16', ampRewrite(m, { forceFp16: ['/.*/'] }).model]] as const) {
    const t = Date.now();
    const r = await train(model, data, { epochs: 2, batch: 64, lr: 0.05, providers: ['cpu'], maxSteps: 150 });
    console.log(name, Date.now() - t, JSON.stringify(r.epochs));
  }
}, 300000);
