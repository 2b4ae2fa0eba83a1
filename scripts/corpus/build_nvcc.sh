#!/usr/bin/env bash
# Rebuilds corpus/nvcc/ from corpus/nvrtc/src/*.cu with nvcc 13.0 (CPU only: nvcc, cicc, ptxas,
# fatbinary from PyPI, see scripts/deps/cuda_nvcc.sh; needs g++ as nvcc's host compiler) and
# records every command in corpus/nvcc/COMMANDS.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bin="$(bash scripts/deps/cuda_nvcc.sh)"
src=corpus/nvrtc/src
out=corpus/nvcc
log=$out/COMMANDS.txt
mkdir -p "$out"
rm -f "$out"/*.ptx "$out"/*.cubin "$out"/*.fatbin
echo "# $("$bin/nvcc" --version | tail -2 | head -1) (PyPI nvidia-cuda-nvcc==13.0.88), host compiler $(g++ --version | head -1)" >"$log"

run() {
    "$bin/nvcc" "$@"
    echo "nvcc $*" >>"$log"
}

# PTX
run -ptx -arch=sm_80 "$src/elementwise.cu" -o "$out/elementwise.sm_80.ptx"
run -ptx -arch=sm_80 "$src/warp.cu" -o "$out/warp.sm_80.ptx"
run -ptx -arch=sm_80 "$src/matmul.cu" -o "$out/matmul.sm_80.ptx"
run -ptx -arch=sm_80 -rdc=true "$src/rdc_caller.cu" -o "$out/rdc_caller.sm_80.ptx"
run -ptx -arch=sm_90 "$src/hopper.cu" -o "$out/hopper.sm_90.ptx"
run -ptx -arch=sm_80 -O3 --use_fast_math "$src/float_math.cu" -o "$out/float_math.fast.sm_80.ptx"
# cubins (ELF)
run -cubin -arch=sm_80 "$src/reduce.cu" -o "$out/reduce.sm_80.cubin"
run -cubin -arch=sm_90 "$src/memory_spaces.cu" -o "$out/memory_spaces.sm_90.cubin"
run -cubin -arch=sm_80 -rdc=true "$src/rdc_callee.cu" -o "$out/rdc_callee.sm_80.cubin"
run -cubin -arch=sm_80 -rdc=true "$src/rdc_caller.cu" -o "$out/rdc_caller.sm_80.cubin"
# fatbins: SASS for two architectures plus PTX; PTX only; uncompressed
run -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] \
    "$src/elementwise.cu" -o "$out/elementwise.sm_80.sm_90.compute_90.fatbin"
run -fatbin -gencode arch=compute_80,code=compute_80 "$src/atomics.cu" \
    -o "$out/atomics.compute_80.fatbin"
run -fatbin -gencode arch=compute_80,code=[sm_80,compute_80] --compress-mode=none \
    "$src/structs.cu" -o "$out/structs.sm_80.compute_80.uncompressed.fatbin"
echo "nvcc corpus rebuilt: $(ls "$out"/*.ptx "$out"/*.cubin "$out"/*.fatbin | wc -l) files" >&2
# cuobjdump views of the new cubins/fatbins
bash scripts/corpus/dump_objects.sh
