#!/usr/bin/env bash
# On a GPU machine: the texture programs of tests/cudart/tex_*.cu under NVIDIA's runtime and
# under chevron's (`chevron exec`, CPU device), stdout compared line for line: the printed hashes
# of every sample are the bit-exactness check of the CPU device's filtering against the GPU.
# (Under chevron on the GPU itself, arrays and texture objects are not provided yet.)
#
# Prepare here:   scripts/gpu/textures.sh --prepare    (writes carry/textures/)
# then there:     scripts/gpu/textures.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/textures"
if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/textures.sh
    mkdir -p "$carry"
    for file in libcudart.so chevron; do objcopy --strip-debug "target/debug/$file" "$carry/$file"; done
    for src in tests/cudart/tex_*.cu; do cp "target/cudart/$(basename "$src" .cu)" "$carry/"; done
    toolkit="$(dirname "$(scripts/deps/cuda_nvcc.sh)")"
    cp "$toolkit/lib/libcudart.so.13" "$carry/libcudart.so.13.nvidia"
    exit 0
fi
logs="${OUT:-$(mktemp -d)}"
mkdir -p "$logs/nvidia"
ln -sf "$carry/libcudart.so.13.nvidia" "$logs/nvidia/libcudart.so.13"
status=0
printf '%-16s %s\n' program "NVIDIA vs chevron (cpu)"
for program in "$carry"/tex_*; do
    name="$(basename "$program")"
    LD_LIBRARY_PATH="$logs/nvidia" "$program" >"$logs/$name.nvidia" 2>&1 || true
    "$carry/chevron" exec --device cpu "$program" \
        >"$logs/$name.chevron" 2>&1 || true
    if diff -u "$logs/$name.nvidia" "$logs/$name.chevron" >"$logs/$name.diff"; then
        printf '%-16s %s\n' "$name" same
    else
        printf '%-16s %s\n' "$name" "differs (see $logs/$name.diff)"; cat "$logs/$name.diff"; status=1
    fi
done
exit $status
