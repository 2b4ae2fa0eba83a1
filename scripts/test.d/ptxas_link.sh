#!/usr/bin/env bash
# Links corpus PTX with chevron-ptx's linker and compiles each result with NVIDIA's ptxas 13.0
# (PyPI, no GPU needed): ptxas rejects any unresolved reference, duplicate, malformed forward
# declaration or dangling debug label, so this checks that linked PTX is what the driver accepts.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(scripts/deps/cuda_nvcc.sh)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scripts/build-workspace -q   # the ptx_link example among the rest
link_tool="target/debug/examples/ptx_link"
n80=corpus/nvrtc/compute_80
n90=corpus/nvrtc/compute_90
count=0
check() {
    local arch="$1"
    shift
    count=$((count + 1))
    "$link_tool" "$@" >"$work/linked$count.ptx"
    "$bin/ptxas" -arch="$arch" "$work/linked$count.ptx" -o "$work/linked$count.cubin" ||
        { echo "ptxas rejected the link of: $*" >&2; exit 1; }
}
check sm_80 "$n80/rdc_callee.ptx" "$n80/rdc_caller.ptx"
check sm_80 "$n80/rdc_caller.ptx" "$n80/rdc_callee.ptx"
check sm_90 "$n90/rdc_caller.ptx" "$n90/rdc_callee.ptx"
check sm_80 corpus/nvcc/rdc_caller.sm_80.ptx "$n80/rdc_callee.ptx"
check sm_90 "$n90/hopper.ptx" "$n90/rdc_caller.ptx" "$n90/rdc_callee.ptx"
check sm_80 "$n80/device_funcs.rdc.ptx"
check sm_80 "$n80/elementwise.ptx" "$n80/memory_spaces.ptx" "$n80/structs.ptx" "$n80/device_funcs.ptx"
check sm_80 "$n80/printf.ptx" "$n80/atomics.ptx" "$n80/warp.ptx"
check sm_80 "$n80/reduce.debug.ptx" "$n80/elementwise.lineinfo.ptx"
check sm_80 corpus/clang/kernels.sm_80.lineinfo.ptx "$n80/reduce.debug.ptx"
check sm_80 "$n80/reduce.debug.ptx" "$n80/atomics.O0.ptx"
check sm_80 corpus/clang/kernels.sm_80.O0.ptx "$n80/reduce.ptx" "$n80/coop_groups.ptx" "$n80/half.ptx" "$n80/matmul.ptx"
echo "ptxas accepted all $count linked modules"
