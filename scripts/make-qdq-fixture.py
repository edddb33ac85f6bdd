"""Writes fixtures/quantized/qdq-cnn.onnx: a small float CNN exported by PyTorch, quantized by ONNX
Runtime's own quantizer (onnxruntime.quantization.quantize_static, QDQ format, int8 per-channel
weights), the kind of QDQ model whose units ONNX Runtime fuses into QLinearConv / QLinearMatMul.
test/passes/quantized-units.test.ts rewrites it. Deterministic: fixed seeds, fixed calibration data.
Run with the outside-oracle venv: /work/venv/bin/python scripts/make-qdq-fixture.py
"""
import os
import sys
import tempfile

import numpy as np
import torch
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'fixtures', 'quantized', 'qdq-cnn.onnx')


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Linear(8, 10)

    def forward(self, x):
        y = torch.relu(self.conv1(x))
        y = torch.relu(self.conv2(y)) + y
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.head(y)


class Reader(CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(7)
        self.batches = iter([{'x': rng.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(8)])

    def get_next(self):
        return next(self.batches, None)


def main():
    torch.manual_seed(0)
    model = SmallCnn().eval()
    with tempfile.TemporaryDirectory() as work:
        float_path = os.path.join(work, 'float.onnx')
        torch.onnx.export(model, (torch.zeros(1, 3, 16, 16),), float_path, input_names=['x'], output_names=['logits'], opset_version=13, dynamo=False)
        os.makedirs(os.path.dirname(OUT), exist_ok=True)
        quantize_static(float_path, OUT, Reader(), quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8, per_channel=True)
    print(f'wrote {OUT} ({os.path.getsize(OUT)} bytes)', file=sys.stderr)


if __name__ == '__main__':
    main()
