# Exports test/models/ssd-overflow.onnx: a small SSD-style detector (a Conv backbone, then box and
# class heads over a feature map, the class scores through Softmax) whose weights are scaled as a
# checkpoint with folded BatchNorm can leave them: the backbone's activations reach about 1e5, past
# float16's 65504, and the heads scale them back down. In float32 every output is finite; cast
# blindly to float16 the middle overflows and the outputs turn non-finite, as ONNX Runtime's
# SSD test model does. TorchScript exporter, opset 17.
# Usage: /work/venv/bin/python scripts/export-ssd-overflow.py test/models/ssd-overflow.onnx
import sys, torch, torch.nn as nn
torch.manual_seed(0)
A, C = 4, 5  # anchors per cell, classes
class SSDLike(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        s.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        s.c3 = nn.Conv2d(32, 32, 3, padding=1)
        s.loc = nn.Conv2d(32, 4 * A, 3, padding=1)
        s.conf = nn.Conv2d(32, C * A, 3, padding=1)
        with torch.no_grad():
            s.c2.weight.mul_(400.0)   # folded BatchNorm scales: activations in the hundreds
            s.c3.weight.mul_(2000.0)  # ... and past float16's range here
            s.loc.weight.mul_(1e-5)
            s.conf.weight.mul_(1e-5)
    def forward(s, x):
        f = torch.relu(s.c1(x))
        f = torch.relu(s.c2(f))
        f = torch.relu(s.c3(f))
        B = x.shape[0]
        boxes = s.loc(f).permute(0, 2, 3, 1).reshape(B, -1, 4)
        scores = torch.softmax(s.conf(f).permute(0, 2, 3, 1).reshape(B, -1, C), dim=-1)
        return boxes, scores
m = SSDLike().eval()
x = torch.rand(1, 3, 32, 32) * 2 - 1
with torch.no_grad():
    f = torch.relu(m.c2(torch.relu(m.c1(x))))
    print('largest c2', f.abs().max().item(), 'largest c3', torch.relu(m.c3(f)).abs().max().item())
    b, sc = m(x)
    print('boxes finite', torch.isfinite(b).all().item(), 'max', b.abs().max().item())
torch.onnx.export(m, (x,), sys.argv[1], input_names=['image'], output_names=['boxes', 'scores'], opset_version=17, dynamo=False)
