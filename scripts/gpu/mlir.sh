#!/usr/bin/env bash
# The MLIR programs of tests/mlir/ against chevron (libchevron.so, chevron-capi) on the CUDA
# device of a GPU machine. The GPU machine has no clang-22, so the programs are linked here:
#
#   scripts/gpu/mlir.sh prepare     (on a machine with clang-22; scripts/deps/mlir.sh installs it)
#       builds libchevron.so, compiles tests/mlir/lowered/*.ll and lowered-llvm19/*.ll, and links
#       each program into carry/mlir/ (git-ignored) with tests/mlir/print_memref.c and an rpath
#       of $ORIGIN/lib, where a stripped copy of libchevron.so is put. The memref printer is
#       linked in, so no libmlir_runner_utils is needed. async_execute is left out: MLIR's async
#       runtime (libmlir_async_runtime.so.22.1) needs libLLVM.so.22.1 (150 MB). The C programs
#       of tests/capi/ (chevron's own C API and direct mgpu* calls) are linked in as capi-NAME,
#       and the launch-overhead benchmark tests/capi/bench_launch.c as bench-launch (raw
#       cuLaunchKernel vs chevron_launch vs mgpuLaunchKernel). PROFILE=release links the release
#       build of libchevron (use it for the benchmark's figures).
#   OUT=/some/dir scripts/gpu/mlir.sh run [NAME...]      (on the GPU machine, carrying carry/mlir)
#       runs each program with CHEVRON_DEVICES=cuda (override with CHEVRON_DEVICES=...), checks its
#       stdout against the // CHECK: lines of tests/mlir/NAME.mlir (capi-NAME: its exit status,
#       given tests/capi/kernels.ptx; bench-launch: figures only), writes NAME.stdout/.stderr
#       and summary.txt to $OUT/mlir-chevron, and prints "N passed, N failed".
# cluster_launch needs an sm_90 GPU (chevron launches it with cuLaunchKernelEx and a cluster
# dimension, as upstream); on older GPUs chevron prints that clusters need compute capability 9.0.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/tests/mlir"
carry="$root/carry/mlir"

prepare() {
    set -e
    command -v clang-22 >/dev/null || { echo "mlir.sh prepare: needs clang-22 (scripts/deps/mlir.sh)" >&2; exit 1; }
    local profile="${PROFILE:-debug}"
    if [[ $profile == release ]]; then
        (cd "$root" && cargo build -q --release -p chevron-capi)
    else
        (cd "$root" && cargo build -q -p chevron-capi)
    fi
    rm -rf "$carry"
    mkdir -p "$carry/lib"
    cp "$root/target/$profile/libchevron.so" "$carry/lib/libchevron.so"
    strip --strip-debug "$carry/lib/libchevron.so" 2>/dev/null || true
    local work
    work="$(mktemp -d)"
    clang-22 -O1 -c -fPIC "$here/print_memref.c" -o "$work/print_memref.o"
    local count=0 f name tag
    for f in "$here"/lowered/*.ll "$here"/lowered-llvm19/*.ll; do
        [[ -e $f ]] || continue
        name="$(basename "$f" .ll)"
        [[ $name == async_execute ]] && continue
        tag="$(basename "$(dirname "$f")")"
        tag="${tag#lowered}"
        clang-22 -O2 -c -fPIC -Wno-override-module "$f" -o "$work/$name$tag.o"
        clang-22 "$work/$name$tag.o" "$work/print_memref.o" -L"$carry/lib" -lchevron \
            -Wl,-rpath,'$ORIGIN/lib' -lpthread -o "$carry/$name$tag"
        count=$((count + 1))
    done
    for f in "$root"/tests/capi/*.c; do
        name="$(basename "$f" .c)"
        if [[ $name == bench_launch ]]; then
            cc -std=c11 -O2 -Wall -I"$root/include" -I"$root/tests/capi" "$f" -L"$carry/lib" -lchevron \
                -Wl,-rpath,'$ORIGIN/lib' -ldl -o "$carry/bench-launch"
            continue
        fi
        cc -std=c11 -O1 -Wall -I"$root/include" -I"$root/tests/capi" "$f" -L"$carry/lib" -lchevron \
            -Wl,-rpath,'$ORIGIN/lib' -lm -lpthread -o "$carry/capi-$name"
        count=$((count + 1))
    done
    rm -rf "$work"
    echo "carry/mlir: $count programs and lib/libchevron.so ($(du -sh "$carry" | cut -f1)); carry it"
}

run() {
    local out="${OUT:?set OUT to an output directory}/mlir-chevron"
    mkdir -p "$out"
    local programs=() name exe rc passed=0 failed=0
    if [[ $# -gt 0 ]]; then
        programs=("$@")
    else
        for exe in "$carry"/*; do [[ -f $exe && -x $exe ]] && programs+=("$(basename "$exe")"); done
    fi
    [[ ${#programs[@]} -gt 0 ]] || { echo "mlir.sh run: nothing in carry/mlir (run 'prepare' first)" >&2; exit 1; }
    : >"$out/summary.txt"
    local extra
    for name in "${programs[@]}"; do
        exe="$carry/$name"
        extra=()
        case $name in
            # The CPU device's own limits (registers, frames): scripts/test.d/capi.sh runs it.
            capi-hostile_cpu) echo "$name: not run (it tests the CPU device's limits)" | tee -a "$out/summary.txt"; continue ;;
            capi-trace) extra=("$out/capi-trace.json") ;;
        esac
        # concurrent_kernels hangs unless its two streams run concurrently: hence the timeout.
        CHEVRON_DEVICES="${CHEVRON_DEVICES:-cuda}" CHEVRON_TEST_KERNELS="$root/tests/capi/kernels.ptx" \
            timeout 120 "$exe" "$root/tests/capi/kernels.ptx" "${extra[@]}" >"$out/$name.stdout" 2>"$out/$name.stderr"
        rc=$?
        if [[ $name == bench-* ]]; then
            echo "$name: $([[ $rc == 0 ]] && echo done || echo "FAIL (exit $rc)")" | tee -a "$out/summary.txt"
            sed 's/^/    /' "$out/$name.stdout" | tee -a "$out/summary.txt"
            [[ $rc == 0 ]] && passed=$((passed + 1)) || failed=$((failed + 1))
            continue
        fi
        if [[ $name == capi-* ]]; then
            if [[ $rc == 0 ]]; then
                echo "$name: ok" | tee -a "$out/summary.txt"
                passed=$((passed + 1))
            else
                echo "$name: FAIL (exit $rc)" | tee -a "$out/summary.txt"
                tail -n 5 "$out/$name.stdout" "$out/$name.stderr" | sed 's/^/    /' | tee -a "$out/summary.txt"
                failed=$((failed + 1))
            fi
            continue
        fi
        if [[ $rc == 0 ]] && python3 "$here/check_output.py" "$here/${name%-llvm19}.mlir" \
            "$out/$name.stdout" >/dev/null 2>>"$out/$name.stderr"; then
            echo "$name: ok$([[ -s $out/$name.stderr ]] && echo ' (stderr not empty)')" | tee -a "$out/summary.txt"
            passed=$((passed + 1))
        else
            echo "$name: FAIL (exit $rc)" | tee -a "$out/summary.txt"
            sed 's/^/    /' "$out/$name.stderr" | head -5 | tee -a "$out/summary.txt"
            failed=$((failed + 1))
        fi
    done
    echo "mlir-chevron: $passed passed, $failed failed" | tee -a "$out/summary.txt"
    [[ $failed == 0 ]]
}

case "${1:-}" in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,27s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
