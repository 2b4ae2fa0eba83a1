#!/usr/bin/env bash
# Rebuilds corpus/triton/ (PTX and cubins of four Triton kernels for sm_80 and sm_90) with
# Triton 3.9.0 ahead of time, on a machine without a GPU. Line info is turned off
# (TRITON_DISABLE_LINE_INFO=1) so that no local path ends up in the .file directives.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
pythonpath="$(bash scripts/deps/triton.sh)"
out=corpus/triton
rm -rf "$out"
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export TRITON_CACHE_DIR="$cache" TRITON_DISABLE_LINE_INFO=1 TRITON_DEFAULT_FP_FUSION=1
export PYTHONPATH="$pythonpath"
python3 scripts/corpus/triton_corpus.py "$out" --arch 80 --arch 90 --cubin --no-fallback
# sm_90 again at PTX ISA 9.0, which driver 580 can JIT (the default above is the bundled ptxas's).
python3 scripts/corpus/triton_corpus.py "$out" --arch 90 --ptx-version 90 --suffix ptx90 --no-fallback
for tool in ptxas ptxas-blackwell; do
    bin="$pythonpath/triton/backends/nvidia/bin/$tool"
    echo "bundled $tool: $("$bin" --version | tail -2 | head -1)" >>"$out/VERSIONS.txt"
done
sort -u -o "$out/VERSIONS.txt" "$out/VERSIONS.txt"
# cuobjdump views of the new cubins/fatbins
bash scripts/corpus/dump_objects.sh
