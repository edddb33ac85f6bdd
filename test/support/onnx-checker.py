# Outside oracle: ONNX's own checker (Debian's python3-onnx) over the files named on stdin, one
# per line. Prints "ok <file>" or "fail <file>: <reason>" per file. Test support only.
import sys

import onnx

for line in sys.stdin:
    path = line.strip()
    if not path:
        continue
    try:
        onnx.checker.check_model(onnx.load(path))
        print(f"ok {path}")
    except Exception as error:  # the checker raises ValidationError, protobuf errors, ...
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"fail {path}: {reason}")
