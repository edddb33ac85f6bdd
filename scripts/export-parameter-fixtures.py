"""Fixtures for which initializers make-training trains and how (#36): PyTorch models whose buffers,
tied weights and one-element parameters an ONNX file does not label, and a depthwise-separable CNN
(ReLU6, hard-swish, average pooling), exported by both of torch's exporters into fixtures/torch-parameters/.

  python scripts/export-parameter-fixtures.py export      writes the .onnx files (random init, seed 0)
  python scripts/export-parameter-fixtures.py reference   prints, per model, a batch, the loss, every
      nn.Parameter (all its names, values, torch.autograd's gradient) and buffer (values), and an
      8-step AdamW trajectory

test/passes/autodiff/torch-parameters.test.ts compares make-training's choice and gradients with
torch training exactly its nn.Parameters.
"""
import json
import math
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'fixtures', 'torch-parameters')
SEQ = 6


class Decoder(nn.Module):
    """GPT-style: tied input and output embeddings, learned positions, a causal-mask buffer (0 / -inf)."""

    def __init__(self, vocab=11, width=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.randn(SEQ, width) * 0.1)
        self.register_buffer('causal', torch.triu(torch.full((SEQ, SEQ), float('-inf')), 1))
        self.qkv = nn.Linear(width, 3 * width)
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.emb.weight
        self.width = width

    def forward(self, tokens):
        h = self.emb(tokens) + self.pos
        q, k, v = self.qkv(h).chunk(3, -1)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.width) + self.causal, -1) @ v
        h = self.ln(h + a)
        return self.head(h.mean(1))


def sinusoidal(positions, width):
    pe = torch.zeros(positions, width)
    position = torch.arange(positions).unsqueeze(1).float()
    div = torch.exp(torch.arange(0, width, 2).float() * (-math.log(10000.0) / width))
    pe[:, 0::2] = torch.sin(position * div)
    pe[:, 1::2] = torch.cos(position * div)
    return pe


class Encoder(nn.Module):
    """A sinusoidal position buffer, and attention pooling whose padding fill (-1e4) is a buffer."""

    def __init__(self, vocab=9, width=8, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.register_buffer('pe', sinusoidal(SEQ, width))
        self.register_buffer('pad_fill', torch.full((SEQ,), -1e4))
        self.ff = nn.Linear(width, width)
        self.score = nn.Linear(width, 1)
        self.out = nn.Linear(width, classes)

    def forward(self, tokens):
        h = torch.relu(self.ff(self.emb(tokens) + self.pe))
        scores = self.score(h).squeeze(-1) + torch.where(tokens == 0, self.pad_fill, torch.zeros(SEQ))
        weights = torch.softmax(scores, -1).unsqueeze(-1)
        return self.out((weights * h).sum(1))


class Recommender(nn.Module):
    """User and item embeddings into an MLP with a Linear(d, 1) head: its bias is a one-element parameter."""

    def __init__(self, users=13, items=17, width=8):
        super().__init__()
        self.user = nn.Embedding(users, width)
        self.item = nn.Embedding(items, width)
        self.mlp = nn.Linear(2 * width, width)
        self.head = nn.Linear(width, 1)

    def forward(self, users, items):
        return self.head(torch.relu(self.mlp(torch.cat([self.user(users), self.item(items)], -1))))


class SeparableCnn(nn.Module):
    """MobileNet's block: depthwise and pointwise convolutions, ReLU6, hard-swish, average pooling."""

    def __init__(self, classes=4):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pointwise = nn.Conv2d(8, 16, 1)
        self.pool = nn.AvgPool2d(2)
        self.out = nn.Linear(16 * 4 * 4, classes)

    def forward(self, image):
        h = nn.functional.relu6(self.stem(image))
        h = nn.functional.relu6(self.depthwise(h))
        h = self.pool(nn.functional.hardswish(self.pointwise(h)))
        return self.out(h.flatten(1))


class ResidualCnn(nn.Module):
    """resnet18's block in small: Conv, BatchNorm, ReLU twice, the identity added; BatchNorm in training mode."""

    def __init__(self, classes=4, width=8):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(width)
        self.conv1 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.fc = nn.Linear(width, classes)

    def forward(self, image):
        h = torch.relu(self.bn0(self.stem(image)))
        h = torch.relu(h + self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(h))))))
        return self.fc(h.mean((2, 3)))


class MobileBlockCnn(nn.Module):
    """mobilenet_v3_small's inverted residual in small: expand, depthwise, squeeze-excite, project, each with
    BatchNorm in training mode; hard-swish and hard-sigmoid; Dropout before the classifier (p = 0, so that
    ONNX Runtime's and torch's random masks do not decide the comparison)."""

    def __init__(self, classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.Hardswish())
        self.expand = nn.Sequential(nn.Conv2d(8, 16, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.depthwise = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.squeeze = nn.Linear(16, 4)
        self.excite = nn.Linear(4, 16)
        self.project = nn.Sequential(nn.Conv2d(16, 8, 1, bias=False), nn.BatchNorm2d(8))
        self.dropout = nn.Dropout(0.0)
        self.classifier = nn.Linear(8, classes)

    def forward(self, image):
        h = self.stem(image)
        e = self.depthwise(self.expand(h))
        s = nn.functional.hardsigmoid(self.excite(torch.relu(self.squeeze(e.mean((2, 3))))))
        h = h + self.project(e * s[:, :, None, None])
        return self.classifier(self.dropout(h.mean((2, 3))))


class LstmClassifier(nn.Module):
    """A bidirectional LSTM over token embeddings, classified from its output at the last time step (x[:, -1])."""

    def __init__(self, vocab=10, width=6, hidden=5, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.lstm = nn.LSTM(width, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, classes)

    def forward(self, tokens):
        y, _ = self.lstm(self.emb(tokens))
        return self.out(y[:, -1])


class GruClassifier(nn.Module):
    """A GRU over token embeddings, classified from its final hidden state h_n."""

    def __init__(self, vocab=10, width=6, hidden=5, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.gru = nn.GRU(width, hidden, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, tokens):
        _, h = self.gru(self.emb(tokens))
        return self.out(h[-1])


#: Models whose BatchNormalization and Dropout train live: exported in training mode by the
#: TorchScript exporter only (torch 2.13's dynamo exporter drops BatchNormalization in training mode).
TRAINING_MODE = {'resnet', 'mobilenet'}


def models():
    torch.manual_seed(0)
    return {'decoder': Decoder(), 'encoder': Encoder(), 'recommender': Recommender(), 'separable': SeparableCnn(), 'resnet': ResidualCnn(), 'mobilenet': MobileBlockCnn(), 'lstm': LstmClassifier(), 'gru': GruClassifier()}


def batch(name):
    g = torch.Generator().manual_seed(5)
    if name in ('lstm', 'gru'):
        return {'tokens': torch.randint(0, 10, (3, SEQ), generator=g)}, torch.randint(0, 3, (3,), generator=g)
    if name == 'decoder':
        return {'tokens': torch.randint(0, 11, (3, SEQ), generator=g)}, torch.randint(0, 11, (3,), generator=g)
    if name == 'encoder':
        tokens = torch.randint(1, 9, (3, SEQ), generator=g)
        tokens[:, -2:] = 0
        return {'tokens': tokens}, torch.randint(0, 3, (3,), generator=g)
    if name in ('separable', 'resnet', 'mobilenet'):
        return {'image': torch.rand(3, 3, 8, 8, generator=g)}, torch.randint(0, 4, (3,), generator=g)
    return {'users': torch.randint(0, 13, (4,), generator=g), 'items': torch.randint(0, 17, (4,), generator=g)}, torch.rand(4, 1, generator=g)


def export():
    os.makedirs(OUT, exist_ok=True)
    for name, model in models().items():
        inputs, _ = batch(name)
        training = name in TRAINING_MODE
        for exporter in ('torchscript',) if training else ('torchscript', 'dynamo'):
            path = os.path.join(OUT, f'{name}-{exporter}.onnx')
            # Tracing runs the model: in training mode that would move the running statistics.
            state = {k: v.clone() for k, v in model.state_dict().items()}
            options = {'training': torch.onnx.TrainingMode.TRAINING, 'do_constant_folding': False} if training else {}
            torch.onnx.export(model, tuple(inputs.values()), path, input_names=list(inputs), output_names=['logits'], dynamo=exporter == 'dynamo', opset_version=18, **options)
            model.load_state_dict(state)
            # The dynamo exporter writes weights to a .data file beside the model: one file is kept.
            # Tracing in training mode ran the model once and the file holds the running statistics
            # it moved: they are put back to the model's initial ones.
            import onnx
            from onnx import numpy_helper
            saved = onnx.load(path)
            for tensor in saved.graph.initializer:
                if tensor.name in state and tensor.name.endswith(('running_mean', 'running_var')):
                    tensor.CopyFrom(numpy_helper.from_array(state[tensor.name].numpy(), tensor.name))
            onnx.save(saved, path)
            if os.path.exists(path + '.data'):
                os.remove(path + '.data')
            print('wrote', path)


STEPS = 8
LR = 0.01


def loss_of(name, model, inputs, target):
    out = model(*inputs.values())
    return nn.functional.mse_loss(out, target) if name == 'recommender' else nn.functional.cross_entropy(out, target)


def reference():
    """Per model: the batch, the loss, every nn.Parameter with its gradient, every buffer, and an
    8-step AdamW trajectory (lr 0.01, PyTorch's defaults) on the same batch: the losses and the
    parameters after it."""
    result = {}
    for name, model in models().items():
        inputs, target = batch(name)
        # The gradient pass runs the model once: in training mode it moves the running statistics,
        # so the trajectory starts again from the state the ONNX file holds.
        initial = {k: v.clone() for k, v in model.state_dict().items()}
        loss = loss_of(name, model, inputs, target)
        loss.backward()
        aliases = {}
        for param_name, param in model.named_parameters(remove_duplicate=False):
            aliases.setdefault(id(param), []).append(param_name)
        params = [{'names': aliases[id(p)], 'shape': list(p.shape), 'values': p.detach().flatten().tolist(), 'grad': p.grad.flatten().tolist()} for _, p in model.named_parameters()]
        buffers = [{'name': n, 'values': initial[n].flatten().tolist()} for n, b in model.named_buffers() if b.is_floating_point()]
        model.load_state_dict(initial)
        optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
        losses = []
        for _ in range(STEPS):
            optimizer.zero_grad()
            step_loss = loss_of(name, model, inputs, target)
            losses.append(step_loss.item())
            step_loss.backward()
            optimizer.step()
        result[name] = {
            'inputs': {k: {'values': v.flatten().tolist(), 'dims': list(v.shape), 'type': 'float32' if v.is_floating_point() else 'int64'} for k, v in inputs.items()},
            'target': {'values': target.flatten().tolist(), 'dims': list(target.shape), 'kind': 'mse' if name == 'recommender' else 'cross-entropy'},
            'loss': loss.item(),
            'parameters': params,
            'buffers': buffers,
            'trajectory': {'lr': LR, 'losses': losses, 'parameters': [p.detach().flatten().tolist() for _, p in model.named_parameters()], 'buffers': {n: b.flatten().tolist() for n, b in model.named_buffers() if b.is_floating_point()}},
        }
    json.dump(result, sys.stdout, allow_nan=True)


if __name__ == '__main__':
    {'export': export, 'reference': reference}[sys.argv[1]]()
