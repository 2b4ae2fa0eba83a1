# Checks shared by scripts/test.d/install.sh and scripts/test.d/wheel.sh (sourced, from the
# repository root, after `set -euo pipefail`). Each takes a name for its messages and PREFIX, an
# installed chevron: a prefix of scripts/install or a virtualenv holding the wheel. Each runs a
# program on the CPU device with what PREFIX holds alone (nothing of target/), prints one line
# when it passes and exits 1 naming what went wrong when it does not.

# Fails unless PREFIX holds every FILE.  Usage: installed_files NAME PREFIX FILE...
installed_files() {
    local name=$1 prefix=$2 file
    shift 2
    for file in "$@"; do
        [[ -e $prefix/$file ]] || { echo "$name: $prefix/$file is missing" >&2; exit 1; }
    done
}

# Runs PROGRAM under PREFIX's `chevron exec --device cpu` once and prints its output; fails
# unless the program ran on PREFIX's LIBRARY (lib/chevron/LIBRARY, as the loader reports it).
#   Usage: exec_served NAME PREFIX WORK_DIR LIBRARY PROGRAM ARGS...
exec_served() {
    local name=$1 prefix=$2 work=$3 library=$4 loaded
    shift 4
    rm -f "$work"/ld-debug.*
    env -u CHEVRON_CUDART -u CHEVRON_LIBCUDA LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld-debug" \
        "$prefix/bin/chevron" exec --device cpu "$@" \
        || { echo "$name: \`chevron exec $*\` failed" >&2; exit 1; }
    loaded="$(cat "$work"/ld-debug.* | grep -m1 "calling init:.*/$library" || true)"
    [[ $loaded == *"$prefix/lib/chevron/$library"* ]] \
        || { echo "$name: $prefix/lib/chevron/$library did not serve $1: '$loaded'" >&2; exit 1; }
}

# A CUDA program built with nvcc -cudart shared, run by PREFIX's chevron on its CUDA runtime.
#   Usage: exec_cuda_program NAME PREFIX WORK_DIR
exec_cuda_program() {
    local name=$1 prefix=$2 work=$3 nvcc_bin out
    nvcc_bin="$(scripts/deps/cuda_nvcc.sh)"
    nice "$nvcc_bin/nvcc" -cudart shared -o "$work/square" tests/install/square.cu
    out="$(exec_served "$name" "$prefix" "$work" libchevron_driver.so "$work/square")"
    [[ $out == "sum of squares 332833500" ]] || { echo "$name: exec printed '$out'" >&2; exit 1; }
    echo "chevron exec of a CUDA program: ok"
}

# A C program built with `pkg-config --cflags --libs chevron` from PREFIX/lib/pkgconfig, which
# must link PREFIX's libchevron.so.  Usage: pkg_config_c_program NAME PREFIX WORK_DIR
pkg_config_c_program() {
    local name=$1 prefix=$2 work=$3 flags out linked
    command -v pkg-config >/dev/null || {
        local sudo=""
        [[ $(id -u) == 0 ]] || sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            pkg-config >&2
    }
    flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs chevron)"
    # shellcheck disable=SC2086 # pkg-config's output is a list of words
    cc -O1 tests/capi/example.c $flags -o "$work/example"
    out="$(CHEVRON_DEVICES=cpu "$work/example" tests/capi/kernels.ptx | tail -n1)"
    [[ $out == "y[10] = 21" ]] || { echo "$name: the C program printed '$out'" >&2; exit 1; }
    linked="$(ldd "$work/example" | sed -n 's/^\s*libchevron\.so => \(\S*\) .*/\1/p')"
    [[ -n $linked && $(realpath "$linked") == "$(realpath "$prefix/lib/libchevron.so")" ]] \
        || { echo "$name: the C program linked '$linked', not $prefix/lib/libchevron.so" >&2; exit 1; }
    echo "C program built with pkg-config: ok"
}

# A Numba-CUDA kernel run by PYTHON under PREFIX's chevron, on PREFIX's driver library.
#   Usage: exec_numba_kernel NAME PREFIX WORK_DIR PYTHON
exec_numba_kernel() {
    local name=$1 prefix=$2 work=$3 python=$4 out
    out="$(NUMBA_DISABLE_PERFORMANCE_WARNINGS=1 exec_served "$name" "$prefix" "$work" libcuda.so \
        "$python" -W ignore::RuntimeWarning tests/install/numba_square.py)"
    [[ $out == "numba on "*": sum of squares 332833500" ]] \
        || { echo "$name: the Numba kernel printed '$out'" >&2; exit 1; }
    echo "chevron exec of a Numba kernel ($out): ok"
}
