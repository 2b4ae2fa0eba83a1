#!/usr/bin/env bash
# On a GPU machine: the incremental-JIT session tests on CUDA and on the CPU device, the REPL
# driven from a pipe on CUDA (with Ctrl-C during a running kernel: the REPL stops waiting, says
# so, and a later launch works), and the JIT benchmark on cuda:0 (add-time curve against
# recompiling everything, cache hits, host RSS and device memory across 10,000 redefinitions,
# printed every 1000), then the add-time curve again on the CPU device of the same host. About
# 5 minutes on an H100 host.
#
# Build on the development machine and carry over (stripped, the whole carry/ stays < 64 MiB):
#   cargo test --release -p chevron --test jit_session --no-run    # prints the executable's path
#   cargo build --release -p chevron --example 07-jit-bench
#   cargo build --release -p chevron-cli    # separately: `-p chevron --example X -p chevron-cli`
#                                           # builds only the example, not the chevron binary
#   mkdir -p carry/bin carry/nvrtc
#   cp <that path> carry/bin/jit_session
#   cp target/release/examples/07-jit-bench target/release/chevron carry/bin/ && strip carry/bin/*
#   cp .deps/nvrtc/nvidia/cu13/lib/libnvrtc-builtins.so.13.0 carry/nvrtc/
#   xz -T0 -c .deps/nvrtc/nvidia/cu13/lib/libnvrtc.so.13 >carry/nvrtc/libnvrtc.so.13.xz
#   tar -C .deps/nvrtc/nvidia/cu13 -cJf carry/nvrtc/include.tar.xz include   # the CUDA headers
# NVRTC: CHEVRON_NVRTC when set, else carry/nvrtc (unpacked here), else chevron's own search.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${JIT_BIN:-carry/bin}
for program in jit_session 07-jit-bench chevron; do
  [ -x "$bin/$program" ] || { echo "no $bin/$program (see the header of $0)" >&2; exit 2; }
done
if [ -z "${CHEVRON_NVRTC:-}" ] && [ -e carry/nvrtc/libnvrtc.so.13.xz ]; then
  [ -e carry/nvrtc/libnvrtc.so.13 ] || python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)' carry/nvrtc/libnvrtc.so.13.xz carry/nvrtc/libnvrtc.so.13
fi
if [ -z "${CHEVRON_NVRTC:-}" ] && [ -e carry/nvrtc/libnvrtc.so.13 ]; then
  export CHEVRON_NVRTC=$PWD/carry/nvrtc
fi
if [ -z "${CHEVRON_CUDA_INCLUDE:-}" ] && [ -e carry/nvrtc/include.tar.xz ]; then
  [ -d carry/nvrtc/include ] || tar -C carry/nvrtc -xJf carry/nvrtc/include.tar.xz
  export CHEVRON_CUDA_INCLUDE=$PWD/carry/nvrtc/include:$PWD/carry/nvrtc/include/cccl
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L
export CHEVRON_CACHE=off
status=0
echo "== JIT session tests on cuda:0"
CHEVRON_DEVICES=cuda:0 "$bin/jit_session" --test-threads 1 || status=1
echo "== JIT session tests on the CPU device"
CHEVRON_DEVICES=cpu "$bin/jit_session" || status=1
echo "== REPL from a pipe on cuda:0"
out=$(printf '%s\n' '__device__ int offset = 40;' ':buf v i32[4]=zeros' \
  '__global__ void put(int *v) { v[threadIdx.x] = offset + threadIdx.x; }' \
  'put<<<1, 4>>>(v);' ':print v' | "$bin/chevron" repl --device cuda:0) || status=1
echo "$out"
grep -qF 'v = [40, 41, 42, 43]' <<<"$out" || { echo "REPL result differs" >&2; status=1; }
echo "== REPL: Ctrl-C during a running kernel on cuda:0 (it spins about 10 s)"
work=$(mktemp -d)
mkfifo "$work/in"
"$bin/chevron" repl --device cuda:0 <"$work/in" >"$work/out" 2>"$work/err" &
repl=$!
exec 3>"$work/in"
printf '%s\n' ':buf g i32[1]=zeros' \
  '__global__ void spin(int *) { long long s = clock64(); while (clock64() - s < 20000000000LL) { } }' \
  '__global__ void one(int *g) { g[0] = 1; }' 'spin<<<1, 1>>>(g);' >&3
sleep 5
kill -INT "$repl"
sleep 1
printf '%s\n' 'one<<<1, 1>>>(g);' ':print g' >&3
exec 3>&-
repl_status=0
wait "$repl" || repl_status=$?
cat "$work/out" "$work/err"
grep -qF 'g = [1]' "$work/out" && grep -qF 'keeps running on cuda:0' "$work/err" \
  && [ "$(wc -l <"$work/err")" -eq 1 ] && [ "$repl_status" -eq 2 ] \
  || { echo "REPL Ctrl-C on cuda:0: unexpected (exit $repl_status)" >&2; status=1; }
rm -rf "$work"
echo "== JIT benchmark on cuda:0"
CHEVRON_DEVICES=cuda:0 "$bin/07-jit-bench" || status=1
# The same add-time curve with the same NVRTC on this host's CPU device: a ratio that is high
# on both points at NVRTC or the host (its allocator), one high on cuda:0 only at the device.
echo "== JIT benchmark on the CPU device of this host (500 snippets, 1000 redefinitions)"
CHEVRON_DEVICES=cpu "$bin/07-jit-bench" 500 1000 || status=1
exit $status
