#!/usr/bin/env bash
# scripts/install into a fresh prefix (dev profile: the test build, no release build), then, from
# that prefix alone, on the CPU device (tests/install/checks.sh): `chevron exec` of a CUDA
# program built with nvcc -cudart shared, a C program built with `pkg-config --cflags --libs
# chevron`, and `chevron exec` of a Numba-CUDA kernel on the installed driver library (the
# project's pinned .deps/venv, scripts/python-venv.sh). Prints `install: N passed, 0 failed`.
# About 15 s once the workspace and .deps/venv are built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
source tests/install/checks.sh
prefix="$root/target/install-test"
work="$root/target/install-test-work"
rm -rf "$prefix" "$work"
mkdir -p "$work"
scripts/install --prefix "$prefix" --profile dev >"$work/install.log"
installed_files install "$prefix" bin/chevron lib/chevron/libchevron_driver.so \
    lib/chevron/libcuda.so lib/libchevron.so lib/libchevron.a include/chevron.h \
    lib/pkgconfig/chevron.pc
exec_cuda_program install "$prefix" "$work"
pkg_config_c_program install "$prefix" "$work"
exec_numba_kernel install "$prefix" "$work" "$(scripts/python-venv.sh)"
echo "install: 3 passed, 0 failed"
