#!/usr/bin/env bash
# The C API (include/chevron.h) from C, on the CPU device: builds libchevron (chevron-capi) and
# the programs of tests/capi/ with the system C compiler, links them against the shared library
# (and the docs example also against the static one), and runs them with CHEVRON_DEVICES=cpu.
# mgpu.c calls the MLIR mgpu* ABI directly (edge cases and error reports); lifetime.c uses the
# API in a constructor, from several threads and in a destructor at exit.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cargo build -q -p chevron-capi
lib="$root/target/debug"
out="$root/target/capi"
mkdir -p "$out"
CC="${CC:-cc}"
flags=(-std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/capi)
kernels=tests/capi/kernels.ptx
passed=0
export CHEVRON_TEST_KERNELS="$root/$kernels"
for program in example launch misuse mgpu lifetime graph; do
    "$CC" "${flags[@]}" "tests/capi/$program.c" -L"$lib" -lchevron -Wl,-rpath,"$lib" -lm -lpthread \
        -o "$out/$program"
    CHEVRON_DEVICES=cpu "$out/$program" "$kernels" >"$out/$program.stdout"
    echo "$program: ok ($(tail -n1 "$out/$program.stdout"))"
    passed=$((passed + 1))
done
# The static library: the same example, with the system libraries Rust's std needs.
"$CC" "${flags[@]}" tests/capi/example.c "$lib/libchevron.a" -lpthread -ldl -lm -o "$out/example-static"
CHEVRON_DEVICES=cpu "$out/example-static" "$kernels" >"$out/example-static.stdout"
echo "example-static: ok ($(tail -n1 "$out/example-static.stdout"))"
passed=$((passed + 1))
# The launch-overhead benchmark builds and runs (a few bursts; its figures are not checked).
"$CC" "${flags[@]}" -O2 tests/capi/bench_launch.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -ldl -o "$out/bench_launch"
CHEVRON_DEVICES=cpu "$out/bench_launch" "$kernels" 3 >"$out/bench_launch.stdout"
echo "bench_launch: ok (runs)"
passed=$((passed + 1))
echo "capi: $passed passed, 0 failed"
