#!/usr/bin/env bash
# Launch overhead of the C ABIs on a GPU machine: chevron_launch and mgpuLaunchKernel (with the
# mgpuModuleGetFunction call MLIR emits before each launch) against raw cuLaunchKernel, measured
# in one process with interleaved bursts (tests/capi/bench_launch.c); prints ns per launch and
# the ratios to raw; then the median ratios over the runs. The target is <= 1.03 for both
# chevron_launch/raw and mgpu/raw (exit status 1 when one is missed).
#
#   scripts/gpu/bench_capi.sh prepare      (on the development machine; needs cargo and cc)
#       builds the release libchevron.so and links tests/capi/bench_launch.c into carry/capi/
#       (git-ignored) with an rpath of $ORIGIN/lib, next to a copy of tests/capi/kernels.ptx.
#   scripts/gpu/bench_capi.sh run [BURSTS]  (on the GPU machine, carrying carry/capi)
#       runs it on cuda:0 (override with CHEVRON_DEVICES=...) RUNS times (default 5), default
#       400 bursts.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
carry="$root/carry/capi"

prepare() {
    (cd "$root" && cargo build -q --release -p chevron-capi)
    rm -rf "$carry"
    mkdir -p "$carry/lib"
    cp "$root/target/release/libchevron.so" "$carry/lib/libchevron.so"
    strip --strip-debug "$carry/lib/libchevron.so" 2>/dev/null || true
    cp "$root/tests/capi/kernels.ptx" "$carry/kernels.ptx"
    "${CC:-cc}" -std=c11 -O2 -Wall -Wextra -Werror -I"$root/include" -I"$root/tests/capi" \
        "$root/tests/capi/bench_launch.c" -L"$carry/lib" -lchevron -Wl,-rpath,'$ORIGIN/lib' -ldl \
        -o "$carry/bench_launch"
    echo "prepared $carry (carry it to the GPU machine, then: $0 run)"
}

run() {
    [[ -x $carry/bench_launch ]] || { echo "no $carry/bench_launch: run '$0 prepare' first" >&2; exit 2; }
    local bursts="${1:-400}" round out
    out=$(mktemp)
    for round in $(seq "${RUNS:-5}"); do
        echo "round $round"
        CHEVRON_DEVICES="${CHEVRON_DEVICES:-cuda:0}" "$carry/bench_launch" "$carry/kernels.ptx" "$bursts" \
            | tee -a "$out"
    done
    echo "medians over the rounds"
    local status=0
    python3 "$root/scripts/gpu/median_ratios.py" capi <"$out" || status=$?
    rm -f "$out"
    return "$status"
}

case "${1:-}" in
    prepare) prepare ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 prepare | run [BURSTS]" >&2; exit 2 ;;
esac
