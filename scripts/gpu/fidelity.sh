#!/usr/bin/env bash
# On a GPU machine: the fidelity programs of tests/cudart/ (collective_probe, async_copy,
# host_memory, zero_copy; see docs/cpu-device-fidelity.md) under NVIDIA's runtime and under chevron's
# (`chevron exec --device cuda`), outputs compared line for line, and the collective probe's
# output against the H200's (scripts/gpu/probes/collective_probe.h200.txt): a different GPU or
# driver that answers otherwise shows here first.
#
# Prepare on the development machine (builds the programs through scripts/test.d/fidelity.sh,
# a release chevron, and copies them to carry/fidelity/ with NVIDIA's libcudart.so.13):
#   scripts/gpu/fidelity.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/fidelity.sh          # writes its logs to $OUT (default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/fidelity"
programs=(collective_probe collective_probe-ptx80 async_copy host_memory zero_copy)

if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/fidelity.sh
    cargo build -q --release -p chevron-cudart -p chevron-cli
    toolkit="$(dirname "$(scripts/deps/cuda_nvcc.sh)")"
    mkdir -p "$carry/nvidia"
    for file in libcudart.so chevron; do objcopy --strip-debug "target/release/$file" "$carry/$file"; done
    for program in "${programs[@]}"; do cp "target/fidelity/$program" "$carry/"; done
    cp "$toolkit/lib/libcudart.so.13" "$carry/nvidia/"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
export CHEVRON_CUDART="$carry/libcudart.so"
status=0
printf '%-26s %-10s %-10s %s\n' program nvidia chevron verdict
for program in "${programs[@]}"; do
    LD_LIBRARY_PATH="$carry/nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$carry/$program" \
        >"$OUT/$program.nvidia" 2>&1 && n=ok || n="rc=$?"
    "$carry/chevron" exec --device cuda "$carry/$program" >"$OUT/$program.chevron" 2>&1 \
        && c=ok || c="rc=$?"
    verdict=same
    diff -u "$OUT/$program.nvidia" "$OUT/$program.chevron" >"$OUT/$program.diff" \
        || { verdict="differ ($OUT/$program.diff)"; status=1; }
    if [[ $program == collective_probe* ]] \
        && ! diff -q scripts/gpu/probes/collective_probe.h200.txt "$OUT/$program.nvidia" >/dev/null; then
        verdict="$verdict; hardware differs from the H200 record"
        status=1
    fi
    printf '%-26s %-10s %-10s %s\n' "$program" "$n" "$c" "$verdict"
done
echo "logs in $OUT"
exit $status
