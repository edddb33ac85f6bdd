# Exports test/models/sdpa-left-padding.onnx: one attention block through
# torch.nn.functional.scaled_dot_product_attention with a boolean 4D mask built from a left-padding
# mask (query and key both padded), so padded query rows are masked everywhere. The TorchScript
# exporter (opset 17) writes SDPA as MatMul -> Add(Where(mask, 0, -inf)) -> Softmax and guards the
# fully masked rows: IsNaN -> Where(isnan, 0, p), which makes them 0 as torch does.
# Usage: /work/venv/bin/python scripts/export-sdpa-left-padding.py test/models/sdpa-left-padding.onnx
import sys, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
D, H = 16, 2
class Attention(nn.Module):
    def __init__(s):
        super().__init__()
        s.qkv = nn.Linear(D, 3 * D)
        s.o = nn.Linear(D, D)
    def forward(s, x, mask):
        B, T, _ = x.shape
        q, k, v = s.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        keep = (mask[:, None, :, None] * mask[:, None, None, :]).bool()
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return s.o(a.transpose(1, 2).reshape(B, T, D))
m = Attention().eval()
x = torch.randn(2, 6, D)
mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
torch.onnx.export(m, (x, mask), sys.argv[1], input_names=['x', 'mask'], output_names=['y'], opset_version=17, dynamo=False,
                  dynamic_axes={'x': {0: 'batch', 1: 'sequence'}, 'mask': {0: 'batch', 1: 'sequence'}})
