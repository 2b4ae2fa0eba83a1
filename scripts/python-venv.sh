#!/usr/bin/env bash
# Creates (once) the project-local Python environment .deps/venv with the pinned versions of
# Numba-CUDA, CuPy and NumPy that scripts/test.d/python.sh runs under `chevron exec`, and prints
# its python. Quiet; a second run only checks the pins (a stamp file), so CI re-runs are fast.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.deps/venv"
pins=("numba-cuda[cu13]==0.30.4" "cupy-cuda13x==14.2.0" "numpy==2.3.5")
stamp="$venv/.chevron-pins"
if [[ ! -x $venv/bin/python || "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]]; then
    mkdir -p "$root/.deps"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}" >&2
    # Without nvJitLink, cuda.core links Numba's PTX with the driver's cuLink*, whose image
    # (PTX) every chevron device runs; nvJitLink would hand over SASS, which the CPU device
    # cannot run. Numba needs nvJitLink only for link-time optimisation (off by default).
    "$venv/bin/python" -m pip uninstall --quiet --disable-pip-version-check -y nvidia-nvjitlink >&2
    echo "${pins[*]}" >"$stamp"
fi
echo "$venv/bin/python"
