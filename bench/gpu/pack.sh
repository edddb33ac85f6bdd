#!/usr/bin/env bash
# Packs the project for the lent GPU machine with ../shared/gpu/pack.sh, keeping ONNX Runtime in the app.
#
# Why a wrapper: onnxruntime-node is an optional peer dependency of amp-rewrite (a library user who only
# rewrites never installs it), so it sits in devDependencies here, and the shared script's
# `npm ci --omit=dev` would leave it out of .gpu-app: the CLI would then stop on the GPU machine with
# "install onnxruntime-node". This script hands the shared one a staging root whose package.json lists
# onnxruntime-node (pinned to the same version) as a production dependency, then moves the two packed
# folders, .gpu-cuda and .gpu-app, into the project's root.
# Usage, from the project's root after `npm run build`: bash bench/gpu/pack.sh
set -euo pipefail
root=$(git rev-parse --show-toplevel)
shared=${AMP_SHARED_DIR:-$root/../shared}
cd "$root"
[ -f "$shared/gpu/pack.sh" ] || { echo "no $shared/gpu/pack.sh: set AMP_SHARED_DIR to the shared folder" >&2; exit 2; }
[ -f dist/cli/main.js ] || { echo "dist/ is not built: run npm run build first" >&2; exit 2; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
node -e "
const pkg = require('./package.json');
const ort = pkg.devDependencies['onnxruntime-node'] ?? pkg.peerDependencies['onnxruntime-node'];
pkg.dependencies = { ...pkg.dependencies, 'onnxruntime-node': ort };
delete pkg.devDependencies;
// A bin path without './' so that the shared script copies dist/ alone, not the whole staging root.
pkg.bin = Object.fromEntries(Object.entries(pkg.bin).map(([name, file]) => [name, file.replace(/^\.\//, '')]));
require('fs').writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2));
" "$stage/package.json"
cp -r dist rules "$stage/"
# The shared script reads the installed onnxruntime-node's version to match the CUDA provider to it.
mkdir -p "$stage/node_modules/onnxruntime-node"
cp node_modules/onnxruntime-node/package.json "$stage/node_modules/onnxruntime-node/"
git -C "$stage" init -q
bash "$shared/gpu/pack.sh" "$stage"
rm -rf .gpu-cuda .gpu-app
mv "$stage/.gpu-cuda" "$stage/.gpu-app" .
mkdir -p .git/info
for d in .gpu-cuda .gpu-app; do grep -qx "/$d/" .git/info/exclude 2>/dev/null || echo "/$d/" >>.git/info/exclude; done
echo "packed into $root/.gpu-cuda and $root/.gpu-app (onnxruntime-node included)"
