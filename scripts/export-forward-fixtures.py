"""Exports the forward models `make-training` is tested on: a small MLP, a ResNet-style CNN and a
BERT-style encoder, each with the TorchScript exporter (torch.onnx.export(dynamo=False)) and the
dynamo exporter (dynamo=True), random weights from a fixed seed, into fixtures/torch-forward/.

Run with the venv that has torch and onnxscript:  /work/venv/bin/python scripts/export-forward-fixtures.py
The tests read the committed .onnx files; test/passes/autodiff/torch-gradients.test.ts runs the
`gradients` mode of this script to compare with torch.autograd where torch is installed.
"""
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'torch-forward')


class Mlp(nn.Module):
    """784 -> 32 -> ReLU -> 10, the MNIST MLP at fixture size."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, features):
        return self.fc2(torch.relu(self.fc1(features)))


class Cnn(nn.Module):
    """Conv-BN-ReLU, MaxPool, a residual Conv-BN block, GlobalAveragePool, Flatten, Linear (MNIST 1x28x28)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.conv3 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 10)

    def forward(self, features):
        x = torch.relu(self.bn1(self.conv1(features)))
        x = F.max_pool2d(x, 2)
        x = torch.relu(x + self.bn2(self.conv2(x)))
        x = torch.relu(self.conv3(x))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class Encoder(nn.Module):
    """A one-layer BERT-style encoder over token ids: embeddings (token + position), a CLS vector
    concatenated in front, LayerNorm, two-head self-attention with a padding mask (Where), GELU
    (erf) feed-forward, an RMS-style norm (Pow, ReduceMean, Sqrt, Div), dropout, the CLS row sliced
    out and a classifier."""

    def __init__(self, vocab=8, width=16, heads=2, sequence=8, classes=4):  # noqa: E501
        super().__init__()
        self.heads, self.width = heads, width
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Parameter(torch.randn(sequence + 1, width) * 0.1)
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.1)
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ffn1 = nn.Linear(width, 2 * width)
        self.ffn2 = nn.Linear(2 * width, width)
        self.rms_gain = nn.Parameter(torch.ones(width))
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        batch, sequence = tokens.shape
        x = self.tokens(tokens)
        cls = self.cls.expand(batch, 1, self.width)
        x = torch.cat([cls, x], dim=1) + self.positions[: sequence + 1].unsqueeze(0)
        pad = torch.cat([torch.zeros(batch, 1, dtype=torch.bool), tokens == 0], dim=1)
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(self.width, dim=-1)
        d = self.width // self.heads
        split = lambda t: t.reshape(batch, sequence + 1, self.heads, d).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
        scores = torch.where(pad.unsqueeze(1).unsqueeze(2), torch.tensor(-1e4), scores)
        context = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(batch, sequence + 1, self.width)
        x = x + self.dropout(self.proj(context))
        x = x + self.ffn2(F.gelu(self.ffn1(x)))
        x = x / torch.sqrt(torch.mean(x.pow(2), dim=-1, keepdim=True) + 1e-6) * self.rms_gain
        return self.head(x[:, 0:1].reshape(batch, self.width))


def models():
    torch.manual_seed(0)
    cnn = Cnn()
    # Running statistics that are not the identity, so BatchNormalization's inference mode matters.
    for bn in (cnn.bn1, cnn.bn2):
        bn.running_mean.uniform_(-0.1, 0.1)
        bn.running_var.uniform_(0.5, 1.5)
    return {
        'mlp': (Mlp(), torch.randn(4, 784), 'features'),
        'cnn': (cnn, torch.randn(2, 1, 28, 28), 'features'),
        'encoder': (Encoder(), torch.randint(0, 8, (3, 8)), 'tokens'),
    }


def export():
    os.makedirs(OUT, exist_ok=True)
    for name, (model, example, input_name) in models().items():
        model.eval()
        for mode in ('torchscript', 'dynamo'):
            path = os.path.join(OUT, f'{name}-{mode}.onnx')
            kwargs = dict(input_names=[input_name], output_names=['logits'])
            if mode == 'torchscript':
                # Without constant folding BatchNormalization stays a node of its own (folded, it is merged into the Conv).
                torch.onnx.export(model, (example,), path, dynamo=False, opset_version=17, do_constant_folding=False,
                                  dynamic_axes={input_name: {0: 'batch'}, 'logits': {0: 'batch'}}, **kwargs)
            else:
                batch = torch.export.Dim('batch', min=1, max=4096)
                torch.onnx.export(model, (example,), path, dynamo=True, optimize=True, external_data=False,
                                  dynamic_shapes={input_name: {0: batch}}, **kwargs)
            print('wrote', path)


def gradients(path_json):
    """Reads a list of {model, input, dims, labels} and prints, for each, torch.autograd's gradients
    of the mean cross-entropy of the model's logits, by parameter name."""
    results = []
    for request in json.load(open(path_json)):
        model, _, _ = models()[request['model']]
        model.eval()
        dtype = torch.long if request['model'] == 'encoder' else torch.float32
        x = torch.tensor(request['input'], dtype=dtype).reshape(request['dims'])
        loss = F.cross_entropy(model(x), torch.tensor(request['labels'], dtype=torch.long))
        loss.backward()
        results.append({'loss': loss.item(), 'grads': {n: p.grad.flatten().tolist() for n, p in model.named_parameters()}})
    json.dump(results, sys.stdout)


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == 'gradients':
        gradients(sys.argv[2])
    else:
        export()
