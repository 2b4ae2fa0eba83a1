#!/usr/bin/env bash
# Traces and instrumentation on the CPU device (docs/tracing.md):
# - `CHEVRON_TRACE=… CHEVRON_INSTRUMENT=blocks chevron run … --grid 4` writes trace-event JSON
#   with the launch (kernel, grid, block, device), 4 thread-block events and the launch as the
#   device ran it; `chevron run --trace` writes one too, with the 4 thread blocks when
#   CHEVRON_INSTRUMENT=blocks is set;
# - a C program (tests/capi/trace.c: chevron_trace_start/stop, two streams and a token
#   dependency) and `chevron trace -- PROGRAM` over the C example and an MLIR program
#   (tests/mlir/lowered/join_streams.ll, built with clang-22) produce traces;
# - `chevron trace -o /dev/full` (or `-o /`) fails on one line; a program that aborts leaves a
#   valid trace; `chevron trace -- CUDA_PROGRAM` (built with nvcc) runs on chevron's runtime;
# - `chevron trace --html` turns a trace into a timeline that headless Chromium renders: the
#   screenshot is not blank and the DOM holds the kernel's name; a 10,000-launch trace draws all
#   its bars, with its render and zoom times printed and its per-kernel summary, and
#   its first 250 µs shown zoomed in (`#view=0,250`); TRACE_SCREENSHOT=FILE.png keeps both
#   screenshots (FILE.png, FILE-zoomed.png), as docs/trace-timeline.png and its -zoomed twin.
# Installs chromium (Debian package) when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/build-workspace -q   # the CLI and libchevron, sharing cargo test's build
chevron="$root/target/debug/chevron"
lib="$root/target/debug"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CHEVRON_DEVICES=cpu
unset CHEVRON_TRACE CHEVRON_INSTRUMENT
check=(python3 "$root/scripts/test.d/trace_check.py")

saxpy=(corpus/nvcc/elementwise.sm_80.ptx saxpy --block 64 --arg f32:2 --arg 'f32[256]=iota'
    --arg 'f32[256]=fill:1' --arg u32:256)
CHEVRON_TRACE="$work/blocks.json" CHEVRON_INSTRUMENT=blocks "$chevron" run "${saxpy[@]}" --grid 4 \
    >/dev/null 2>"$work/blocks.stderr"
grep -q "blocks saxpy: 1 launches, 4 thread blocks" "$work/blocks.stderr"
"${check[@]}" "$work/blocks.json" --launches saxpy=1 --grid 4,1,1 --block 64,1,1 --blocks 4 \
    --device-runs saxpy=1
echo "trace: CHEVRON_TRACE + CHEVRON_INSTRUMENT=blocks: ok"

"$chevron" run "${saxpy[@]}" --grid 4 --trace "$work/run.json" >/dev/null
"${check[@]}" "$work/run.json" --launches saxpy=1 --blocks 0 --device-runs saxpy=1
CHEVRON_INSTRUMENT=blocks "$chevron" run "${saxpy[@]}" --grid 4 --trace "$work/run-blocks.json" \
    >/dev/null 2>"$work/run-blocks.stderr"
"${check[@]}" "$work/run-blocks.json" --launches saxpy=1 --blocks 4 --device-runs saxpy=1
grep -q "blocks saxpy: 1 launches, 4 thread blocks" "$work/run-blocks.stderr"
echo "trace: chevron run --trace (with and without CHEVRON_INSTRUMENT=blocks): ok"

flags=(-std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/capi)
cc "${flags[@]}" tests/capi/trace.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -o "$work/capi-trace"
"$work/capi-trace" tests/capi/kernels.ptx "$work/capi.json" >/dev/null
"${check[@]}" "$work/capi.json" --launches 'saxpy(int, float, float const*, float*)=2' --flows 1 \
    --device-runs 'saxpy(int, float, float const*, float*)=2'
cc "${flags[@]}" tests/capi/example.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -o "$work/example"
"$chevron" trace -o "$work/example.json" --instrument memory -- "$work/example" \
    tests/capi/kernels.ptx >/dev/null 2>"$work/example.stderr"
grep -q "global loads" "$work/example.stderr"
"${check[@]}" "$work/example.json" --launches 'saxpy(int, float, float const*, float*)=1'
echo "trace: C API (chevron_trace_start/stop, chevron trace -- PROGRAM): ok"

# A write error is an error: one line, exit 2, and no "trace written" (the program's own output
# aside). The trace file is written as it is recorded: a program that aborts leaves a valid
# trace of what it did before its last batch (1024 events a thread).
for bad in /dev/full /; do
    rc=0
    "$chevron" trace -o "$bad" -- "$work/example" tests/capi/kernels.ptx >/dev/null \
        2>"$work/bad.stderr" || rc=$?
    [[ $rc == 2 && $(wc -l <"$work/bad.stderr") == 1 ]] \
        && grep -q "^chevron: error: the trace was not written: $bad" "$work/bad.stderr" \
        || { echo "trace: -o $bad: exit $rc, $(cat "$work/bad.stderr")" >&2; exit 1; }
done
cc "${flags[@]}" tests/capi/trace_abort.c -L"$lib" -lchevron -Wl,-rpath,"$lib" -o "$work/abort"
rc=0
(ulimit -c 0; exec "$chevron" trace -o "$work/abort.json" -- "$work/abort" tests/capi/kernels.ptx \
    3000) >/dev/null 2>"$work/abort.stderr" || rc=$?
[[ $rc == 2 ]] && grep -q "up to where the program ended" "$work/abort.stderr" \
    || { echo "trace: aborting program: exit $rc, $(cat "$work/abort.stderr")" >&2; exit 1; }
"${check[@]}" "$work/abort.json" --min-launches 2000
echo "trace: write errors, a program that aborts: ok"

# `chevron trace -- CUDA_PROGRAM` runs it on chevron's runtime, as `chevron exec` does.
nvcc_bin="$(scripts/deps/cuda_nvcc.sh)"
nvlib="$work/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$(dirname "$nvcc_bin")/lib/libcudart.so.13" "$nvlib/libcudart.so"
cat >"$work/launches.cu" <<'CU'
#include <cstdio>
__global__ void bump(int *x) { atomicAdd(x, 1); }
int main() {
    int *x, host = 0;
    cudaMalloc(&x, sizeof(int));
    cudaMemset(x, 0, sizeof(int));
    for (int i = 0; i < 100; i++) bump<<<1, 1>>>(x);
    cudaMemcpy(&host, x, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("%d\n", host);
    return host == 100 ? 0 : 1;
}
CU
nice "$nvcc_bin/nvcc" -cudart shared -arch=sm_90 -L"$nvlib" -o "$work/launches" "$work/launches.cu"
"$chevron" trace -o "$work/cuda.json" -- "$work/launches" >"$work/cuda.out" 2>"$work/cuda.stderr"
grep -qx 100 "$work/cuda.out"
"${check[@]}" "$work/cuda.json" --launches 'bump(int*)=100'
echo "trace: chevron trace -- CUDA program (chevron's runtime preloaded): ok"

command -v clang-22 >/dev/null || { echo "trace.sh: clang-22 is required (mlir.sh installs it)" >&2; exit 1; }
clang-22 -O1 -c -fPIC tests/mlir/print_memref.c -o "$work/print_memref.o"
clang-22 -O2 -c -fPIC -Wno-override-module tests/mlir/lowered/join_streams.ll -o "$work/join.o"
clang-22 "$work/join.o" "$work/print_memref.o" -L"$lib" -lchevron -Wl,-rpath,"$lib" -lpthread \
    -o "$work/join_streams"
"$chevron" trace -o "$work/mlir.json" --instrument counts -- "$work/join_streams" \
    >/dev/null 2>"$work/mlir.stderr"
grep -q "instructions executed" "$work/mlir.stderr"
"${check[@]}" "$work/mlir.json" --min-launches 1 --flows 1
echo "trace: MLIR program (chevron trace --instrument counts): ok"

"$chevron" trace --html "$work/blocks.json" -o "$work/blocks.html" 2>/dev/null
if ! command -v chromium >/dev/null; then
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2 || {
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
    }
fi
browser=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --user-data-dir="$(mktemp -d -p "$work")")
"${browser[@]}" --window-size=1400,700 --screenshot="$work/blocks.png" "file://$work/blocks.html" \
    >/dev/null 2>&1
"${browser[@]}" --dump-dom "file://$work/blocks.html" 2>/dev/null >"$work/blocks.dom"
grep -q '<td class="kernel">saxpy</td>' "$work/blocks.dom"
grep -q 'block (3, 0, 0)' "$work/blocks.dom"
"${check[@]}" --png "$work/blocks.png"
echo "trace: HTML timeline in headless Chromium: ok"

# 10,000 launches: the page draws every bar, and its self-test (#selftest) times the first draw
# and a zoom step (printed, not judged: this is no benchmark).
(cd crates/chevron && ../../target/debug/examples/trace-memory 10000 "$work/t10k.json" >/dev/null)
"$chevron" trace --html "$work/t10k.json" -o "$work/t10k.html" 2>/dev/null
"${browser[@]}" --virtual-time-budget=10000 --dump-dom "file://$work/t10k.html#selftest" 2>/dev/null \
    >"$work/t10k.dom"
timing="$(grep -o 'bars=[0-9]* render_ms=[0-9.]* page_ms=[0-9.]* zoom_step_ms=[0-9.]*' "$work/t10k.dom")" \
    || { echo "trace: the 10,000-launch timeline did not draw" >&2; exit 1; }
[[ ${timing#bars=} == 3000[0-9]* ]] || { echo "trace: 10,000 launches drew $timing" >&2; exit 1; }
grep -q '<td class="summary-kernel">empty</td><td>10000</td>' "$work/t10k.dom" \
    || { echo "trace: no per-kernel summary of 10,000 runs" >&2; exit 1; }
"${browser[@]}" --window-size=1400,700 --virtual-time-budget=5000 --screenshot="$work/t10k.png" \
    "file://$work/t10k.html" >/dev/null 2>&1
"${check[@]}" --png "$work/t10k.png"
"${browser[@]}" --window-size=1400,260 --virtual-time-budget=5000 --screenshot="$work/t10k-zoomed.png" \
    "file://$work/t10k.html#view=0,250" >/dev/null 2>&1
"${check[@]}" --png "$work/t10k-zoomed.png"
if [[ -n ${TRACE_SCREENSHOT:-} ]]; then
    cp "$work/t10k.png" "$TRACE_SCREENSHOT"
    cp "$work/t10k-zoomed.png" "${TRACE_SCREENSHOT%.png}-zoomed.png"
fi
echo "trace: 10,000-launch timeline ($timing): ok"
echo "trace: 8 passed, 0 failed"
