#!/usr/bin/env bash
# On a GPU machine: Numba-CUDA's own test suite (the modules of scripts/numba_suite/modules.list,
# one process per module) natively on NVIDIA's driver and under `chevron exec --device cuda`
# (chevron's driver library in front of NVIDIA's), then one table: passed / failed / skipped per
# module for both. Also runs the two tests that fault on chevron's CPU device under
# compute-sanitizer, natively, to show whether NVIDIA's memcheck reports the same out-of-bounds
# accesses.
#
# Prepare on the development machine (release chevron and its two libraries, stripped, and the
# pure-Python wheels of the suite's own imports, in carry/numba/):
#   scripts/gpu/numba-suite.sh --prepare
# then on the GPU machine (no cargo needed; a python with numba-cuda 0.30.x installed, its
# path in PYTHON, default python3):
#   scripts/gpu/numba-suite.sh [--jobs N] [MODULE…]     # logs under $OUT (default: a temp dir)
# (NATIVE_ONLY=1: the native baseline alone.)
set -euo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/numba"
# The suite's own imports that are pure Python (cffi and ml_dtypes are compiled per Python
# version: where missing, the modules needing them fail to import on both sides alike).
wheels=("pytest==9.2.0" "pluggy==1.7.0" "iniconfig==2.3.1" "packaging==26.4" "pygments==2.21.0"
    "filecheck==1.0.6" "pycparser==3.12")

if [[ ${1:-} == --prepare ]]; then
    CARGO_INCREMENTAL=0 nice cargo build -q --release -p chevron-driver -p chevron-libcuda \
        -p chevron-cli
    mkdir -p "$carry/wheels"
    for file in libchevron_driver.so libcuda.so chevron; do
        objcopy --strip-debug "target/release/$file" "$carry/$file"
    done
    python="$("$root/scripts/python-venv.sh")"
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
        --dest "$carry/wheels" "${wheels[@]}"
    echo "prepared $carry ($(du -sh "$carry" | cut -f1))"
    exit 0
fi

jobs=8
modules=()
while (($#)); do
    case $1 in
        --jobs) jobs=$2; shift 2 ;;
        *) modules+=("$1"); shift ;;
    esac
done
((${#modules[@]})) || mapfile -t modules < <(grep -v '^#' scripts/numba_suite/modules.list | grep .)
[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
python="${PYTHON:-python3}"
if ! "$python" -c 'import numba.cuda' 2>/dev/null; then
    echo "numba-suite: $python has no numba-cuda: install numba-cuda 0.30.x (and set PYTHON)" >&2
    exit 2
fi
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
"$python" -c 'import numba_cuda, sys; print("numba-cuda", numba_cuda.__version__, "python", sys.version.split()[0])' \
    | tee "$OUT/versions.txt"
export NUMBA_SUITE_WHEELS="$carry/wheels" NUMBA_SUITE_DEPS="$OUT/deps"

scripts/numba-suite.sh --native --jobs "$jobs" --python "$python" --out "$OUT/native" \
    "${modules[@]}" >/dev/null
if [[ -n ${NATIVE_ONLY:-} ]]; then
    # The baseline alone (NATIVE_ONLY=1): the CPU device's figures are compared with it.
    cat "$OUT/native/summary.txt"
    echo "native:  $(cat "$OUT/native/total.txt")"
    exit 0
fi
CHEVRON="$carry/chevron" CHEVRON_CUDART="$carry/libchevron_driver.so" \
    CHEVRON_LIBCUDA="$carry/libcuda.so" \
    scripts/numba-suite.sh --device cuda --jobs "$jobs" --python "$python" --out "$OUT/chevron" \
    "${modules[@]}" >/dev/null

# One line per module: the native figures, then chevron's.
figures() { awk '/ passed=/ { print $1, $2, $3, $4; next } { print $1, "-", "-", "-" }' "$1"; }
join -a1 -a2 -e '?' -o 0,1.2,1.3,1.4,2.2,2.3,2.4 <(figures "$OUT/native/summary.txt" | sort) \
    <(figures "$OUT/chevron/summary.txt" | sort) \
    | sed 's/passed=//g; s/failed=//g; s/skipped=//g' \
    | awk 'BEGIN { printf "%-40s %21s   %21s\n", "module", "native  pass/fail/skip", "chevron pass/fail/skip" }
           { printf "%-40s %7s %6s %6s   %7s %6s %6s\n", $1, $2, $3, $4, $5, $6, $7 }' \
    | tee "$OUT/table.txt"
echo "native:  $(cat "$OUT/native/total.txt")"
echo "chevron: $(cat "$OUT/chevron/total.txt")"

# The two out-of-bounds accesses the CPU device reports, under NVIDIA's memcheck.
if command -v compute-sanitizer >/dev/null; then
    for test in cudapy.test_localmem.TestCudaLocalMem.test_struct_model_type_arr \
        cudapy.test_dispatcher.TestDispatcher.test_dispatcher_cpointer_arguments; do
        PYTHONPATH="$OUT/deps" compute-sanitizer --tool memcheck "$python" \
            scripts/numba_suite/run_module.py "numba.cuda.tests.$test" >"$OUT/$test.memcheck" 2>&1 || true
        echo "memcheck $test: $(grep -cE 'Invalid (__global__ )?(read|write)' "$OUT/$test.memcheck") invalid accesses"
    done
fi
echo "logs: $OUT"
