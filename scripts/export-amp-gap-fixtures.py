"""Exports the second model of the amp-gap benchmark (bench/amp-gap.mjs, #36 point 4): torchvision's
mobilenet_v3_small architecture at MNIST size (1x28x28, 10 classes), random weights from a fixed seed,
in training mode (BatchNorm computes batch statistics and moves its running ones), with the TorchScript
exporter, into fixtures/amp-gap/mobilenet-mnist.onnx.

The layers are torchvision's (the index's torchvision wheel is a CUDA build that does not import beside
CPU torch, so the architecture is written here in plain torch): a stride-2 stem with hard-swish,
inverted residual blocks (1x1 expand, depthwise k x k, squeeze-excite with hard-sigmoid, 1x1 project,
BatchNorm after each convolution, a residual where the shape allows), a 1x1 last convolution, global
average pooling and a two-layer classifier with hard-swish. Widths and depth are cut to MNIST's size.
Dropout is p = 0 so that runs are reproducible (ONNX Runtime draws its own masks).

Run with the venv that has torch:  /work/venv/bin/python scripts/export-amp-gap-fixtures.py
"""
import os

import torch
import torch.nn as nn

OUT = os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'amp-gap')


def conv_bn(inputs, outputs, kernel, stride=1, groups=1, activation=None):
    layers = [nn.Conv2d(inputs, outputs, kernel, stride, kernel // 2, groups=groups, bias=False), nn.BatchNorm2d(outputs)]
    return nn.Sequential(*layers, *([activation()] if activation else []))


class SqueezeExcite(nn.Module):
    def __init__(self, channels, squeezed):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, channels, 1)

    def forward(self, x):
        scale = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * nn.functional.hardsigmoid(self.fc2(torch.relu(self.fc1(scale))))


class InvertedResidual(nn.Module):
    def __init__(self, inputs, kernel, expanded, outputs, squeeze_excite, activation, stride):
        super().__init__()
        self.residual = stride == 1 and inputs == outputs
        layers = [] if expanded == inputs else [conv_bn(inputs, expanded, 1, activation=activation)]
        layers.append(conv_bn(expanded, expanded, kernel, stride, groups=expanded, activation=activation))
        if squeeze_excite:
            layers.append(SqueezeExcite(expanded, max(8, expanded // 4)))
        layers.append(conv_bn(expanded, outputs, 1))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    # torchvision's (kernel, expanded, outputs, squeeze-excite, activation, stride) rows, the first five at MNIST size.
    BLOCKS = [(3, 16, 16, True, nn.ReLU, 2), (3, 48, 24, False, nn.ReLU, 1), (3, 64, 24, False, nn.ReLU, 1),
              (5, 96, 40, True, nn.Hardswish, 2), (5, 120, 40, True, nn.Hardswish, 1)]

    def __init__(self, classes=10):
        super().__init__()
        layers, channels = [conv_bn(1, 16, 3, 2, activation=nn.Hardswish)], 16
        for kernel, expanded, outputs, squeeze_excite, activation, stride in self.BLOCKS:
            layers.append(InvertedResidual(channels, kernel, expanded, outputs, squeeze_excite, activation, stride))
            channels = outputs
        layers.append(conv_bn(channels, 6 * channels, 1, activation=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(6 * channels, 128), nn.Hardswish(), nn.Dropout(0.0), nn.Linear(128, classes))
        # torchvision's initialisation.
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out')
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, features):
        x = nn.functional.adaptive_avg_pool2d(self.features(features), 1)
        return self.classifier(torch.flatten(x, 1))


def export():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    model = MobileNetV3Small().train()
    path = os.path.join(OUT, 'mobilenet-mnist.onnx')
    # Tracing in training mode runs the model once and moves the running statistics: put them back.
    state = {k: v.clone() for k, v in model.state_dict().items()}
    torch.onnx.export(model, (torch.randn(4, 1, 28, 28),), path, input_names=['features'], output_names=['logits'],
                      dynamo=False, opset_version=17, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      dynamic_axes={'features': {0: 'batch'}, 'logits': {0: 'batch'}})
    import onnx
    from onnx import numpy_helper
    saved = onnx.load(path)
    for tensor in saved.graph.initializer:
        if tensor.name in state and tensor.name.endswith(('running_mean', 'running_var')):
            tensor.CopyFrom(numpy_helper.from_array(state[tensor.name].numpy(), tensor.name))
    onnx.save(saved, path)
    print('wrote', path, sum(p.numel() for p in model.parameters()), 'parameters')


if __name__ == '__main__':
    export()
