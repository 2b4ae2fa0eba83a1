#!/usr/bin/env bash
# On a GPU machine: the driver-API programs of tests/driver/ under NVIDIA's libcuda.so.1 and
# under chevron's (`chevron exec --device cuda`, chevron's library in front of NVIDIA's), each
# of whose runs must end with "NAME: ok"; and, where the machine has numba-cuda, the Numba
# kernels of tests/python/numba_kernels.py under both, their outputs compared.
#
# Prepare on the development machine (release chevron, its two libraries, the programs and
# their PTX/fatbin, copied to carry/driver/):
#   scripts/gpu/driver.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/driver.sh            # writes its logs to $OUT (default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/driver"
programs=(modules streams_memory threads mixed copies_2d_3d linear_copies launch_config graphs prepared_launch
    mipmap_cubemap per_thread_stream)
data=(kernels.ptx kernels.fatbin link_lib.ptx link_main.ptx)

if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/driver.sh
    cargo build -q --release -p chevron-driver -p chevron-libcuda -p chevron-cli
    toolkit="$(dirname "$(scripts/deps/cuda_nvcc.sh)")"
    mkdir -p "$carry/nvidia"
    for file in libchevron_driver.so libcuda.so chevron; do
        objcopy --strip-debug "target/release/$file" "$carry/$file"
    done
    for file in "${programs[@]}" "${data[@]}"; do cp "target/driver/$file" "$carry/"; done
    cp tests/python/numba_kernels.py "$carry/"
    cp "$toolkit/lib/libcudart.so.13" "$carry/nvidia/"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
export CHEVRON_CUDART="$carry/libchevron_driver.so" CHEVRON_LIBCUDA="$carry/libcuda.so"
nvidia() { UNCHECKED_DRIVER=1 LD_LIBRARY_PATH="$carry/nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
chevron() { "$carry/chevron" exec --device cuda "$@"; }
status=0
args_of() {
    case $1 in
        modules) echo "$carry/kernels.ptx $carry/kernels.fatbin $carry/link_lib.ptx $carry/link_main.ptx" ;;
        *) echo "$carry/kernels.ptx" ;;
    esac
}
for name in "${programs[@]}"; do
    # shellcheck disable=SC2046
    nvidia "$carry/$name" $(args_of "$name") >"$OUT/$name.nvidia" 2>&1 || true
    # shellcheck disable=SC2046
    chevron "$carry/$name" $(args_of "$name") >"$OUT/$name.chevron" 2>&1 || true
    for side in nvidia chevron; do
        if [[ "$(tail -n1 "$OUT/$name.$side")" == "$name: ok" ]]; then
            echo "$name ($side): ok"
        else
            echo "$name ($side): FAILED"; tail -n5 "$OUT/$name.$side"; status=1
        fi
    done
done
if python3 -c 'import numba.cuda' 2>/dev/null; then
    python3 "$carry/numba_kernels.py" >"$OUT/numba.nvidia" 2>/dev/null || true
    chevron python3 "$carry/numba_kernels.py" >"$OUT/numba.chevron" 2>/dev/null || true
    if diff -u "$OUT/numba.nvidia" "$OUT/numba.chevron" >"$OUT/numba.diff" \
        && [[ "$(tail -n1 "$OUT/numba.chevron")" == "numba: ok" ]]; then
        echo "numba: same output under both"
    else
        echo "numba: outputs differ"; cat "$OUT/numba.diff"; status=1
    fi
else
    echo "numba: not installed here, not compared"
fi
echo "logs: $OUT"
exit $status
