#!/usr/bin/env bash
# Times CUDA programs at their GPU versions' default problem sizes under
# `chevron exec --device cpu` and prints one table: program, wall seconds (median of
# BENCH_RUNS, default 1), whether its result matched the host reference, and its summary line.
# Two sets: tests/cudart/perf_*.cu (scripts/build-cuda-programs: -cudart shared, ending with
# `perf_NAME: ok`), and the sample programs named in tests/samples/full-size.list, built the way
# a user builds them — `nvcc -O3` with nvcc's defaults (the static CUDA runtime, nvcc's default
# architecture; BENCH_ARCH=sm_90 adds -arch=sm_90) plus the folder's `flags`, cached under
# target/bench-samples/ — ending with `NAME: PASS`.
# Not part of scripts/test: its figures are timings (the target is 30 s each on two cores).
# CHEVRON_CPU_THREADS and the other CHEVRON_CPU_* variables pass through; BENCH_PROGRAMS="a b"
# picks perf programs (names without perf_), BENCH_SAMPLES="c d" samples (either set to "none"
# skips its set); BENCH_TIMEOUT (default 300) seconds per run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-workspace -q   # the CLI and the driver library, sharing cargo test's build
chevron=${CHEVRON_BIN:-target/debug/chevron}
runs=${BENCH_RUNS:-1}
programs=${BENCH_PROGRAMS:-$(cd tests/cudart && ls perf_*.cu | sed 's/^perf_//; s/\.cu$//')}
samples=${BENCH_SAMPLES:-$(grep -v '^#' tests/samples/full-size.list | awk '{print $1}')}
[[ $programs == none ]] && programs=""
[[ $samples == none ]] && samples=""
[[ -n $programs ]] && dir="$(scripts/build-cuda-programs)"

# The samples, as users build them; two builds at a time.
arch=${BENCH_ARCH:-default}
sampledir="$PWD/target/bench-samples/$arch"
mkdir -p "$sampledir"
build_sample() {
    local name=$1 src="tests/samples/$1" stale=0 flags=() archflag=()
    [[ -e $sampledir/$name ]] || stale=1
    for f in "$src"/* tests/samples/common/*; do [[ $f -nt $sampledir/$name ]] && stale=1; done
    ((stale)) || return 0
    [[ -e $src/flags ]] && read -ra flags <"$src/flags"
    [[ $arch != default ]] && archflag=(-arch="$arch")
    nice "$nvcc" -O3 "${archflag[@]}" "${flags[@]}" -o "$sampledir/$name.tmp" "$src"/*.cu \
        >"$sampledir/$name.build.log" 2>&1 \
        || { echo "nvcc failed on $name:" >&2; cat "$sampledir/$name.build.log" >&2; return 1; }
    mv "$sampledir/$name.tmp" "$sampledir/$name"
}
if [[ -n $samples ]]; then
    nvcc="$(scripts/deps/cuda_nvcc.sh)/nvcc"
    export -f build_sample
    export sampledir nvcc arch
    printf '%s\n' $samples | xargs -P 2 -I{} bash -c 'build_sample {}'
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), CHEVRON_CPU_THREADS=${CHEVRON_CPU_THREADS:-default}"
printf '| %-22s | %9s | %-6s | %s\n' program seconds result summary
printf '|%s|%s|%s|%s\n' "------------------------" "-----------" "--------" "---------"
# bench NAME EXE LAST: times EXE, whose last line must be LAST.
bench() {
    local name=$1 exe=$2 last=$3 times=() result=ok
    for _ in $(seq "$runs"); do
        start=$(date +%s.%N)
        if timeout "${BENCH_TIMEOUT:-300}" "$chevron" exec --device cpu "$exe" >"$log" 2>&1; then
            [[ "$(tail -n1 "$log")" == "$last" ]] || result=WRONG
        else
            result="rc=$?"
        fi
        times+=("$(echo "$(date +%s.%N) - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    summary="$(grep -vxF "$last" "$log" | tail -n1 | cut -c1-90)"
    printf '| %-22s | %9.2f | %-6s | %s\n' "$name" "$median" "$result" "$summary"
}
for name in $programs; do bench "$name" "$dir/perf_$name" "perf_$name: ok"; done
for name in $samples; do bench "$name" "$sampledir/$name" "$name: PASS"; done
