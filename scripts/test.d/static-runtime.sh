#!/usr/bin/env bash
# Programs built with nvcc's defaults (NVIDIA's runtime linked in statically, -cudart static)
# under `chevron exec` on the CPU device: each program of tests/static/ is built twice, with
# nvcc's defaults and with -cudart shared, both run under `chevron exec --device cpu`, and their
# outputs must be equal and end in "NAME: ok" (fault.cu: the error, and chevron's report naming
# the kernel; rdc_*.cu: three translation units built with -rdc=true; launch_config.cu:
# impossible configurations are cudaErrorInvalidValue; textures.cu: tests/cudart/tex_basic.cu's
# arrays, texture and surface objects through the driver's cuArray3DCreate/cuTexObjectCreate; copies_3d.cu:
# 3D copies and 2D/3D fills, also checked against the host; graphs_pools.cu: a graph built by hand
# and updated, capture across streams, the kernel nodes' parameters read back, memory pools, a
# cooperative grid sync, managed memory;
# runtime_misc.cu: attributes, occupancy, priorities, mapped and managed memory with hints, pointer
# attributes, callbacks, events, a non-sticky error; peer_capture_forms.cu: peer access, events
# recorded with flags, managed memory attached to streams, the thread's capture mode, which the
# static runtime asks of the driver; graph_add_node.cu: a graph of every common node kind built
# with cudaGraphAddNode, which the static runtime makes cuGraphAddNode_v2). vector_add.cu and the
# rdc program (CUDA_SEPARABLE_COMPILATION ON) are also built by CMake with its default CUDA
# settings (CMake from PyPI, scripts/deps/cmake.sh). Builds are cached under
# target/static-runtime/ and redone only when a source is newer (cold: about 4 min on 2 busy
# cores, 19 nvcc builds and CMake's two targets; warm: under 10 seconds). Prints
# `static-runtime: N passed, 0 failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/static
out="$root/target/static-runtime"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
cmake_bin="$(scripts/deps/cmake.sh)"
scripts/build-workspace -q
chevron="$root/target/debug/chevron"
passed=0

# stale OUTPUT SOURCE...: whether OUTPUT is missing or older than a source.
stale() {
    local target=$1
    shift
    [[ ! -e $target ]] && return 0
    for source in "$@"; do [[ $source -nt $target ]] && return 0; done
    return 1
}
# build NAME FLAGS -- SOURCES: NAME-static (nvcc's defaults) and NAME-shared (-cudart shared).
build() {
    local name=$1 flags=() sources=()
    shift
    while [[ $1 != -- ]]; do flags+=("$1"); shift; done
    shift
    sources=("$@")
    local paths=("${sources[@]/#/$src/}")
    # textures.cu includes tests/cudart/tex_basic.cu.
    local deps=("${paths[@]}" $src/*.h tests/cudart/tex_basic.cu)
    if stale "$out/$name-static" "${deps[@]}"; then
        nice "$bin/nvcc" "${flags[@]}" -o "$out/$name-static" "${paths[@]}"
    fi
    if stale "$out/$name-shared" "${deps[@]}"; then
        nice "$bin/nvcc" -cudart shared "${flags[@]}" -o "$out/$name-shared" "${paths[@]}"
    fi
}
# run NAME BINARY: runs BINARY under chevron exec on the CPU device, output in NAME.stdout/err.
run() {
    local status=0
    "$chevron" exec --device cpu "$2" >"$out/$1.stdout" 2>"$out/$1.stderr" || status=$?
    echo "$status" >"$out/$1.status"
}
# compare NAME: the static and shared builds ran alike and ended in "NAME: ok".
compare() {
    local name=$1
    run "$name-static" "$out/$name-static"
    run "$name-shared" "$out/$name-shared"
    if ! diff "$out/$name-shared.stdout" "$out/$name-static.stdout" >&2 \
        || [[ $(cat "$out/$name-static.status") != 0 ]] \
        || [[ $(tail -n1 "$out/$name-static.stdout") != "$name: ok" ]]; then
        echo "static-runtime: $name (static, status $(cat "$out/$name-static.status")):" >&2
        cat "$out/$name-static.stdout" "$out/$name-static.stderr" >&2
        exit 1
    fi
    echo "$name: static equals shared ($(tail -n1 "$out/$name-static.stdout"))"
    passed=$((passed + 1))
}

build vector_add -- vector_add.cu
build streams_events -- streams_events.cu
build symbols_2d -- symbols_2d.cu
build host_threads -- host_threads.cu
build templates -- templates_main.cu templates_kernels.cu
build thrust_cub -- thrust_cub.cu
build fault -- fault.cu
build rdc -rdc=true -- rdc_library.cu rdc_kernels.cu rdc_main.cu
build launch_config -- launch_config.cu
build textures -- textures.cu
build graphs_pools -- graphs_pools.cu
build runtime_misc -- runtime_misc.cu
build peer_capture_forms -- peer_capture_forms.cu
build graph_add_node -- graph_add_node.cu
for name in vector_add streams_events symbols_2d host_threads templates thrust_cub rdc launch_config textures \
    graphs_pools runtime_misc peer_capture_forms graph_add_node; do
    compare "$name"
done

build copies_3d -- copies_3d.cu
compare copies_3d

run fault-static "$out/fault-static"
run fault-shared "$out/fault-shared"
diff "$out/fault-shared.stdout" "$out/fault-static.stdout" >&2 \
    && grep -qx "fault: cudaErrorIllegalAddress" "$out/fault-static.stdout" \
    && grep -q "kernel \`scatter_out_of_bounds(int\*, int)\`" "$out/fault-static.stderr" \
    || { echo "static-runtime: fault:" >&2; cat "$out/fault-static.stdout" "$out/fault-static.stderr" >&2; exit 1; }
echo "fault: static equals shared, the report names the kernel"
passed=$((passed + 1))

# CMake's defaults: CMAKE_CUDA_RUNTIME_LIBRARY is Static; rdc_cmake has
# CUDA_SEPARABLE_COMPILATION ON (CMake's own device link step).
cmake_dir="$out/cmake"
if stale "$cmake_dir/rdc_cmake" $src/vector_add.cu $src/rdc_*.cu $src/*.h $src/CMakeLists.txt; then
    rm -rf "$cmake_dir"
    nice "$cmake_bin/cmake" -S $src -B "$cmake_dir" -DCMAKE_CUDA_COMPILER="$bin/nvcc" >"$out/cmake.log" 2>&1 \
        && nice "$cmake_bin/cmake" --build "$cmake_dir" >>"$out/cmake.log" 2>&1 \
        || { cat "$out/cmake.log" >&2; echo "static-runtime: the CMake build failed" >&2; exit 1; }
fi
for target in vector_add rdc; do
    grep -q "cudart_static" "$cmake_dir/CMakeFiles/${target}_cmake.dir/linkLibs.rsp" \
        || { echo "static-runtime: CMake did not link ${target}_cmake's runtime statically" >&2; exit 1; }
    run "$target-cmake" "$cmake_dir/${target}_cmake"
    diff "$out/$target-shared.stdout" "$out/$target-cmake.stdout" >&2 \
        || { echo "static-runtime: the CMake build of $target differs" >&2; cat "$out/$target-cmake.stderr" >&2; exit 1; }
    passed=$((passed + 1))
done
[[ -e $cmake_dir/CMakeFiles/rdc_cmake.dir/cmake_device_link.o ]] \
    || { echo "static-runtime: CMake did not device-link rdc_cmake" >&2; exit 1; }
echo "vector_add, rdc (CMake defaults, static runtime; rdc with CUDA_SEPARABLE_COMPILATION): equal shared"
echo "static-runtime: $passed passed, 0 failed"
