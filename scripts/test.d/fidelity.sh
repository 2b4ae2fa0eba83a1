#!/usr/bin/env bash
# CPU-device fidelity (issue 21): CUDA programs whose results hardware defines where PTX leaves
# latitude. Builds tests/cudart/{collective_probe,async_copy,host_memory,zero_copy,hm_*}.cu with nvcc 13.0 (-cudart shared,
# -arch=sm_90; the probe also as compute_80 PTX only and at nvcc's default architecture, where
# it reduces with shuffles instead of redux.sync) and runs them under
# `chevron exec --device cpu` with the interpreter and with compiled code
# (CHEVRON_CPU_EXEC=interp / compiled): the probe's output must equal the H200's
# (scripts/gpu/probes/collective_probe.h200.txt), launch_errors.cu's the H200's
# (scripts/gpu/probes/launch_errors.h200.txt), the others must print "NAME: ok";
# tests/cudart/cluster_dsmem.cu and tma_tile.cu (sm_90 thread-block clusters and TMA) and
# wgmma_gemm.cu and wgmma_layouts.cu (sm_90a warpgroup MMA, which the compiled executor hands to
# the interpreter)
# among them.
# Built programs are cached under target/fidelity/ and rebuilt only when a source is newer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/cudart
out="$root/target/fidelity"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
link=(-L"$nvlib" -Xlinker -rpath -Xlinker "$toolkit/lib")
scripts/build-workspace -q

# build OUTPUT SOURCE NVCC-ARGS...: builds when OUTPUT is missing or older than SOURCE.
build() {
    local target=$1 source=$2
    shift 2
    [[ -e $target && ! $source -nt $target ]] && return 0
    nice "$bin/nvcc" -cudart shared "$@" "${link[@]}" -o "$target" "$source"
}
build "$out/collective_probe" $src/collective_probe.cu -arch=sm_90
build "$out/collective_probe-ptx80" $src/collective_probe.cu -gencode arch=compute_80,code=compute_80
build "$out/collective_probe-default" $src/collective_probe.cu
build "$out/async_copy" $src/async_copy.cu -arch=sm_90 -diag-suppress 20054
build "$out/host_memory" $src/host_memory.cu -arch=sm_90
build "$out/zero_copy" $src/zero_copy.cu -arch=sm_90
build "$out/hm_pinned_streams" $src/hm_pinned_streams.cu
build "$out/cluster_dsmem" $src/cluster_dsmem.cu -arch=sm_90
build "$out/tma_tile" $src/tma_tile.cu -arch=sm_90
build "$out/wgmma_gemm" $src/wgmma_gemm.cu -arch=sm_90a
build "$out/wgmma_layouts" $src/wgmma_layouts.cu -arch=sm_90a
build "$out/launch_errors" $src/launch_errors.cu

chevron="$root/target/debug/chevron"
expected=scripts/gpu/probes/collective_probe.h200.txt
for mode in interp compiled; do
    for program in collective_probe collective_probe-ptx80 collective_probe-default; do
        got="$out/$program.$mode.txt"
        CHEVRON_CPU_EXEC=$mode "$chevron" exec --device cpu "$out/$program" >"$got"
        if ! diff -u "$expected" "$got" >&2; then
            echo "fidelity: $program ($mode) differs from the H200" >&2
            exit 1
        fi
        echo "$program ($mode): same as the H200 ($(wc -l <"$got") cases)"
    done
    # The error codes of launches no device can run, as NVIDIA's runtime gives them on an H200.
    got="$out/launch_errors.$mode.txt"
    CHEVRON_CPU_EXEC=$mode "$chevron" exec --device cpu "$out/launch_errors" >"$got" 2>/dev/null
    if ! diff -u scripts/gpu/probes/launch_errors.h200.txt "$got" >&2; then
        echo "fidelity: launch_errors ($mode) differs from the H200" >&2
        exit 1
    fi
    echo "launch_errors ($mode): same as the H200 ($(wc -l <"$got") lines)"
    for program in async_copy host_memory zero_copy hm_pinned_streams cluster_dsmem tma_tile wgmma_gemm \
        wgmma_layouts; do
        last="$(CHEVRON_CPU_EXEC=$mode "$chevron" exec --device cpu "$out/$program" | tail -n1)"
        [[ $last == "$program: ok" ]] || { echo "fidelity: $program ($mode): $last" >&2; exit 1; }
        echo "$program ($mode): ok"
    done
done
