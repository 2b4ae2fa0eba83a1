#!/usr/bin/env bash
# Compiles probes.cu to probes.compute_80.ptx with NVRTC 13.0 (scripts/deps/nvrtc.sh installs it
# into .deps/; NVRTC_DIR=DIR uses another copy), the same driver as the corpus.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
nvrtc_dir="${NVRTC_DIR:-$(bash "$root/scripts/deps/nvrtc.sh")}"
python3 "$root/scripts/corpus/nvrtc_compile.py" --nvrtc-dir "$nvrtc_dir" "$here/probes.cu" \
    --ptx "$here/probes.compute_80.ptx" -- --gpu-architecture=compute_80
