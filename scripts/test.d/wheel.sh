#!/usr/bin/env bash
# The Python wheel, as a user installs it: `pip install .` into a fresh virtualenv (maturin behind
# python/build_backend; CHEVRON_WHEEL_PROFILE=dev reuses the test build instead of a release
# build), then, from the venv alone, on the CPU device (tests/install/checks.sh): the venv's
# `chevron exec` runs a CUDA program on the runtime the wheel installed, a C program builds with
# `pkg-config --cflags --libs chevron` (the wheel's lib/pkgconfig) against the wheel's
# libchevron.so, and Numba-CUDA, pip-installed into the same venv with the project's pins
# (scripts/python-venv.sh --numba), runs a kernel on the wheel's driver library. Prints
# `wheel: N passed, 0 failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
source tests/install/checks.sh
venv="$root/target/wheel-test-venv"
work="$root/target/wheel-test-work"
rm -rf "$venv" "$work"
mkdir -p "$work"
python3 -m venv "$venv"
CHEVRON_WHEEL_PROFILE=dev "$venv/bin/pip" install --quiet --disable-pip-version-check . \
    >"$work/pip.log" 2>&1 || { tail -n 30 "$work/pip.log" >&2; echo "wheel: pip install . failed" >&2; exit 1; }
installed_files wheel "$venv" bin/chevron lib/chevron/libchevron_driver.so lib/chevron/libcuda.so \
    lib/libchevron.so include/chevron.h lib/pkgconfig/chevron.pc
exec_cuda_program wheel "$venv" "$work"
pkg_config_c_program wheel "$venv" "$work"
exec_numba_kernel wheel "$venv" "$work" "$(scripts/python-venv.sh --numba "$venv")"
echo "wheel: 3 passed, 0 failed"
