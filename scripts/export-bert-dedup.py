# Exports test/models/bert-dedup.onnx and test/models/bert-distinct.onnx: a tiny Hugging Face BertModel
# (2 layers, hidden 32) through the TorchScript exporter (opset 17). In the first its initial weights are
# as transformers makes them: every LayerNorm weight is ones and every bias zeros, so TorchScript stores
# each set of equal tensors once and reads the copies through Identity nodes. In the second every
# parameter gets a little noise, so all are distinct and no Identity is written. The two graphs differ
# only in how their weights are stored.
# Usage: /work/venv/bin/python scripts/export-bert-dedup.py test/models/bert-dedup.onnx test/models/bert-distinct.onnx
import sys, torch
from transformers import BertConfig, BertModel
torch.manual_seed(0)
config = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, max_position_embeddings=32)
ids = torch.randint(0, 64, (1, 8))
mask = torch.ones(1, 8, dtype=torch.int64)
class Encoder(torch.nn.Module):
    """BertModel called with keywords (its forward's positional order changes between transformers releases)."""
    def __init__(self, bert):
        super().__init__()
        self.bert = bert
    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
for path, noise in ((sys.argv[1], 0.0), (sys.argv[2], 0.01)):
    torch.manual_seed(0)
    model = BertModel(config, add_pooling_layer=False).eval()
    if noise:
        with torch.no_grad():
            for p in model.parameters():
                p.add_(noise * torch.randn_like(p))
    wrapped = Encoder(model)
    torch.onnx.export(wrapped, (ids, mask), path, input_names=['input_ids', 'attention_mask'], output_names=['last_hidden_state'],
                      opset_version=17, dynamo=False, dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}, 'attention_mask': {0: 'batch', 1: 'sequence'}})
