#!/usr/bin/env bash
# The Python wheel, as a user installs it: `pip install .` into a fresh virtualenv (maturin behind
# python/build_backend; CHEVRON_WHEEL_PROFILE=dev reuses the test build instead of a release
# build), then the venv's `chevron exec` runs a CUDA program on the CPU device with the libraries
# the wheel installed, and a C program links the wheel's libchevron.so. Prints
# `wheel: N passed, 0 failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
venv="$root/target/wheel-test-venv"
work="$root/target/wheel-test-work"
rm -rf "$venv" "$work"
mkdir -p "$work"
python3 -m venv "$venv"
CHEVRON_WHEEL_PROFILE=dev "$venv/bin/pip" install --quiet --disable-pip-version-check . \
    >"$work/pip.log" 2>&1 || { tail -n 30 "$work/pip.log" >&2; echo "wheel: pip install . failed" >&2; exit 1; }
passed=0
for f in bin/chevron lib/chevron/libchevron_driver.so lib/chevron/libcuda.so lib/libchevron.so \
         include/chevron.h; do
    [[ -e $venv/$f ]] || { echo "wheel: the venv has no $f" >&2; exit 1; }
done

nvcc_bin="$(scripts/deps/cuda_nvcc.sh)"
nice "$nvcc_bin/nvcc" -cudart shared -o "$work/square" tests/install/square.cu
out="$(env -u CHEVRON_CUDART "$venv/bin/chevron" exec --device cpu "$work/square")"
[[ $out == "sum of squares 332833500" ]] || { echo "wheel: exec printed '$out'" >&2; exit 1; }
loaded="$(LD_DEBUG=libs "$venv/bin/chevron" exec --device cpu "$work/square" 2>&1 >/dev/null \
    | grep 'calling init:.*libchevron_driver' || true)"
[[ $loaded == *"$venv/lib/chevron/libchevron_driver.so"* ]] \
    || { echo "wheel: the wheel's runtime did not serve the program: $loaded" >&2; exit 1; }
echo "exec from the venv: ok"
passed=$((passed + 1))

cc -O1 -I"$venv/include" tests/capi/example.c -L"$venv/lib" -lchevron -Wl,-rpath,"$venv/lib" \
    -o "$work/example"
out="$(CHEVRON_DEVICES=cpu "$work/example" tests/capi/kernels.ptx | tail -n1)"
[[ $out == "y[10] = 21" ]] || { echo "wheel: the C program printed '$out'" >&2; exit 1; }
echo "C program against the wheel's libchevron: ok"
passed=$((passed + 1))
echo "wheel: $passed passed, 0 failed"
