#!/usr/bin/env bash
# On a GPU machine (nvcc present, no cargo): every CUDA program of tests/cudart/compare.list built
# with nvcc (-cudart shared; at nvcc's default architecture and with -arch=sm_90), run under
# NVIDIA's runtime and under chevron's (`chevron exec`, the GPU), stdout compared line for line,
# wall times side by side. Prints a table and `compare: N passed, N failed`.
#
# Carried from the development machine: CHEVRON_BIN (default carry/gpu/chevron) with chevron's
# libcudart.so (and libcuda.so.1 where built) next to it. A list line is
#   NAME | SOURCES | ARGS | FLAGS
# (sources relative to the repository; ARGS and FLAGS optional; an -arch= in FLAGS replaces the
# sm_90 row's -arch=sm_90, e.g. -arch=sm_90a for wgmma). Wall times are of one run each; a
# ratio above 1.1 is timed RETIME (default 6) more times, alternating, and each side's fastest
# run shown (the least disturbed by other work on the machine: a program's own cost does not
# vary between runs, interference only adds), with the ratio of the medians beside it. Lines of output
# that vary from run to run (timings) are dropped before comparing when they match
# COMPARE_IGNORE (a regex).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
chevron="${CHEVRON_BIN:-$root/carry/gpu/chevron}"
list="${1:-tests/cudart/compare.list}"
OUT="${OUT:-$(mktemp -d)}"
ignore="${COMPARE_IGNORE:-([0-9.]+ ?(ms|us|µs|s|GB/s|GFLOP/s|TOPS|ops/s)\b|[Tt]ime|elapsed|[Bb]andwidth|Throughput)}"
build="$OUT/build"
mkdir -p "$build"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
passed=0
failed=0
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
fastest() { printf '%s\n' "$@" | sort -g | head -1; }
# Every build first, in parallel (nvcc is most of the time), then the runs one at a time.
build_one() {
    local name=$1 sources=$2 flags=$3 arch=$4 archflag=""
    [[ $arch == sm_90 && $flags != *-arch=* ]] && archflag="-arch=sm_90"
    # shellcheck disable=SC2086 # word lists
    nvcc -cudart shared $archflag $flags -o "$build/$name-$arch" $sources >"$build/$name-$arch.build.log" 2>&1 \
        || rm -f "$build/$name-$arch"
}
jobs_max="${JOBS:-$(nproc)}"
while IFS='|' read -r name sources args flags; do
    name="$(echo "$name" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
    [[ -z $name || $name == \#* ]] && continue
    for arch in default sm_90; do
        build_one "$name" "$sources" "$flags" "$arch" &
        while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
    done
done <"$list"
wait
printf "%-28s %-8s %10s %10s %7s  %s\n" program arch nvidia_s chevron_s ratio result | tee "$OUT/table.txt"
while IFS='|' read -r name sources args flags; do
    name="$(echo "$name" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
    [[ -z $name || $name == \#* ]] && continue
    for arch in default sm_90; do
        exe="$build/$name-$arch"
        if [[ ! -x $exe ]]; then
            printf "%-28s %-8s %10s %10s %7s  %s\n" "$name" "$arch" - - - "BUILD FAILED ($exe.build.log)" | tee -a "$OUT/table.txt"
            failed=$((failed + 1))
            continue
        fi
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        timeout 300 "$exe" $args >"$exe.nvidia.out" 2>"$exe.nvidia.err"
        native_status=$?
        mid=$(date +%s.%N)
        # shellcheck disable=SC2086
        timeout 300 "$chevron" exec "$exe" $args >"$exe.chevron.out" 2>"$exe.chevron.err"
        chevron_status=$?
        end=$(date +%s.%N)
        read -r native ours ratio < <(awk -v s="$start" -v m="$mid" -v e="$end" \
            'BEGIN { printf "%.3f %.3f %.2f\n", m - s, e - m, (e - m) / (m - s) }')
        # A ratio above 1.1 from one run is timed again, RETIME more alternating runs of each
        # (one run of a short program is mostly process start and the machine's noise).
        retimed=""
        if awk -v r="$ratio" 'BEGIN { exit !(r > 1.1) }'; then
            natives=("$native") mine=("$ours")
            for ((again = 0; again < ${RETIME:-6}; again++)); do
                start=$(date +%s.%N)
                # shellcheck disable=SC2086
                timeout 300 "$exe" $args >/dev/null 2>&1
                mid=$(date +%s.%N)
                # shellcheck disable=SC2086
                timeout 300 "$chevron" exec "$exe" $args >/dev/null 2>&1
                end=$(date +%s.%N)
                natives+=("$(awk -v s="$start" -v m="$mid" 'BEGIN { printf "%.3f", m - s }')")
                mine+=("$(awk -v m="$mid" -v e="$end" 'BEGIN { printf "%.3f", e - m }')")
            done
            retimed="$(awk -v a="$(median "${mine[@]}")" -v b="$(median "${natives[@]}")" \
                'BEGIN { printf ", re-timed x%d: median ratio %.2f", '"${#mine[@]}"', a / b }')"
            native="$(fastest "${natives[@]}")"
            ours="$(fastest "${mine[@]}")"
            ratio="$(awk -v a="$ours" -v b="$native" 'BEGIN { printf "%.2f", a / b }')"
        fi
        if [[ $native_status == "$chevron_status" ]] \
            && diff <(grep -Ev "$ignore" "$exe.nvidia.out") <(grep -Ev "$ignore" "$exe.chevron.out") \
                >"$exe.diff"; then
            result="same (status $native_status)$retimed"
            passed=$((passed + 1))
        else
            result="DIFFERS (status $native_status vs $chevron_status, $exe.diff)$retimed"
            failed=$((failed + 1))
        fi
        printf "%-28s %-8s %10.3f %10.3f %7s  %s\n" "$name" "$arch" "$native" "$ours" "$ratio" "$result" \
            | tee -a "$OUT/table.txt"
    done
done <"$list"
echo "compare: $passed passed, $failed failed" | tee -a "$OUT/table.txt"
