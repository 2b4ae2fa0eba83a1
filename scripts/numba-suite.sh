#!/usr/bin/env bash
# Numba-CUDA's own test suite (numba.cuda.tests.cudadrv and numba.cuda.tests.cudapy, as
# shipped in the pinned numba-cuda wheel) under `chevron exec` on the CPU device, one process
# per test module so that a test that faults or hangs costs only its module. Prints one line
# per module (passed / failed / skipped, or "crashed" / "timed out") and the totals; each
# failing test and the last line of its traceback are in OUT/MODULE.log.
#
#   scripts/numba-suite.sh [--jobs N] [--timeout S] [--native] [--python PY] [--out DIR] [MODULE…]
#
# --native runs the same modules without chevron (the baseline on a GPU machine, where
#   `--python` names a python with numba-cuda installed; no cargo needed there).
# --device D picks chevron's device (default cpu). MODULEs are short names (cudapy.test_atomics)
#   and default to every test_*.py of the two packages.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs=2 timeout=600 native=0 python="" out="" device=cpu modules=()
while (($#)); do
    case $1 in
        --jobs) jobs=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --native) native=1; shift ;;
        --python) python=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --device) device=$2; shift 2 ;;
        -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
        -*) echo "numba-suite: unknown option $1" >&2; exit 2 ;;
        *) modules+=("$1"); shift ;;
    esac
done
[[ -n $python ]] || python="$("$root/scripts/python-venv.sh")"
# The suite imports a few packages beyond Numba-CUDA's own dependencies; they go in a folder of
# their own (pinned, without dependencies, so the environment's NumPy stays the one in use).
# NUMBA_SUITE_WHEELS names a folder of wheels to install from instead of the index (a machine
# without network); a pin it lacks is reported and left out.
extras=("pytest==9.2.0" "pluggy==1.7.0" "iniconfig==2.3.1" "packaging==26.4" "pygments==2.21.0"
    "filecheck==1.0.6" "ml_dtypes==0.6.0" "cffi==2.1.1" "pycparser==3.12")
deps="${NUMBA_SUITE_DEPS:-$root/target/numba-suite-deps}"
if [[ "$(cat "$deps/.pins" 2>/dev/null)" != "${extras[*]}" ]]; then
    if [[ -n ${NUMBA_SUITE_WHEELS:-} ]]; then
        for pin in "${extras[@]}"; do
            "$python" -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
                --target "$deps" --no-index --find-links "$NUMBA_SUITE_WHEELS" "$pin" >&2 \
                || echo "numba-suite: $pin is not in $NUMBA_SUITE_WHEELS, left out" >&2
        done
    else
        "$python" -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
            --target "$deps" "${extras[@]}" >&2
    fi
    mkdir -p "$deps"
    echo "${extras[*]}" >"$deps/.pins"
fi
export PYTHONPATH="$deps${PYTHONPATH:+:$PYTHONPATH}"
suffix=""
[[ $native == 0 ]] || suffix=-native
out="${out:-$root/target/numba-suite$suffix}"
mkdir -p "$out"
runner="$root/scripts/numba_suite/run_module.py"
if [[ $native == 0 ]]; then
    chevron="${CHEVRON:-$root/target/debug/chevron}"
    [[ -n ${CHEVRON:-} ]] || (cd "$root" && scripts/build-workspace -q)
    launcher=("$chevron" exec --device "$device")
    # The suite's CuPy interop tests compile CuPy kernels: as PTX, every chevron device runs them
    # (the documented workflow, docs/python.md).
    export CUPY_COMPILE_WITH_PTX=1
else
    launcher=()
fi
tests="$("$python" -c 'import numba.cuda.tests as t, os; print(os.path.dirname(t.__file__))')"
if ((${#modules[@]} == 0)); then
    for package in cudadrv cudapy; do
        for file in "$tests/$package"/test_*.py; do
            name="${file##*/}"
            modules+=("$package.${name%.py}")
        done
    done
fi
# Performance warnings stay on: some tests expect them (test_gufunc checks the low-occupancy one).
export PYTHONFAULTHANDLER=1
export out timeout python runner
export launcher_line="${launcher[*]}"

run_one() {
    local module=$1 log="$out/$1.log" rc=0
    # shellcheck disable=SC2086
    timeout -k 10 "$timeout" $launcher_line "$python" "$runner" "numba.cuda.tests.$module" \
        >"$out/$module.out" 2>"$log" </dev/null || rc=$?
    local summary
    summary="$(grep -E '^numba\.cuda\.tests\..* passed=' "$out/$module.out" | tail -n1 || true)"
    if [[ -n $summary ]]; then
        echo "${summary#numba.cuda.tests.}"
    elif ((rc == 124 || rc == 137)); then
        echo "$module timed out after ${timeout}s"
    else
        echo "$module crashed (exit $rc): $(grep -v '^\s*$' "$log" | tail -n1 | cut -c1-160)"
    fi
}
export -f run_one
printf '%s\n' "${modules[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' | sort | tee "$out/summary.txt"
awk '
    / passed=/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); total[kv[1]] += kv[2] } ; next }
    { broken++ }
    END { printf "total: passed=%d failed=%d skipped=%d, modules that crashed or timed out: %d\n",
                 total["passed"], total["failed"], total["skipped"], broken }
' "$out/summary.txt" | tee "$out/total.txt"
