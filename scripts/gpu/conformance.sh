#!/usr/bin/env bash
# On a GPU machine: runs chevron's conformance suite on every device found (each CUDA GPU and the
# CPU device), including the tests marked `#[ignore = "needs a CUDA GPU"]`. The CUDA fault test
# leaves the process's context unusable, so it runs alone in a process of its own.
#
# The test binary is built on the development machine and carried over:
#   cargo test -p chevron --test conformance --no-run   # prints the executable's path
#   mkdir -p carry/bin && cp <that path> carry/bin/conformance
# (or set CONFORMANCE_BIN). Where cargo is present and no binary is given, it is built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CHEVRON_REPO=$PWD
bin=${CONFORMANCE_BIN:-carry/bin/conformance}
if [ ! -x "$bin" ] && command -v cargo >/dev/null; then
  bin=$(cargo test -p chevron --test conformance --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "conformance":
        print(m["executable"])')
fi
[ -x "$bin" ] || { echo "no conformance binary at $bin (see the header of $0)" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L
status=0
concurrency=tokens::work_on_two_streams_runs_concurrently
# Timed against a spinning kernel: alone, so that no other test's kernels share the device.
no_stall=releases::a_free_or_unload_while_a_kernel_spins_does_not_stall_the_launching_thread
echo "== conformance: every device, GPU tests included"
"$bin" --include-ignored --skip cuda_fault_names_the_kernel --skip "$concurrency" \
  --skip "$no_stall" || status=1
echo "== conformance: CUDA devices only (CHEVRON_DEVICES=cuda)"
CHEVRON_DEVICES=cuda "$bin" --include-ignored --skip cuda_fault_names_the_kernel \
  --skip "$concurrency" --skip "$no_stall" || status=1
echo "== conformance: a free or unload does not stall the launching thread, alone"
"$bin" --include-ignored --exact "$no_stall" --nocapture || status=1
# The driver's cuMemFree and cuModuleUnload wait for the whole device: another test freeing memory
# in a parallel thread while the handshake kernels spin likely serializes the two streams (seen on
# H200, driver 580: fails in the parallel run, passes alone every time). So it runs alone.
echo "== conformance: two streams run concurrently, alone"
"$bin" --include-ignored --exact "$concurrency" || status=1
echo "== conformance: the CUDA fault test, alone"
"$bin" --include-ignored --exact gpu_only::cuda_fault_names_the_kernel --nocapture || status=1
echo "== launch benchmark (smoke, debug build; use the release example for figures)"
"$bin" --include-ignored --exact gpu_only::the_launch_benchmark_measures_against_the_raw_driver \
  --nocapture || status=1
exit $status
