#!/usr/bin/env bash
# The C API (include/chevron.h) from C, on the CPU device: builds libchevron (chevron-capi) and
# the programs of tests/capi/ with the system C compiler, links them against the shared library
# (and the docs example also against the static one), and runs them with CHEVRON_DEVICES=cpu,
# each under a virtual memory cap (ulimit -v), so that an abort on a huge allocation cannot hide
# as an out-of-memory kill. mgpu.c calls the MLIR mgpu* ABI directly (edge cases, freed and
# stray pointers, error reports); lifetime.c uses the API in a constructor, from several threads
# and in a destructor at exit; leaks.c checks that resident memory stays flat over 200k buffer
# and 200k stream cycles of the C API and 200k stream and event cycles of the MLIR ABI (about
# 20 s of the script's time); hostile_ptx.c loads PTX that declares absurd resources;
# check_findings.c reads racecheck's finding on tests/capi/race.ptx back as a typed record.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/build-workspace -q   # libchevron (chevron-capi), sharing cargo test's build
lib="$root/target/debug"
out="$root/target/capi"
mkdir -p "$out"
CC="${CC:-cc}"
flags=(-std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/capi)
kernels=tests/capi/kernels.ptx
# Virtual memory cap of every test program, in KiB.
memory_cap_kib=$((4 << 20))
passed=0
export CHEVRON_TEST_KERNELS="$root/$kernels"

# Runs a built program of tests/capi/ on the CPU device under the memory cap.
run_capped() {
    (ulimit -v "$memory_cap_kib" && CHEVRON_DEVICES=cpu "$@")
}

# Each entry: a program of tests/capi/ and its arguments after the kernels file.
runs=("example" "launch" "misuse" "mgpu" "lifetime" "graph" "leaks 200000" "hostile_ptx")
for entry in "${runs[@]}"; do
    read -r program arguments <<<"$entry"
    "$CC" "${flags[@]}" "tests/capi/$program.c" -L"$lib" -lchevron -Wl,-rpath,"$lib" -lm -lpthread \
        -o "$out/$program"
    log="$out/${entry// /-}.stdout"
    # shellcheck disable=SC2086 # the arguments are words
    run_capped "$out/$program" "$kernels" $arguments >"$log"
    echo "$entry: ok ($(tail -n1 "$log"))"
    passed=$((passed + 1))
done
# The sanitizer's findings read back through the C API (racecheck on a racing kernel).
"$CC" "${flags[@]}" tests/capi/check_findings.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -o "$out/check_findings"
run_capped "$out/check_findings" tests/capi/race.ptx >"$out/check_findings.stdout"
echo "check_findings: ok ($(tail -n1 "$out/check_findings.stdout"))"
passed=$((passed + 1))
# The static library: the same example, with the system libraries Rust's std needs.
"$CC" "${flags[@]}" tests/capi/example.c "$lib/libchevron.a" -lpthread -ldl -lm -o "$out/example-static"
run_capped "$out/example-static" "$kernels" >"$out/example-static.stdout"
echo "example-static: ok ($(tail -n1 "$out/example-static.stdout"))"
passed=$((passed + 1))
# The launch-overhead benchmark builds and runs (a few bursts; its figures are not checked).
"$CC" "${flags[@]}" -O2 tests/capi/bench_launch.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -ldl -o "$out/bench_launch"
run_capped "$out/bench_launch" "$kernels" 3 >"$out/bench_launch.stdout"
echo "bench_launch: ok (runs)"
passed=$((passed + 1))
echo "capi: $passed passed, 0 failed"
