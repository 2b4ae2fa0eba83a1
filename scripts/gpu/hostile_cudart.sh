#!/usr/bin/env bash
# On a GPU machine: the hostile CUDA runtime cases of tests/cudart/hostile_cudart.cu and the
# Thrust program built at nvcc's default architecture (tests/cudart/thrust_default_arch.cu),
# each under NVIDIA's runtime and under chevron's (`chevron exec --device cuda`), printing a
# table of the final lines ("CASE: ok" expected from both) and the error names each printed.
# The peer case needs two GPUs and is skipped on one.
#
# Prepare on the development machine (builds release chevron and the programs, copies them to
# carry/hostile_cudart/ with NVIDIA's libcudart.so.13):
#   scripts/gpu/hostile_cudart.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/hostile_cudart.sh        # writes its logs to $OUT (default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/hostile_cudart"
cases=(copy-unmapped host-register pitch null-args null-outputs cooperative peer reset
    freed-pointer capture properties textures flags)

if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/hostile-cudart.sh
    cargo build -q --release -p chevron-cudart -p chevron-cli
    toolkit="$(dirname "$(scripts/deps/cuda_nvcc.sh)")"
    mkdir -p "$carry/nvidia"
    for file in libcudart.so chevron; do objcopy --strip-debug "target/release/$file" "$carry/$file"; done
    cp target/cudart/hostile_cudart target/cudart/thrust_default_arch "$carry/"
    cp "$toolkit/lib/libcudart.so.13" "$carry/nvidia/"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
gpus="$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)"
export CHEVRON_CUDART="$carry/libcudart.so"
nvidia() { LD_LIBRARY_PATH="$carry/nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 "$@"; }
chevron() { timeout 120 "$carry/chevron" exec --device cuda "$@"; }
status=0

# row LABEL PROGRAM ARGS...: runs under both runtimes (120 s each; no address-space cap, which
# the CUDA driver's address reservations would exceed) and prints one table row; chevron's run
# must end with "ok".
row() {
    local label=$1
    shift
    nvidia "$@" >"$OUT/$label.nvidia" 2>&1 || true
    chevron "$@" >"$OUT/$label.chevron" 2>&1 || true
    local theirs ours
    theirs="$(tail -n1 "$OUT/$label.nvidia")"
    ours="$(tail -n1 "$OUT/$label.chevron")"
    printf '| %-20s | %-32s | %-32s |\n' "$label" "${theirs:0:32}" "${ours:0:32}"
    [[ $ours == *": ok" ]] || status=1
    # The CUDA error names each runtime printed, for comparison.
    diff <(grep -o 'cuda[A-Za-z]*' "$OUT/$label.nvidia" | grep -E '^cuda(Success|Error)' | sort | uniq -c) \
        <(grep -o 'cuda[A-Za-z]*' "$OUT/$label.chevron" | grep -E '^cuda(Success|Error)' | sort | uniq -c) \
        >"$OUT/$label.names.diff" || echo "|   error names differ: see $OUT/$label.names.diff"
}
printf '| %-20s | %-32s | %-32s |\n' case "NVIDIA's runtime" "chevron"
for name in "${cases[@]}"; do
    if [[ $name == peer && $gpus -lt 2 ]]; then
        printf '| %-20s | %-32s | %-32s |\n' peer "skipped (one GPU)" ""
        continue
    fi
    row "$name" "$carry/hostile_cudart" "$name"
done
row thrust_default_arch "$carry/thrust_default_arch"
grep -h "ptxVersion" "$OUT"/thrust_default_arch.* || true
echo "logs in $OUT"
exit $status
