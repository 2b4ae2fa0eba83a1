#!/usr/bin/env bash
# Creates (once) the project-local Python environment .deps/venv with the pinned versions of
# Numba-CUDA, CuPy and NumPy that scripts/test.d/python.sh runs under `chevron exec`, and prints
# its python. Quiet; a second run only checks the pins (a stamp file), so CI re-runs are fast.
#
# Usage: scripts/python-venv.sh               .deps/venv (Numba-CUDA, CuPy, NumPy)
#        scripts/python-venv.sh --numba VENV  the same Numba-CUDA and NumPy pins, without CuPy,
#                                             into an existing virtualenv (a user's fresh one)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.deps/venv"
numba_pins=("numba-cuda[cu13]==0.30.4" "numpy==2.3.5")
pins=("${numba_pins[0]}" "cupy-cuda13x==14.2.0" "${numba_pins[1]}")

# Installs $2... into the virtualenv $1, less nvJitLink: without it, cuda.core links Numba's PTX
# with the driver's cuLink*, whose image (PTX) every chevron device runs; nvJitLink would hand
# over SASS, which the CPU device cannot run. Numba needs nvJitLink only for link-time
# optimisation (off by default).
install_pins() {
    local python="$1/bin/python"
    shift
    "$python" -m pip install --quiet --disable-pip-version-check "$@" >&2
    "$python" -m pip uninstall --quiet --disable-pip-version-check -y nvidia-nvjitlink >&2
}

if [[ ${1:-} == --numba ]]; then
    target="${2:?--numba needs a virtualenv}"
    [[ -x $target/bin/python ]] || { echo "python-venv.sh: $target is no virtualenv" >&2; exit 2; }
    install_pins "$target" "${numba_pins[@]}"
    echo "$target/bin/python"
    exit 0
fi
stamp="$venv/.chevron-pins"
if [[ ! -x $venv/bin/python || "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]]; then
    mkdir -p "$root/.deps"
    python3 -m venv "$venv"
    install_pins "$venv" "${pins[@]}"
    echo "${pins[*]}" >"$stamp"
fi
echo "$venv/bin/python"
