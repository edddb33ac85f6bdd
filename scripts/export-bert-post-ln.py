# Exports test/models/bert-post-ln.onnx: a 4-layer post-LN BERT-style encoder (x = LayerNorm(x + attention(x)),
# x = LayerNorm(x + FFN(x)), GELU, embeddings with their LayerNorm) with a padding mask built from
# torch.finfo(torch.float32).min, written by hand (torch's nn.TransformerEncoderLayer would take its fused fast
# path). TorchScript exporter, opset 17 (LayerNormalization). Usage:
# /work/venv/bin/python scripts/export-bert-post-ln.py test/models/bert-post-ln.onnx
import math, sys, torch, torch.nn as nn
torch.manual_seed(0)
D, H, V, L = 32, 4, 64, 4
class Layer(nn.Module):
    def __init__(s):
        super().__init__()
        s.qkv = nn.Linear(D, 3 * D); s.o = nn.Linear(D, D); s.ln1 = nn.LayerNorm(D)
        s.up = nn.Linear(D, 4 * D); s.down = nn.Linear(4 * D, D); s.ln2 = nn.LayerNorm(D)
    def forward(s, x, mask):
        B, T, _ = x.shape
        q, k, v = s.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // H) + mask
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = s.ln1(x + s.o(a))
        return s.ln2(x + s.down(torch.nn.functional.gelu(s.up(x))))
class Bert(nn.Module):
    def __init__(s):
        super().__init__(); s.emb = nn.Embedding(V, D); s.pos = nn.Embedding(16, D); s.ln = nn.LayerNorm(D); s.layers = nn.ModuleList(Layer() for _ in range(L))
    def forward(s, input_ids, attention_mask):
        T = input_ids.shape[1]
        x = s.ln(s.emb(input_ids) + s.pos(torch.arange(T)[None]))
        mask = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        for layer in s.layers: x = layer(x, mask)
        return x
m = Bert().eval()
ids = torch.randint(0, V, (2, 8)); am = torch.ones(2, 8, dtype=torch.int64); am[1, 5:] = 0
torch.onnx.export(m, (ids, am), sys.argv[1], input_names=['input_ids', 'attention_mask'], output_names=['last_hidden_state'],
                  dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'attention_mask': {0: 'batch', 1: 'seq'}}, opset_version=17, dynamo=False)
