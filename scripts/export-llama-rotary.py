# Exports test/models/llama-rotary.onnx: a tiny Hugging Face LlamaForCausalLM (hidden 32, 2 layers,
# 4 heads, vocab 64, max_position_embeddings 8192, random weights, q and k scaled by 10) with its rotary embedding as
# transformers builds it: Cast(position_ids -> float), inv_freq x positions MatMul, Concat, Cos/Sin.
# TorchScript exporter, opset 17; inputs input_ids, attention_mask, position_ids (all int64).
# Usage: /work/venv/bin/python scripts/export-llama-rotary.py test/models/llama-rotary.onnx
import sys, torch
from transformers import LlamaConfig, LlamaForCausalLM
torch.manual_seed(0)
config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                     vocab_size=64, max_position_embeddings=8192, rope_theta=10000.0, attn_implementation='eager', use_cache=False)
model = LlamaForCausalLM(config).eval()
# Sharp attention (q and k scaled up), so the logits depend on the positions: with the default
# initializer (std 0.02) every row's softmax is near uniform whatever the rotation.
QK_SCALE = 10.0
with torch.no_grad():
    for layer in model.model.layers: layer.self_attn.q_proj.weight.mul_(QK_SCALE); layer.self_attn.k_proj.weight.mul_(QK_SCALE)
class Logits(torch.nn.Module):
    def __init__(s, m): super().__init__(); s.m = m
    def forward(s, input_ids, attention_mask, position_ids):
        return s.m(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids, use_cache=False).logits
ids = torch.randint(0, 64, (1, 8)); am = torch.ones(1, 8, dtype=torch.int64); pos = torch.arange(8)[None]
torch.onnx.export(Logits(model), (ids, am, pos), sys.argv[1], input_names=['input_ids', 'attention_mask', 'position_ids'], output_names=['logits'],
                  dynamic_axes={n: {0: 'batch', 1: 'seq'} for n in ['input_ids', 'attention_mask', 'position_ids', 'logits']}, opset_version=17, dynamo=False)
