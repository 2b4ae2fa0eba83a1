#!/usr/bin/env bash
# On a GPU machine: the texture programs of tests/cudart/tex_*.cu under NVIDIA's runtime, and
# under chevron's (`chevron exec`) on the CPU device and on the GPU itself, stdout compared line
# for line with NVIDIA's: every sample is printed as a hex float, so the CPU column is the
# bit-exactness check of the CPU device's filtering and the GPU column the check of chevron's
# arrays, texture and surface objects made through the driver (cuArray3DCreate,
# cuTexObjectCreate, cuSurfObjectCreate, cuMemcpy3DAsync).
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
printf '%-16s %-8s %s\n' program device "NVIDIA vs chevron"
for program in "$carry"/tex_*; do
    name="$(basename "$program")"
    LD_LIBRARY_PATH="$logs/nvidia" "$program" >"$logs/$name.nvidia" 2>&1 || true
    for device in cpu cuda:0; do
        tag="$name.${device%%:*}"
        "$carry/chevron" exec --device "$device" "$program" >"$logs/$tag.chevron" 2>&1 || true
        if diff -u "$logs/$name.nvidia" "$logs/$tag.chevron" >"$logs/$tag.diff"; then
            printf '%-16s %-8s %s\n' "$name" "$device" same
        else
            printf '%-16s %-8s %s\n' "$name" "$device" "differs (see $logs/$tag.diff)"
            cat "$logs/$tag.diff"
            status=1
        fi
    done
done
exit $status
