#!/usr/bin/env bash
# On a GPU machine: the launch cost of cuLaunchKernel through chevron's CUDA driver library
# against NVIDIA's driver called directly. The same binary (tests/driver/launch_bench.c: bursts
# of 256 launches of an empty kernel, warm-up, the median enqueue time per launch) runs
# alternately under NVIDIA's libcuda.so.1 and under `chevron exec --device cuda` (chevron's
# library in front of NVIDIA's), ROUNDS times each (default 5); prints both medians of the
# rounds and their ratio (the goal: at most 1.03). DEVICE=cpu checks the script on no GPU.
#
# Prepare on the development machine (release libraries, stripped, and the program, copied to
# carry/driver-bench/):
#   scripts/gpu/driver-launch-bench.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/driver-launch-bench.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/driver-bench"

if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/driver.sh
    cargo build -q --release -p chevron-driver -p chevron-libcuda -p chevron-cli
    mkdir -p "$carry"
    for file in libchevron_driver.so libcuda.so chevron; do
        objcopy --strip-debug "target/release/$file" "$carry/$file"
    done
    cp target/driver/launch_bench "$carry/"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
rounds="${ROUNDS:-5}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
export CHEVRON_CUDART="$carry/libchevron_driver.so" CHEVRON_LIBCUDA="$carry/libcuda.so"
median_of() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
measure() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "launch_bench failed: $*" >&2; exit 1; }
    [[ "$(tail -n1 "$log")" == "launch_bench: ok" ]] || { cat "$log" >&2; exit 1; }
    awk '/median/ { print $3 }' "$log"
}
: >"$OUT/nvidia.txt"
: >"$OUT/chevron.txt"
for ((r = 0; r < rounds; r++)); do
    measure "$OUT/nvidia.$r.log" "$carry/launch_bench" >>"$OUT/nvidia.txt"
    measure "$OUT/chevron.$r.log" "$carry/chevron" exec --device "${DEVICE:-cuda}" "$carry/launch_bench" \
        >>"$OUT/chevron.txt"
done
nvidia="$(median_of <"$OUT/nvidia.txt")"
chevron="$(median_of <"$OUT/chevron.txt")"
printf '%-28s %10s\n' "cuLaunchKernel enqueue" "ns/launch"
printf '%-28s %10.1f\n' "NVIDIA's libcuda.so.1" "$nvidia" "chevron's (in front of it)" "$chevron"
awk -v n="$nvidia" -v c="$chevron" 'BEGIN { printf "ratio chevron/NVIDIA: %.3f (goal <= 1.03)\n", c / n }'
