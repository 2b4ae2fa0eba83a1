#!/usr/bin/env bash
# Builds and runs the lowered MLIR programs (tests/mlir/asm/NAME.s) with nothing but a C
# compiler, against either the tracing stub or a real mgpu* library:
#   tests/mlir/run_programs.sh --stub [NAME...]
#       links tests/mlir/mgpu_stub.c; writes the call traces to tests/mlir/traces/NAME.trace
#       (or to $TRACE_DIR); no kernel runs, so the printed values are not checked.
#   tests/mlir/run_programs.sh --lib /path/to/libmgpu.so [NAME...]
#       links that library (e.g. chevron-capi's cdylib, or tests/mlir/mgpu_cuda.c built as a
#       shared object), runs each program and checks its output against its // CHECK: lines.
# The memref printer is tests/mlir/print_memref.c (same output as MLIR's runner utils).
# async_execute also needs MLIR's async runtime (Debian libmlir-22: libmlir_async_runtime.so.22.1);
# it is skipped when that is missing. LLVM_VERSION=19 uses asm-llvm19/ and traces-llvm19/.
# Environment: CC (default cc), OUT_DIR for the binaries (default target/mlir[-llvm19]).
# Prints one line per program and a closing "mlir: N passed, N failed, N skipped" line.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${LLVM_VERSION:-22}"
suffix=""
[[ $version == 22 ]] || suffix="-llvm$version"
asm="$here/asm$suffix"
out="${OUT_DIR:-$root/target/mlir$suffix}"
traces="${TRACE_DIR:-$here/traces$suffix}"
CC="${CC:-cc}"
async_runtime="/usr/lib/llvm-22/lib/libmlir_async_runtime.so.22.1"

mode="${1:-}"
shift || true
case "$mode" in
--stub) lib=() ;;
--lib)
    [[ $# -gt 0 && -e "$1" ]] || { echo "run_programs.sh: --lib needs an existing library" >&2; exit 2; }
    libpath="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
    lib=("$libpath" "-Wl,-rpath,$(dirname "$libpath")")
    shift
    ;;
*) sed -n '2,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
mkdir -p "$out"
[[ $mode == --stub ]] && mkdir -p "$traces"
$CC -O1 -c -fPIC "$here/print_memref.c" -o "$out/print_memref.o" || exit 1
[[ $mode == --stub ]] && { $CC -O1 -c -fPIC "$here/mgpu_stub.c" -o "$out/mgpu_stub.o" || exit 1; lib=("$out/mgpu_stub.o"); }

if [[ $# -gt 0 ]]; then
    programs=("$@")
else
    programs=()
    for f in "$asm"/*.s; do programs+=("$(basename "$f" .s)"); done
fi

passed=0
failed=0
skipped=0
for name in "${programs[@]}"; do
    extra=()
    if [[ $name == async_execute ]]; then
        if [[ ! -e $async_runtime ]]; then
            echo "$name: skipped ($async_runtime missing)"
            skipped=$((skipped + 1))
            continue
        fi
        extra=("$async_runtime" "-Wl,-rpath,$(dirname "$async_runtime")")
    fi
    if ! $CC "$asm/$name.s" "$out/print_memref.o" "${lib[@]}" "${extra[@]}" -lpthread \
        -o "$out/$name"; then
        echo "$name: FAIL (build)"
        failed=$((failed + 1))
        continue
    fi
    if [[ $mode == --stub ]]; then
        if MGPU_STUB_TRACE="$traces/$name.trace" timeout 60 "$out/$name" >"$out/$name.stdout"; then
            echo "$name: traced, $(wc -l <"$traces/$name.trace") calls"
            passed=$((passed + 1))
        else
            echo "$name: FAIL (exit $?)"
            failed=$((failed + 1))
        fi
        continue
    fi
    # concurrent_kernels hangs unless its two streams run concurrently: hence the timeout.
    timeout 60 "$out/$name" >"$out/$name.stdout" 2>"$out/$name.stderr"
    rc=$?
    if [[ $rc == 0 ]] && python3 "$here/check_output.py" "$here/$name.mlir" "$out/$name.stdout" \
        >/dev/null 2>>"$out/$name.stderr"; then
        echo "$name: ok"
        passed=$((passed + 1))
    else
        echo "$name: FAIL (exit $rc; see $out/$name.stdout and .stderr)"
        failed=$((failed + 1))
    fi
done
echo "mlir: $passed passed, $failed failed, $skipped skipped"
[[ $failed == 0 ]]
