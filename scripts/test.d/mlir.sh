#!/usr/bin/env bash
# MLIR programs against chevron's mgpu* ABI on the CPU device: compiles the committed LLVM IR
# (tests/mlir/lowered/*.ll, LLVM 22: modules loaded in global constructors; and
# tests/mlir/lowered-llvm19/*.ll: a module load and unload around every launch) with clang-22,
# links each program against libchevron.so (chevron-capi) and tests/mlir/print_memref.c, runs it
# with CHEVRON_DEVICES=cpu and checks its stdout against the // CHECK: lines of its .mlir file.
# Installs clang-22 (and libmlir-22 for async_execute's async runtime) when missing.
# Usage: scripts/test.d/mlir.sh [NAME...]     Prints "mlir: N passed, N failed, N skipped".
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/tests/mlir"
out="$root/target/mlir-capi"
async_runtime=/usr/lib/llvm-22/lib/libmlir_async_runtime.so.22.1

# Not runnable on the CPU device, with the reason.
declare -A skip=(
    [cubin_format]="its module is an sm_80 cubin without PTX; the CPU device runs PTX"
)
# Programs run with automatic graph replay on, which must replay (the exit report says so).
declare -A auto_graph=(
    [auto_graph_loop]="an scf.for of launches on a stream made and destroyed every iteration"
)
# Programs whose own (LLVM-generated) calls are errors upstream too: errors are printed, not fatal.
declare -A tolerate_errors=(
    [token_fanout]="synchronizes and destroys an already destroyed stream (LLVM's gpu.wait lowering)"
)

if ! command -v clang-22 >/dev/null || [[ ! -e $async_runtime ]]; then
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    if ! apt-cache policy clang-22 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        $sudo apt-get update -qq >&2
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        clang-22 libmlir-22 >&2 || echo "mlir.sh: could not install clang-22/libmlir-22" >&2
fi
command -v clang-22 >/dev/null || { echo "mlir.sh: clang-22 is required" >&2; exit 1; }

"$root/scripts/build-workspace" -q || exit 1   # libchevron (chevron-capi) among the rest
lib="$root/target/debug"
mkdir -p "$out"
clang-22 -O1 -c -fPIC "$here/print_memref.c" -o "$out/print_memref.o" || exit 1

programs=()
if [[ $# -gt 0 ]]; then
    for name in "$@"; do programs+=("lowered/$name"); done
else
    for f in "$here"/lowered/*.ll "$here"/lowered-llvm19/*.ll; do
        [[ -e $f ]] && programs+=("$(basename "$(dirname "$f")")/$(basename "$f" .ll)")
    done
fi

passed=0
failed=0
skipped=0
for program in "${programs[@]}"; do
    name="$(basename "$program")"
    tag="${program%%/*}"
    label="$name"
    [[ $tag == lowered ]] || label="$name (${tag#lowered-})"
    if [[ -n ${skip[$name]:-} ]]; then
        echo "$label: skipped (${skip[$name]})"
        skipped=$((skipped + 1))
        continue
    fi
    exe="$out/$tag-$name"
    extra=()
    if [[ $name == async_execute ]]; then
        if [[ ! -e $async_runtime ]]; then
            echo "$label: skipped ($async_runtime missing)"
            skipped=$((skipped + 1))
            continue
        fi
        extra=("$async_runtime" "-Wl,-rpath,$(dirname "$async_runtime")")
    fi
    if ! clang-22 -O2 -c -fPIC -Wno-override-module "$here/$program.ll" -o "$exe.o" ||
        ! clang-22 "$exe.o" "$out/print_memref.o" -L"$lib" -lchevron -Wl,-rpath,"$lib" \
            "${extra[@]}" -lpthread -o "$exe"; then
        echo "$label: FAIL (build)"
        failed=$((failed + 1))
        continue
    fi
    abort=1
    [[ -n ${tolerate_errors[$name]:-} ]] && abort=0
    # concurrent_kernels hangs unless its two streams run concurrently: hence the timeout.
    replay=0
    [[ -n ${auto_graph[$name]:-} ]] && replay=report
    CHEVRON_DEVICES=cpu CHEVRON_ABORT_ON_ERROR=$abort CHEVRON_AUTO_GRAPH=$replay timeout 120 "$exe" \
        >"$exe.stdout" 2>"$exe.stderr"
    rc=$?
    if [[ $rc == 0 && $replay == report ]] \
        && ! grep -Eq "automatic graph replay: [1-9][0-9]* instantiation\(s\), [1-9][0-9]* replays" \
            "$exe.stderr"; then
        echo "$label: no automatic replay" >>"$exe.stderr"
        rc=1
    fi
    if [[ $rc == 0 ]] && python3 "$here/check_output.py" "$here/$name.mlir" "$exe.stdout" \
        >/dev/null 2>>"$exe.stderr"; then
        echo "$label: ok"
        passed=$((passed + 1))
    else
        echo "$label: FAIL (exit $rc)"
        sed 's/^/    /' "$exe.stderr" | head -20
        failed=$((failed + 1))
    fi
done
# LD_PRELOAD: a program linked against another mgpu* library (the tracing stub, built as a
# shared object) runs on chevron when libchevron.so is preloaded.
if [[ $# -eq 0 ]]; then
    clang-22 -O1 -shared -fPIC "$here/mgpu_stub.c" -o "$out/libmgpu_stub.so"
    exe="$out/preload-join_streams"
    if clang-22 "$out/lowered-join_streams.o" "$out/print_memref.o" -L"$out" -lmgpu_stub \
        -Wl,-rpath,"$out" -lpthread -o "$exe" &&
        LD_PRELOAD="$lib/libchevron.so" CHEVRON_DEVICES=cpu CHEVRON_ABORT_ON_ERROR=1 \
            MGPU_STUB_TRACE=/dev/null timeout 120 "$exe" >"$exe.stdout" 2>"$exe.stderr" &&
        python3 "$here/check_output.py" "$here/join_streams.mlir" "$exe.stdout" >/dev/null; then
        echo "join_streams (LD_PRELOAD over another mgpu library): ok"
        passed=$((passed + 1))
    else
        echo "join_streams (LD_PRELOAD over another mgpu library): FAIL"
        failed=$((failed + 1))
    fi
fi
echo "mlir: $passed passed, $failed failed, $skipped skipped"
[[ $failed == 0 ]]
