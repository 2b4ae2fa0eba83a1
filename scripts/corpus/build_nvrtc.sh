#!/usr/bin/env bash
# Rebuilds corpus/nvrtc/{compute_80,compute_90}/*.ptx and corpus/cubin/*.cubin from
# corpus/nvrtc/src/*.cu with NVRTC 13.0 (scripts/deps/nvrtc.sh) and records every command in
# corpus/nvrtc/COMMANDS.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
nvrtc_dir="$(bash scripts/deps/nvrtc.sh)"
read -r inc cccl_inc cccl_inc2 <<<"$(bash scripts/deps/cuda_headers.sh)"
src=corpus/nvrtc/src
log=corpus/nvrtc/COMMANDS.txt
mkdir -p corpus/nvrtc/compute_80 corpus/nvrtc/compute_90 corpus/cubin
rm -f corpus/nvrtc/compute_80/* corpus/nvrtc/compute_90/* corpus/cubin/*
version="$(python3 scripts/corpus/nvrtc_compile.py --nvrtc-dir "$nvrtc_dir" --version)"
{
    echo "# NVRTC $version (PyPI nvidia-cuda-nvrtc==13.0.88), driver scripts/corpus/nvrtc_compile.py"
    echo "# INC = CUDA 13.0.96 runtime headers (PyPI nvidia-cuda-runtime==13.0.96), see scripts/deps/cuda_headers.sh"
    echo "# CCCL = CCCL 13.0.85 headers (PyPI nvidia-cuda-cccl==13.0.85)"
} >"$log"

# compile SRC OUTPUT_FLAGS... -- NVRTC_OPTIONS...
compile() {
    local file="$1"
    shift
    python3 scripts/corpus/nvrtc_compile.py --nvrtc-dir "$nvrtc_dir" "$src/$file" "$@"
    local shown="nvrtc_compile.py $src/$file $*"
    shown="${shown//$inc/INC}"
    echo "${shown//$cccl_inc/CCCL}" >>"$log"
}

plain=(elementwise reduce warp atomics structs device_funcs double_math float_math bitops printf
       matmul memory_spaces)
with_headers=(half coop_groups advanced tensor_cores)
# compute_90 gets a subset: the rest differs from compute_80 only in its .target line.
plain_90=(elementwise reduce warp atomics structs)
with_headers_90=(half)

for arch in 80 90; do
    out="corpus/nvrtc/compute_$arch"
    if [[ $arch == 80 ]]; then
        files=("${plain[@]}")
        headers=("${with_headers[@]}")
    else
        files=("${plain_90[@]}")
        headers=("${with_headers_90[@]}")
    fi
    for f in "${files[@]}"; do
        extra=()
        if [[ $f == reduce ]]; then
            extra=(--name-expr 'block_scan<int, 128>' --name-expr 'block_scan<float, 256>'
                   --names "$out/reduce.names.txt")
        elif [[ $f == matmul ]]; then
            extra=(--name-expr 'matmul_t<float, 16>' --name-expr 'matmul_t<double, 8>'
                   --names "$out/matmul.names.txt")
        fi
        compile "$f.cu" --ptx "$out/$f.ptx" "${extra[@]}" -- "--gpu-architecture=compute_$arch"
    done
    for f in "${headers[@]}"; do
        compile "$f.cu" --ptx "$out/$f.ptx" -- "--gpu-architecture=compute_$arch" "--include-path=$inc" "--include-path=$cccl_inc" "--include-path=$cccl_inc2"
    done
    # Relocatable device code: the caller declares .extern functions and a global of the callee.
    compile rdc_callee.cu --ptx "$out/rdc_callee.ptx" -- "--gpu-architecture=compute_$arch" -rdc=true
    compile rdc_caller.cu --ptx "$out/rdc_caller.ptx" -- "--gpu-architecture=compute_$arch" -rdc=true
    # Fast math: approximate instructions, .ftz, and the precise calls replaced.
    compile float_math.cu --ptx "$out/float_math.fast.ptx" -- "--gpu-architecture=compute_$arch" --use_fast_math
    # Relocatable build of a whole file (every __device__ function kept as a .visible .func).
    compile device_funcs.cu --ptx "$out/device_funcs.rdc.ptx" -- "--gpu-architecture=compute_$arch" -rdc=true
done

out=corpus/nvrtc/compute_90
compile hopper.cu --ptx "$out/hopper.ptx" -- --gpu-architecture=compute_90 "--include-path=$inc" "--include-path=$cccl_inc" "--include-path=$cccl_inc2"
# Line info (.file/.loc) and full debug info (.section .debug_*), compute_80 only.
out=corpus/nvrtc/compute_80
compile elementwise.cu --ptx "$out/elementwise.lineinfo.ptx" -- --gpu-architecture=compute_80 -lineinfo
compile reduce.cu --ptx "$out/reduce.debug.ptx" -- --gpu-architecture=compute_80 -G
compile atomics.cu --ptx "$out/atomics.O0.ptx" -- --gpu-architecture=compute_80 -Xptxas=-O0 --device-debug

# Cubins (ELF) straight from NVRTC.
cub=corpus/cubin
for f in elementwise structs memory_spaces; do
    compile "$f.cu" --cubin "$cub/$f.sm_90.cubin" -- --gpu-architecture=sm_90
done
compile elementwise.cu --cubin "$cub/elementwise.sm_80.cubin" -- --gpu-architecture=sm_80
compile reduce.cu --cubin "$cub/reduce.sm_80.cubin" -- --gpu-architecture=sm_80
compile rdc_callee.cu --cubin "$cub/rdc_callee.sm_90.cubin" -- --gpu-architecture=sm_90 -rdc=true
compile rdc_caller.cu --cubin "$cub/rdc_caller.sm_90.cubin" -- --gpu-architecture=sm_90 -rdc=true
compile hopper.cu --cubin "$cub/hopper.sm_90.cubin" -- --gpu-architecture=sm_90 "--include-path=$inc" "--include-path=$cccl_inc" "--include-path=$cccl_inc2"
echo "corpus rebuilt: $(find corpus/nvrtc/compute_* corpus/cubin -type f | wc -l) files" >&2
# cuobjdump views of the new cubins/fatbins
bash scripts/corpus/dump_objects.sh
