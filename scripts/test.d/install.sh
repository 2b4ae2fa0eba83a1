#!/usr/bin/env bash
# scripts/install into a fresh prefix (dev profile: the test build, no release build), then, from
# that prefix alone: `chevron exec` of a CUDA program built with nvcc -cudart shared, and a C
# program built with `pkg-config --cflags --libs chevron`, both on the CPU device. Prints
# `install: N passed, 0 failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
command -v pkg-config >/dev/null || {
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends pkg-config >&2
}
prefix="$root/target/install-test"
work="$root/target/install-test-work"
rm -rf "$prefix" "$work"
mkdir -p "$work"
scripts/install --prefix "$prefix" --profile dev >"$work/install.log"
passed=0
for f in bin/chevron lib/chevron/libchevron_driver.so lib/chevron/libcuda.so lib/libchevron.so \
         lib/libchevron.a include/chevron.h lib/pkgconfig/chevron.pc; do
    [[ -e $prefix/$f ]] || { echo "install: $prefix/$f missing" >&2; exit 1; }
done

# A CUDA program, run by the installed chevron with the installed runtime (nothing of target/).
nvcc_bin="$(scripts/deps/cuda_nvcc.sh)"
nice "$nvcc_bin/nvcc" -cudart shared -o "$work/square" tests/install/square.cu
out="$(env -u CHEVRON_CUDART "$prefix/bin/chevron" exec --device cpu "$work/square")"
[[ $out == "sum of squares 332833500" ]] || { echo "install: exec printed '$out'" >&2; exit 1; }
loaded="$(LD_DEBUG=libs "$prefix/bin/chevron" exec --device cpu "$work/square" 2>&1 >/dev/null \
    | grep 'calling init:.*libchevron_driver' || true)"
[[ $loaded == *"$prefix/lib/chevron/libchevron_driver.so"* ]] \
    || { echo "install: the installed runtime did not serve the program: $loaded" >&2; exit 1; }
echo "exec from the prefix: ok"
passed=$((passed + 1))

# A C program against the installed library, flags from pkg-config.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's output is a list of words
cc -O1 tests/capi/example.c $(pkg-config --cflags --libs chevron) -o "$work/example"
out="$(CHEVRON_DEVICES=cpu "$work/example" tests/capi/kernels.ptx | tail -n1)"
[[ $out == "y[10] = 21" ]] || { echo "install: the C program printed '$out'" >&2; exit 1; }
[[ $(ldd "$work/example") == *"$prefix/lib/libchevron.so"* ]] \
    || { echo "install: the C program did not link the installed libchevron.so" >&2; exit 1; }
echo "pkg-config C build: ok"
passed=$((passed + 1))
echo "install: $passed passed, 0 failed"
