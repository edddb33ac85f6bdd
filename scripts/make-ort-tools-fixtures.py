"""Writes fixtures/ort-tools/: what ONNX Runtime's own Python tools make of the post-LN BERT of
scripts/export-bert-post-ln.py, exported by TorchScript at opset 14 (below LayerNormalization-17):
- bert-opt14-fused.onnx: onnxruntime.transformers.optimizer (model_type bert) fuses the decomposed norms into
  LayerNormalization at opset 14 (ONNX Runtime's own default-domain registration) and SkipLayerNormalization,
  the GELUs into com.microsoft ops;
- bert-opt14-dynamic-int8.onnx: onnxruntime.quantization.quantize_dynamic (DynamicQuantizeLinear, MatMulInteger).
test/runtime/model-zoo.test.ts rewrites and compares both. Deterministic (fixed seed).
Run with the outside-oracle venv: /work/venv/bin/python scripts/make-ort-tools-fixtures.py
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'fixtures', 'ort-tools')


def export_opset14(path):
    source = open(os.path.join(ROOT, 'scripts', 'export-bert-post-ln.py')).read().replace('opset_version=17', 'opset_version=14')
    sys.argv = ['export-bert-post-ln.py', path]
    exec(compile(source, 'export-bert-post-ln.py', 'exec'), {'__name__': '__main__'})


def main():
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        float_path = os.path.join(work, 'bert14.onnx')
        export_opset14(float_path)
        fused = optimize_model(float_path, model_type='bert', num_heads=4, hidden_size=32, opt_level=0)
        fused.save_model_to_file(os.path.join(OUT, 'bert-opt14-fused.onnx'))
        quantize_dynamic(float_path, os.path.join(OUT, 'bert-opt14-dynamic-int8.onnx'), weight_type=QuantType.QInt8)
    for name in sorted(os.listdir(OUT)):
        print(f'wrote {name} ({os.path.getsize(os.path.join(OUT, name))} bytes)', file=sys.stderr)


if __name__ == '__main__':
    main()
