# Exports test/models/ssd-topk.onnx: a small SSD-style detector whose post-processing keeps the 20
# best of 256 anchors (TopK over the class scores) and gathers their boxes, as detection exports do
# before NonMaxSuppression. The order TopK picks depends on score differences far below float16's
# resolution, so no float16 rewrite of the network before it returns the float32 model's boxes:
# tune's ranked pins do not pass, and its last attempt keeps every node float32. TorchScript, opset 17.
# Usage: /work/venv/bin/python scripts/export-ssd-topk.py test/models/ssd-topk.onnx
import sys, torch, torch.nn as nn
torch.manual_seed(0)
class SSDTopK(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        s.c2 = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        s.loc = nn.Conv2d(16, 4 * 4, 3, padding=1)
        s.conf = nn.Conv2d(16, 4, 3, padding=1)
        with torch.no_grad():
            s.conf.weight.mul_(1e-2)  # scores close together, as an untrained head's are: ranked below float16's resolution
    def forward(s, x):
        f = torch.relu(s.c2(torch.relu(s.c1(x))))
        B = x.shape[0]
        boxes = s.loc(f).permute(0, 2, 3, 1).reshape(B, -1, 4)
        scores = torch.sigmoid(s.conf(f).permute(0, 2, 3, 1).reshape(B, -1))
        top, index = torch.topk(scores, 20, dim=1)
        picked = torch.gather(boxes, 1, index.unsqueeze(-1).expand(B, 20, 4))
        return picked, top, index
m = SSDTopK().eval()
x = torch.rand(1, 3, 32, 32)
torch.onnx.export(m, (x,), sys.argv[1], input_names=['image'], output_names=['boxes', 'scores', 'anchors'], opset_version=17, dynamo=False)
