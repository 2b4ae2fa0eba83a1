#!/usr/bin/env bash
# Hostile use of the CUDA runtime ABI (crates/chevron-cudart) on the CPU device: builds
# tests/cudart/hostile_cudart.cu with nvcc 13.0 (-cudart shared, as tests/cudart.sh builds its
# programs) and runs each of its cases under `chevron exec --device cpu` below an address-space
# cap (ulimit -v), so that an abort cannot hide as an out-of-memory kill. Each case must end
# with "CASE: ok" and print the CUDA error names listed below: unmapped host pointers in
# copies, cudaHostRegister of NULL/empty/unmapped ranges, wrapping 2D pitches, NULL argument
# pointers in launches and graph updates, NULL outputs, an oversized cooperative grid, copies
# between two devices (CHEVRON_CPU_DEVICES=2), cudaDeviceReset after a fault, a freed pointer's
# attributes, capture misuse, the properties programs branch on, textures (bad channel
# descriptors, array windows out of range, freed arrays and destroyed objects) and unknown
# flags, read-only attributes and NULL frees. Also builds
# tests/cudart/thrust_default_arch.cu with nvcc's default architecture (sm_75 SASS + compute_75
# PTX) and runs it: Thrust/CUB must pick kernels that exist. Programs are cached under
# target/cudart/ and rebuilt only when their source is newer (Thrust takes about a minute).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/cudart
out="$root/target/cudart"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
link=(-L"$nvlib" -Xlinker -rpath -Xlinker "$toolkit/lib")
scripts/build-workspace -q   # libcudart.so (chevron-cudart) and the CLI, sharing cargo test's build

# build OUTPUT SOURCE NVCC-ARGS...: builds OUTPUT when missing or older than SOURCE.
build() {
    local target=$1 source=$2
    shift 2
    if [[ ! -e $target || $source -nt $target ]]; then
        nice "$bin/nvcc" -cudart shared "${link[@]}" "$@" -o "$target" "$source"
    fi
}
build "$out/hostile_cudart" $src/hostile_cudart.cu -arch=sm_90
build "$out/thrust_default_arch" $src/thrust_default_arch.cu   # nvcc's default architecture

chevron="$root/target/debug/chevron"
cap_kib=$((4 * 1024 * 1024))
passed=0
# run CASE EXPECTED_NAMES... [-- ENV...]: runs the case under the cap; its last line must be
# "CASE: ok" and every EXPECTED name must be printed.
run() {
    local name=$1
    shift
    local names=() environment=()
    while [[ $# -gt 0 && $1 != -- ]]; do names+=("$1"); shift; done
    [[ ${1:-} == -- ]] && { shift; environment=("$@"); }
    local rc=0
    (ulimit -v "$cap_kib"; env "${environment[@]}" timeout 120 "$chevron" exec --device cpu \
        "$out/hostile_cudart" "$name") >"$out/hostile-$name.stdout" 2>"$out/hostile-$name.stderr" \
        || rc=$?
    local last
    last="$(tail -n1 "$out/hostile-$name.stdout")"
    if [[ $rc != 0 || $last != "$name: ok" ]]; then
        echo "hostile-cudart: $name: exit $rc, last line '$last':" >&2
        cat "$out/hostile-$name.stdout" "$out/hostile-$name.stderr" >&2
        exit 1
    fi
    for expected in "${names[@]}"; do
        grep -q "$expected\$" "$out/hostile-$name.stdout" || {
            echo "hostile-cudart: $name printed no $expected:" >&2
            cat "$out/hostile-$name.stdout" >&2
            exit 1
        }
    done
    echo "$name: ok"
    passed=$((passed + 1))
}
run copy-unmapped cudaErrorInvalidValue cudaSuccess
run host-register cudaErrorInvalidValue
run pitch cudaErrorInvalidPitchValue cudaErrorInvalidValue cudaErrorMemoryAllocation
run null-args cudaErrorInvalidValue
run null-outputs cudaErrorInvalidValue
run cooperative cudaErrorCooperativeLaunchTooLarge
run peer cudaErrorInvalidDevice cudaErrorInvalidValue -- CHEVRON_CPU_DEVICES=2
run reset cudaErrorIllegalAddress cudaSuccess
run freed-pointer
run capture cudaErrorIllegalState
run properties cudaSuccess cudaErrorInvalidValue
run textures cudaErrorInvalidChannelDescriptor cudaErrorInvalidValue cudaSuccess
run flags cudaErrorInvalidValue cudaErrorInvalidResourceHandle cudaErrorIllegalState cudaSuccess

rc=0
(ulimit -v "$cap_kib"; timeout 300 "$chevron" exec --device cpu "$out/thrust_default_arch") \
    >"$out/thrust_default_arch.stdout" 2>"$out/thrust_default_arch.stderr" || rc=$?
if [[ $rc != 0 || "$(tail -n1 "$out/thrust_default_arch.stdout")" != "thrust_default_arch: ok" ]]; then
    echo "hostile-cudart: thrust_default_arch: exit $rc:" >&2
    cat "$out/thrust_default_arch.stdout" "$out/thrust_default_arch.stderr" >&2
    exit 1
fi
echo "thrust_default_arch: ok ($(head -n1 "$out/thrust_default_arch.stdout"))"
passed=$((passed + 1))
echo "hostile-cudart: $passed programs passed, 0 failed"
