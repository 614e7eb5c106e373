#!/usr/bin/env bash
# bench/node/pack-kit.sh [CHECKOUT]: the kit device-run.sh unpacks on a lent GPU machine (no Node, no network): the
# lab's kit (../shared/gpu-kit/pack.sh, or KIT_PACK: Node's binary, the checkout with its built dist/, the GPU
# tier's packages, Debian's libvulkan1) with the packages the whole campaign imports besides: chart.js (the HTML
# pages), onnx-proto (the ONNX models), ONNX Runtime Web and TensorFlow.js (the peers). Then pruned to what Node
# loads of them: ORT's WebGPU entry and the one wasm it runs (ort.webgpu.bundle.min.mjs imports
# ort-wasm-simd-threaded.asyncify.mjs, which loads its .wasm; the other builds, about 110 MB, stay behind), TF.js's
# Node bundles (dist/tf-*.node.js), no source maps. Everything that travels must stay under 64 MiB: the kit's size
# is printed, and the script fails above KIT_MAX_MIB (60).
#
#   bash bench/node/pack-kit.sh            # .kit/ at the checkout's root (git-ignored), from this checkout
set -eu
CO=$(cd "${1:-.}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PACK=${KIT_PACK:-$HERE/../../../shared/gpu-kit/pack.sh}
[ -f "$PACK" ] || PACK=/work/shared/gpu-kit/pack.sh
EXTRA="chart.js onnx-proto onnxruntime-web @tensorflow/tfjs-core @tensorflow/tfjs-backend-webgpu"
KIT_PACKAGES="${KIT_PACKAGES:-} $EXTRA" bash "$PACK" "$CO" >/dev/null

W=$(mktemp -d /tmp/kitprune.XXXXXX)
trap 'rm -rf "$W"' EXIT
xz -dc "$CO/.kit/project.tar.xz" | tar -x -C "$W"
N="$W/project/node_modules"
[ -f "$N/onnxruntime-web/dist/ort.webgpu.bundle.min.mjs" ] || {
  echo "pack-kit: onnxruntime-web is not in the kit"
  exit 1
}
# ORT: package.json (its exports), its licence, and in dist/ the WebGPU entry and the wasm build it loads in Node.
find "$N/onnxruntime-web" -mindepth 1 -maxdepth 1 ! -name dist ! -name package.json ! -name LICENSE -exec rm -rf {} +
find "$N/onnxruntime-web/dist" -type f ! -name ort.webgpu.bundle.min.mjs ! -name 'ort-wasm-simd-threaded.asyncify.*' \
  -delete
# TF.js: package.json, licence and the Node bundle of each package (tfjs-backend-cpu comes as a dependency).
for p in "$N"/@tensorflow/*; do
  find "$p" -type f ! -path "$p/package.json" ! -name LICENSE ! -name 'tf-*.node.js' -delete
  find "$p" -type d -empty -delete
done
# protobufjs's code generator (its own node_modules among it): onnx-proto loads protobufjs's runtime only.
rm -rf "$N/protobufjs/cli"
find "$N" -name '*.map' -type f -delete
(cd "$W" && tar -cf - project | xz -T2 -6 >"$CO/.kit/project.tar.xz")
mib=$(du -sm "$CO/.kit" | cut -f1)
echo "pack-kit: $CO/.kit is $mib MiB ($(cd "$CO/.kit" && ls | tr '\n' ' '))"
[ "$mib" -le "${KIT_MAX_MIB:-60}" ] || { echo "pack-kit: over ${KIT_MAX_MIB:-60} MiB: it would not travel"; exit 1; }
