# Exports test/models/torch-encoder-dynamo.onnx: a 2-layer nn.TransformerEncoder (batch_first=True, d_model 32,
# 4 heads) through PyTorch's dynamo exporter with a dynamic batch axis, weights embedded. Its
# MultiheadAttention transposes the input to (sequence, batch, d_model) before the input projection: a
# Transpose(perm [1, 0, 2]) read by a MatMul, which in float16 crashed onnxruntime 1.30's CPU session at
# the default optimization level (rules/runtime-hazards.json).
# Usage: /work/venv/bin/python scripts/export-torch-encoder.py test/models/torch-encoder-dynamo.onnx
import sys, torch
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
x = torch.randn(2, 10, 32)
torch.onnx.export(encoder, (x,), sys.argv[1], dynamo=True, external_data=False, input_names=['src'],
                  dynamic_shapes=({0: torch.export.Dim('batch')},))
