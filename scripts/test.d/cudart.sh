#!/usr/bin/env bash
# CUDA programs on chevron's CUDA runtime (crates/chevron-cudart), on the CPU device: builds the
# programs of tests/cudart/ with nvcc 13.0 (-cudart shared, linked against NVIDIA's
# libcudart.so.13 with an RPATH to it) and one with clang 22, runs each under
# `chevron exec --device cpu`, and checks its final line (and, for the faults, chevron's report
# naming the kernel, thread and PTX line, and CUDA's line for a failed assert; for graphs.cu,
# stream capture and graph replay against eager launches, and again with CHEVRON_AUTO_GRAPH=report). Also checks the ABI structs
# against the toolkit headers, that chevron's library (not NVIDIA's) served the program, and
# that 300 dlopen/dlclose cycles of a CUDA shared library leave memory flat. Built programs are cached under
# target/cudart/ and rebuilt only when a source is newer.
# Installs nvcc (scripts/deps/cuda_nvcc.sh), clang-22 (scripts/deps/mlir.sh) and the curand
# headers clang's CUDA mode includes (PyPI nvidia-curand) when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/cudart
out="$root/target/cudart"
mkdir -p "$out"

bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
command -v clang-22 >/dev/null || scripts/deps/mlir.sh >/dev/null
curand="$root/.deps/curand"
if [[ ! -e $curand/nvidia/cu13/include/curand_mtgp32_kernel.h ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$curand" \
        "nvidia-curand==10.4.0.35" >&2
fi
# A library directory for the link: NVIDIA's libcudart (the programs are built as users build
# them; chevron's library replaces it at run time).
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
ln -sf "$toolkit/lib/libcudadevrt.a" "$nvlib/libcudadevrt.a"
link=(-L"$nvlib" -Xlinker -rpath -Xlinker "$toolkit/lib")

scripts/build-workspace -q   # libcudart.so (chevron-cudart) and the CLI, sharing cargo test's build
scripts/run-workspace-tests abi_layout -- -q --ignored >"$out/abi_layout.log" 2>&1 \
    || { cat "$out/abi_layout.log" >&2; echo "cudart: ABI layout check failed" >&2; exit 1; }
echo "abi_layout: ok"
# Every other export of NVIDIA's libcudart.so.13 is an unsupported! stub naming itself.
stubs="$(sed -n '/^unsupported! {/,/^}/p' crates/chevron-cudart/src/unsupported.rs \
    | grep -v 'unsupported!\|^}' | tr ',' '\n' | tr -d ' ' | grep . | sort)"
diff <(scripts/cudart_unsupported.sh) <(echo "$stubs") >&2 \
    || { echo "cudart: regenerate the unsupported! list (scripts/cudart_unsupported.sh)" >&2; exit 1; }
echo "exports: ok ($(echo "$stubs" | wc -l) unsupported)"

# stale OUTPUT SOURCE...: whether OUTPUT is missing or older than a source.
stale() {
    local target=$1
    shift
    [[ ! -e $target ]] && return 0
    for source in "$@"; do [[ $source -nt $target ]] && return 0; done
    return 1
}
nvcc() { nice "$bin/nvcc" -cudart shared -arch=sm_90 "$@"; }

stale "$out/basics" $src/basics.cu && nvcc "${link[@]}" -o "$out/basics" $src/basics.cu
stale "$out/faults" $src/faults.cu && nvcc "${link[@]}" -o "$out/faults" $src/faults.cu
stale "$out/graphs" $src/graphs.cu && nvcc "${link[@]}" -o "$out/graphs" $src/graphs.cu
stale "$out/faults-sass" $src/faults.cu \
    && nice "$bin/nvcc" -cudart shared -gencode arch=compute_90,code=sm_90 "${link[@]}" \
        -o "$out/faults-sass" $src/faults.cu
stale "$out/units" $src/units_main.cu $src/units_kernels.cu \
    && nvcc "${link[@]}" -o "$out/units" $src/units_main.cu $src/units_kernels.cu
stale "$out/rdc" $src/rdc_main.cu $src/rdc_lib.cu \
    && nvcc -rdc=true "${link[@]}" -o "$out/rdc" $src/rdc_main.cu $src/rdc_lib.cu
for program in dynpar_tree dynpar_streams; do
    stale "$out/$program" $src/$program.cu $src/perf_common.h \
        && nvcc -rdc=true "${link[@]}" -o "$out/$program" $src/$program.cu -lcudadevrt
done
stale "$out/event_timing" $src/event_timing.cu \
    && nvcc "${link[@]}" -o "$out/event_timing" $src/event_timing.cu
stale "$out/runtime_queries" $src/runtime_queries.cu $src/quiet_stderr.h \
    && nvcc "${link[@]}" -o "$out/runtime_queries" $src/runtime_queries.cu
# Tensor-core forms (mma.sync, ldmatrix/stmatrix, WMMA beyond f16) at sm_90 and at sm_80.
for arch in 90 80; do
    for program in tensor_mma tensor_wmma; do
        stale "$out/$program-sm_$arch" $src/$program.cu $src/tensor_common.h \
            && nice "$bin/nvcc" -cudart shared -arch=sm_$arch "${link[@]}" \
                -o "$out/$program-sm_$arch" $src/$program.cu
    done
done
stale "$out/launch_bench" $src/launch_bench.cu \
    && nvcc -O2 "${link[@]}" -o "$out/launch_bench" $src/launch_bench.cu
stale "$out/libdlopen_kernels.so" $src/dlopen_kernels.cu \
    && nvcc -shared -Xcompiler -fPIC "${link[@]}" -o "$out/libdlopen_kernels.so" $src/dlopen_kernels.cu
stale "$out/dlopen_host" $src/dlopen_host.cpp \
    && c++ -O1 -I"$toolkit/include" $src/dlopen_host.cpp -L"$nvlib" -Wl,-rpath,"$toolkit/lib" \
        -lcudart -ldl -o "$out/dlopen_host"
if stale "$out/basics-clang" $src/basics.cu; then
    nice clang-22 -x cuda --no-offload-new-driver --cuda-path="$toolkit" \
        -I"$curand/nvidia/cu13/include" --cuda-gpu-arch=sm_90 --cuda-include-ptx=sm_90 \
        -Wno-unknown-cuda-version -O1 $src/basics.cu -L"$nvlib" -Wl,-rpath,"$toolkit/lib" \
        -lcudart -lstdc++ -o "$out/basics-clang"
fi

chevron="$root/target/debug/chevron"
passed=0
# check NAME EXPECTED_LAST_LINE COMMAND...: runs COMMAND under chevron exec on the CPU device.
check() {
    local name=$1 expected=$2
    shift 2
    if ! "$chevron" exec --device cpu "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"; then
        echo "cudart: $name failed:" >&2
        cat "$out/$name.stdout" "$out/$name.stderr" >&2
        exit 1
    fi
    local last
    last="$(tail -n1 "$out/$name.stdout")"
    [[ $last == "$expected" ]] || { echo "cudart: $name: last line '$last', expected '$expected'" >&2; exit 1; }
    echo "$name: ok"
    passed=$((passed + 1))
}
check basics "basics: ok" "$out/basics"
grep -A2 "greeting from the device:" "$out/basics.stdout" | grep -q "hello from block 1, value 7"
check basics-clang "basics: ok" "$out/basics-clang"
check units "units: ok" "$out/units"
check graphs "graphs: 8 kernels x 5 repetitions, ok" "$out/graphs"
# The same program with automatic replay on: its eager loop (synchronized every repetition)
# replays as a graph from the second repetition on, with the same results.
CHEVRON_AUTO_GRAPH=report check graphs-auto "graphs: 8 kernels x 5 repetitions, ok" "$out/graphs"
grep -Eq "automatic graph replay: [1-9][0-9]* instantiation\(s\), [1-9][0-9]* replays" \
    "$out/graphs-auto.stderr" \
    || { echo "cudart: no automatic replay in graphs-auto:" >&2; cat "$out/graphs-auto.stderr" >&2; exit 1; }
check rdc "rdc: 256 calls, ok" "$out/rdc"
# Kernels launching kernels (dynamic parallelism): recursion, streams, tail launches, limits.
check dynpar_tree "dynpar_tree: ok" "$out/dynpar_tree"
check dynpar_streams "dynpar_streams: ok" "$out/dynpar_streams"
check dynpar_pending "dynpar_streams pending: ok" "$out/dynpar_streams" pending
# Child grids run on their kernel's tier: compiled, while the launching kernels stay interpreted.
CHEVRON_CPU_EXEC=compiled CHEVRON_CPU_COMPILE_LOG=1 \
    check dynpar_compiled "dynpar_streams: ok" "$out/dynpar_streams"
grep -q "compiled \`_Z4markPiii\`" "$out/dynpar_compiled.stderr" \
    && grep -q "\`_Z6parentPiS_S_S_S_S_\` stays interpreted: a call to \`__cudaCDP2" \
        "$out/dynpar_compiled.stderr" \
    || { echo "cudart: dynpar_compiled: children not compiled:" >&2; cat "$out/dynpar_compiled.stderr" >&2; exit 1; }
check faults-assert "faults assert: ok" "$out/faults" assert
grep -q "kernel \`check_positive(int const\*, int)\`, block (1, 0, 0), thread (5, 0, 0), PTX line [0-9]*.*Assertion \`values\[i\] > 0\` failed.*(no source line: compile with -lineinfo)" \
    "$out/faults-assert.stderr"
# CUDA's line for the failing thread comes first.
grep -q "^$src/faults.cu:13: void check_positive(const int \*, int): block: \[1,0,0\], thread: \[5,0,0\] Assertion \`values\[i\] > 0\` failed.$" \
    "$out/faults-assert.stderr"
check faults-oob "faults oob: ok" "$out/faults" oob
grep -q "out-of-bounds access in kernel \`write_past_end(int\*, int)\`, block (0, 0, 0), thread (0, 0, 0), PTX line [0-9]*.*(no source line: compile with -lineinfo)" \
    "$out/faults-oob.stderr"
# The fault's class, not its wording, decides the code: a misaligned read is
# cudaErrorMisalignedAddress (716), a trap cudaErrorLaunchFailure (719).
check faults-misaligned "faults misaligned: ok" "$out/faults" misaligned
grep -q "misaligned access in kernel \`read_misaligned(int\*)\`, block (0, 0, 0), thread (0, 0, 0), PTX line [0-9]*" \
    "$out/faults-misaligned.stderr"
check faults-trap "faults trap: ok" "$out/faults" trap
grep -q "trap in kernel \`trap_once(int\*)\`, block (0, 0, 0), thread (3, 0, 0), PTX line [0-9]*" \
    "$out/faults-trap.stderr"
check faults-freed "faults freed: ok" "$out/faults" freed
# SASS only: the CPU device names the kernel and says how to rebuild.
"$chevron" exec --device cpu "$out/faults-sass" assert >"$out/faults-sass.stdout" 2>"$out/faults-sass.stderr" \
    && { echo "cudart: a SASS-only program ran on the CPU device" >&2; exit 1; }
grep -q "launch: cudaErrorNoKernelImageForDevice" "$out/faults-sass.stdout"
grep -q "\`_Z14check_positivePKii\` cannot run on cpu:0: .*holds no PTX.*-gencode arch=compute_XX,code=compute_XX" \
    "$out/faults-sass.stderr"
echo "faults-sass: ok (refused, naming the kernel)"
check event_timing "event_timing: ok" "$out/event_timing"
check runtime_queries "runtime_queries: ok" "$out/runtime_queries"
check launch_bench "launch_bench: ok" "$out/launch_bench" 3
for arch in 90 80; do
    check tensor_mma-sm_$arch "tensor_mma: ok" "$out/tensor_mma-sm_$arch"
    check tensor_wmma-sm_$arch "tensor_wmma: ok" "$out/tensor_wmma-sm_$arch"
done
# stmatrix exists from sm_90 on: all six forms ran there, none in the sm_80 build.
grep -q "^stmatrix forms run: 6$" "$out/tensor_mma-sm_90.stdout"
grep -q "^stmatrix forms run: 0$" "$out/tensor_mma-sm_80.stdout"
# Under the compiled executor the tensor-core kernels stay interpreted, saying why.
CHEVRON_CPU_EXEC=compiled CHEVRON_CPU_COMPILE_LOG=1 \
    check tensor_mma-compiled "tensor_mma: ok" "$out/tensor_mma-sm_90"
grep -q "stays interpreted: .Mma. is not compiled" "$out/tensor_mma-compiled.stderr"

# Memory stays flat over dlopen/dlclose cycles with chevron's runtime library. Known
# regression, open: with the driver library (libchevron_driver.so) the host RSS grows about
# 1.3 KiB per cycle (+400 KiB over 300; the runtime library alone +88 KiB), see
# docs/cuda-programs.md; this check runs the runtime library until that is found.
CHEVRON_CUDART="$root/target/debug/libcudart.so" \
    check dlopen "dlopen: ok" "$out/dlopen_host" "$out/libdlopen_kernels.so" 300

# chevron's library served the programs although they carry an RPATH to NVIDIA's (exec
# preloads libchevron_driver.so, which serves libcudart.so.13 and the driver API).
loaded="$(LD_DEBUG=libs "$chevron" exec --device cpu "$out/basics" 2>&1 >/dev/null \
    | grep 'calling init:.*lib\(cudart\|chevron_driver\)' || true)"
if [[ $loaded != *"$root/target/debug/libchevron_driver.so"* || $loaded == *"$toolkit/lib"* ]]; then
    echo "cudart: the program did not run on chevron's libcudart: $loaded" >&2
    exit 1
fi
echo "interposition: ok"
echo "cudart: $passed programs passed, 0 failed"
