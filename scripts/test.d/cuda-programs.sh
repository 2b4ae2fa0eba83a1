#!/usr/bin/env bash
# The CUDA programs of tests/cudart/perf_*.cu (scan, Black-Scholes, Thrust and CUB sorts built at
# nvcc's default architecture, a cooperative grid-sync reduction, many small kernels on
# streams, transpose, histogram with atomics, shuffle reduction) at small problem sizes under
# `chevron exec --device cpu`, each checked against its host reference ("perf_NAME: ok").
# Their timings at full size are scripts/bench-cuda-programs.sh's, not this test's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/build-workspace -q
dir="$(scripts/build-cuda-programs)"
chevron="$root/target/debug/chevron"
log="$dir/test.log"
passed=0
# check NAME ARGS...: runs perf_NAME with ARGS, which must end with "perf_NAME: ok".
check() {
    local name=$1
    shift
    if ! "$chevron" exec --device cpu "$dir/perf_$name" "$@" >"$log" 2>&1 \
        || [[ "$(tail -n1 "$log")" != "perf_$name: ok" ]]; then
        echo "cuda-programs: perf_$name $* failed:" >&2
        cat "$log" >&2
        exit 1
    fi
    echo "perf_$name: ok ($(head -n1 "$log"))"
    passed=$((passed + 1))
}
check scan 300001 2
check black_scholes 100000 2
check sort_thrust 100000
check sort_cub 100000
check grid_reduce 300001 2
check streams 200
check transpose 300 2
check histogram 1000003
check reduce 300001 2
[[ $passed == "$(ls tests/cudart/perf_*.cu | wc -l)" ]] \
    || { echo "cuda-programs: a perf_*.cu program is not checked here" >&2; exit 1; }
echo "cuda-programs: $passed programs passed, 0 failed"
