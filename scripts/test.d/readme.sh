#!/usr/bin/env bash
# The code blocks of README.md and docs/*.md, run as a reader would copy them (shell under bash
# and zsh, Rust programs against the chevron crate, C programs against libchevron) on the CPU
# device: see scripts/docs/snippets.py, which also says how a block is kept out of CI (`no-ci`).
# Installs zsh, clang-22 and libmlir-22 when missing (apt-get). Prints
# `docs: N passed, N failed, N not run (no-ci)`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
# zsh runs every shell block a second time; the MLIR link line uses clang-22 and libmlir-22.
if ! command -v zsh >/dev/null || ! command -v clang-22 >/dev/null \
        || [[ ! -e /usr/lib/llvm-22/lib/libmlir_runner_utils.so.22.1 ]]; then
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    if [[ $(apt-cache policy zsh clang-22 2>/dev/null | grep -c 'Candidate: [0-9]') != 2 ]]; then
        $sudo apt-get update -qq >&2
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        zsh clang-22 libmlir-22 >&2
fi
scripts/build-workspace -q   # the chevron CLI, libchevron.rlib and libchevron.so
shopt -s nullglob
python3 scripts/docs/snippets.py README.md docs/*.md
