# Exports test/models/llama-mask.onnx: a 2-layer LLaMA-style decoder (RMSNorm with its float32 round trip,
# softmax(dtype=float32).to(q.dtype), SiLU MLP) whose 4D attention mask is built as Hugging Face builds it,
# from torch.finfo(torch.float32).min (causal triangle, then masked_fill of the padding). TorchScript exporter,
# opset 17. Usage: /work/venv/bin/python scripts/export-llama-mask.py test/models/llama-mask.onnx
import math, sys, torch, torch.nn as nn
torch.manual_seed(0)
D, H, V, L = 32, 4, 64, 2
class RMSNorm(nn.Module):
    def __init__(s): super().__init__(); s.weight = nn.Parameter(torch.ones(D) + 0.1*torch.randn(D))
    def forward(s, x):
        dt = x.dtype; h = x.to(torch.float32)
        var = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(var + 1e-6)
        return s.weight * h.to(dt)
class Layer(nn.Module):
    def __init__(s):
        super().__init__()
        s.ln1, s.ln2 = RMSNorm(), RMSNorm()
        s.q, s.k, s.v, s.o = (nn.Linear(D, D, bias=False) for _ in range(4))
        s.up, s.down = nn.Linear(D, 2*D, bias=False), nn.Linear(2*D, D, bias=False)
    def forward(s, x, mask):
        B, T, _ = x.shape
        h = s.ln1(x)
        q = s.q(h).view(B, T, H, D//H).transpose(1, 2)
        k = s.k(h).view(B, T, H, D//H).transpose(1, 2)
        v = s.v(h).view(B, T, H, D//H).transpose(1, 2)
        scores = q @ k.transpose(2, 3) / math.sqrt(D//H)
        scores = scores + mask
        attn = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        a = (attn @ v).transpose(1, 2).reshape(B, T, D)
        x = x + s.o(a)
        return x + s.down(torch.nn.functional.silu(s.up(s.ln2(x))))
class Model(nn.Module):
    def __init__(s):
        super().__init__(); s.emb = nn.Embedding(V, D); s.layers = nn.ModuleList(Layer() for _ in range(L)); s.norm = RMSNorm(); s.head = nn.Linear(D, V, bias=False)
    def forward(s, input_ids, attention_mask):
        B, T = input_ids.shape
        x = s.emb(input_ids)
        mn = torch.finfo(torch.float32).min
        # Hugging Face's 4D mask: causal triangle and padding, filled with finfo(float32).min
        causal = torch.full((T, T), mn).triu(1)[None, None]
        pad = attention_mask[:, None, None, :].to(torch.float32)
        mask = causal.masked_fill(pad == 0, mn)
        for layer in s.layers: x = layer(x, mask)
        return s.head(s.norm(x))
m = Model().eval()
ids = torch.randint(0, V, (2, 8)); am = torch.ones(2, 8, dtype=torch.int64); am[1, :3] = 0
torch.onnx.export(m, (ids, am), sys.argv[1], input_names=['input_ids', 'attention_mask'], output_names=['logits'],
                  dynamic_axes={'input_ids': {0: 'batch', 1: 'seq'}, 'attention_mask': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch', 1: 'seq'}}, opset_version=17, dynamo=False)
print(m(ids, am).isnan().sum())
