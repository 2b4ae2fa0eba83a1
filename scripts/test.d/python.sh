#!/usr/bin/env bash
# Python GPU kernels on chevron's CUDA driver library, on the CPU device: creates (once, cached)
# the pinned environment .deps/venv (scripts/python-venv.sh: numba-cuda 0.30.4, cupy-cuda13x
# 14.2.0, numpy 2.3.5; about 80 s on the first run, a stamp check after), then runs
# tests/python/numba_kernels.py under `chevron exec --device cpu`, checking its final line.
# CuPy's tests/python/cupy_kernels.py runs too (CUPY_COMPILE_WITH_PTX=1): CuPy links NVIDIA's
# runtime statically, which runs on the driver's export tables (docs/static-runtime.md); its
# RawKernel, RawModule, ElementwiseKernel and ReductionKernel results must equal NumPy's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/target/python"
mkdir -p "$out"
python="$(scripts/python-venv.sh)"
scripts/build-workspace -q
chevron="$root/target/debug/chevron"
export NUMBA_DISABLE_PERFORMANCE_WARNINGS=1 CUPY_COMPILE_WITH_PTX=1 CUPY_CACHE_DIR="$out/cupy-cache"

if ! "$chevron" exec --device cpu "$python" -W ignore::RuntimeWarning tests/python/numba_kernels.py \
    >"$out/numba.stdout" 2>"$out/numba.stderr"; then
    cat "$out/numba.stdout" "$out/numba.stderr" >&2
    echo "python: the Numba kernels failed" >&2
    exit 1
fi
[[ "$(tail -n 1 "$out/numba.stdout")" == "numba: ok" ]] \
    || { cat "$out/numba.stdout" "$out/numba.stderr" >&2; echo "python: numba did not finish" >&2; exit 1; }
echo "numba: ok ($(grep -c ': ok$' "$out/numba.stdout") checks)"

if ! "$chevron" exec --device cpu "$python" tests/python/cupy_kernels.py \
    >"$out/cupy.stdout" 2>"$out/cupy.stderr" \
    || [[ "$(tail -n 1 "$out/cupy.stdout")" != "cupy: ok" ]]; then
    cat "$out/cupy.stdout" "$out/cupy.stderr" >&2
    echo "python: the CuPy kernels failed" >&2
    exit 1
fi
echo "cupy: ok ($(grep -c ': ok$' "$out/cupy.stdout") checks)"
