#!/usr/bin/env bash
# Programs built with nvcc's defaults (NVIDIA's runtime linked in statically) on a GPU: each
# program of tests/static/ (among them -rdc=true and CMake builds) run natively (NVIDIA's runtime on NVIDIA's driver) and under
# `chevron exec --device cuda` (the same runtime on chevron's driver library), stdout diffed;
# then tests/cudart/launch_bench.cu, built the same way, for the <<<>>> enqueue cost (bursts of
# 256, medians; native and chevron runs alternated, the median of each side taken), with the
# ratio chevron/native (target <= 1.05). Prints a table and `static-runtime: N passed, N failed`.
# Here (cargo and nvcc present):
#   scripts/gpu/static-runtime.sh --prepare     # writes carry/static/
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/static-runtime.sh               # logs under $OUT (default: a temporary folder)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/static"
# NAME_cmake: built by CMake with its defaults (tests/static/CMakeLists.txt).
programs=(vector_add streams_events symbols_2d host_threads templates thrust_cub fault rdc
    launch_config copies_3d graphs_pools runtime_misc textures vector_add_cmake rdc_cmake)

if [[ ${1:-} == --prepare ]]; then
    set -e
    scripts/test.d/static-runtime.sh
    cargo build -q --release -p chevron-driver -p chevron-libcuda -p chevron-cli
    bin="$(scripts/deps/cuda_nvcc.sh)"
    mkdir -p "$carry"
    for file in libchevron_driver.so libcuda.so chevron; do
        objcopy --strip-debug "target/release/$file" "$carry/$file"
    done
    for name in "${programs[@]}"; do
        built="target/static-runtime/$name-static"
        [[ $name == *_cmake ]] && built="target/static-runtime/cmake/$name"
        strip -o "$carry/$name" "$built"
    done
    nice "$bin/nvcc" -O2 -o "$carry/launch_bench" tests/cudart/launch_bench.cu
    strip "$carry/launch_bench"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
export CHEVRON_CUDART="$carry/libchevron_driver.so" CHEVRON_LIBCUDA="$carry/libcuda.so"
chevron() { "$carry/chevron" exec --device cuda "$@"; }
passed=0
failed=0
printf "%-16s %8s %8s  %s\n" program native chevron result | tee "$OUT/table.txt"
for name in "${programs[@]}"; do
    timeout 300 "$carry/$name" >"$OUT/$name.native.out" 2>"$OUT/$name.native.err"
    native=$?
    timeout 300 "$carry/chevron" exec --device cuda "$carry/$name" >"$OUT/$name.chevron.out" 2>"$OUT/$name.chevron.err"
    mine=$?
    if [[ $native == "$mine" ]] && diff -q "$OUT/$name.native.out" "$OUT/$name.chevron.out" >/dev/null; then
        result="same output"
        [[ $name == fault ]] && ! grep -q "scatter_out_of_bounds" "$OUT/$name.chevron.err" \
            && result="FAILED: chevron's report does not name the kernel"
    else
        result="FAILED: output differs ($OUT/$name.*)"
    fi
    [[ $result == FAILED* ]] && failed=$((failed + 1)) || passed=$((passed + 1))
    printf "%-16s %8s %8s  %s\n" "$name" "$native" "$mine" "$result" | tee -a "$OUT/table.txt"
done

# Enqueue cost: 5 alternating rounds of launch_bench 30 (30 bursts of 256 each).
for round in 1 2 3 4 5; do
    "$carry/launch_bench" 30 | sed -n 's/^enqueue 4-argument kernel: \([0-9.]*\) us$/\1/p' >>"$OUT/native.us"
    chevron "$carry/launch_bench" 30 | sed -n 's/^enqueue 4-argument kernel: \([0-9.]*\) us$/\1/p' >>"$OUT/chevron.us"
done
median() { sort -g "$1" | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
native_us="$(median "$OUT/native.us")"
chevron_us="$(median "$OUT/chevron.us")"
ratio="$(awk -v a="$chevron_us" -v b="$native_us" 'BEGIN {printf "%.3f", a / b}')"
echo "<<<>>> enqueue (4 arguments, median of 5 runs of 30 bursts of 256): native ${native_us} us, chevron ${chevron_us} us, ratio ${ratio} (target <= 1.05)" \
    | tee -a "$OUT/table.txt"
echo "static-runtime: $passed passed, $failed failed" | tee -a "$OUT/table.txt"
[[ $failed == 0 ]]
