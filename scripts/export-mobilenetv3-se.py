# Exports test/models/mobilenetv3-se-dynamo.onnx: a small MobileNetV3-style network (inverted residual blocks with
# squeeze-and-excitation, hardswish/hardsigmoid, global average pooling before the classifier), written with
# F.adaptive_avg_pool2d(x, 1) as torchvision's MobileNetV3 does, exported by the dynamo exporter (torch.export),
# which writes the pooling as ReduceMean over H, W. Usage:
# /work/venv/bin/python scripts/export-mobilenetv3-se.py test/models/mobilenetv3-se-dynamo.onnx
import sys, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class SE(nn.Module):
    def __init__(s, c):
        super().__init__(); s.fc1 = nn.Conv2d(c, c // 4, 1); s.fc2 = nn.Conv2d(c // 4, c, 1)
    def forward(s, x):
        w = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(s.fc2(F.relu(s.fc1(w))))
class Block(nn.Module):
    def __init__(s, c):
        super().__init__()
        s.expand = nn.Conv2d(c, 2 * c, 1); s.bn1 = nn.BatchNorm2d(2 * c)
        s.dw = nn.Conv2d(2 * c, 2 * c, 3, padding=1, groups=2 * c); s.bn2 = nn.BatchNorm2d(2 * c)
        s.se = SE(2 * c); s.project = nn.Conv2d(2 * c, c, 1); s.bn3 = nn.BatchNorm2d(c)
    def forward(s, x):
        h = F.hardswish(s.bn1(s.expand(x)))
        h = F.hardswish(s.bn2(s.dw(h)))
        return x + s.bn3(s.project(s.se(h)))
class Net(nn.Module):
    def __init__(s, c=16, blocks=4):
        super().__init__()
        s.stem = nn.Conv2d(3, c, 3, stride=2, padding=1); s.blocks = nn.Sequential(*(Block(c) for _ in range(blocks)))
        s.head = nn.Linear(c, 10)
    def forward(s, x):
        h = s.blocks(F.hardswish(s.stem(x)))
        return s.head(torch.flatten(F.adaptive_avg_pool2d(h, 1), 1))
m = Net().eval()
torch.onnx.export(m, (torch.randn(1, 3, 32, 32),), sys.argv[1], input_names=['image'], output_names=['logits'], dynamo=True, opset_version=18, optimize=True)
import onnx
onnx.save(onnx.load(sys.argv[1]), sys.argv[1], save_as_external_data=False)
import os
if os.path.exists(sys.argv[1] + '.data'): os.remove(sys.argv[1] + '.data')
