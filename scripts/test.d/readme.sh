#!/usr/bin/env bash
# The code blocks of README.md and docs/*.md, run as a reader would copy them (shell under bash
# and zsh, Rust programs against the chevron crate, C programs against libchevron) on the CPU
# device: see scripts/docs/snippets.py, which also says how a block is kept out of CI (`no-ci`).
# Installs zsh when missing. Prints `docs: N passed, N failed, N not run (no-ci)`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if ! command -v zsh >/dev/null; then
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo"
    if ! apt-cache policy zsh 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        $sudo apt-get update -qq >&2
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends zsh >&2
fi
scripts/build-workspace -q   # the chevron CLI, libchevron.rlib and libchevron.so
shopt -s nullglob
python3 scripts/docs/snippets.py README.md docs/*.md
