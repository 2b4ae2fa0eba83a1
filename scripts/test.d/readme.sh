#!/usr/bin/env bash
# The code blocks of README.md and docs/*.md, run as a reader would copy them (shell under bash
# and zsh, Rust programs against the chevron crate, C programs against libchevron) on the CPU
# device: see scripts/docs/snippets.py, which also says how a block is kept out of CI (`no-ci:
# REASON`; a block without a reason fails). scripts/docs/references.py then checks what every
# page names, in blocks of any kind and inline code: `chevron` subcommands and their options
# (against `chevron SUB --help`), repository paths, `CHEVRON_*` variables.
# docs/build-without-gpu.md runs as a newcomer follows it, every block: in a home of its own, so
# that its `scripts/install` fills a fresh ~/.local whose chevron the later blocks run (with the
# dev profile, CHEVRON_INSTALL_PROFILE=dev, the test build, instead of a release build).
# Installs zsh, clang-22 and libmlir-22 when missing (apt-get). Prints
# `docs: N passed, N failed, N not run (no-ci)`, for the newcomer page then for the rest, and
# `docs references: … N wrong` for all pages.
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

newcomer=docs/build-without-gpu.md
home="$root/target/newcomer-home"
rm -rf "$home" target/first-program
mkdir -p "$home"
# cargo and rustup find their homes through HOME unless told.
status=0
CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" HOME="$home" \
    CHEVRON_INSTALL_PROFILE=dev python3 scripts/docs/snippets.py "$newcomer" || status=1
[[ -x $home/.local/bin/chevron && -e $home/.local/lib/pkgconfig/chevron.pc ]] \
    || { echo "docs: $newcomer did not install chevron into ~/.local" >&2; status=1; }

shopt -s nullglob
pages=()
for page in README.md docs/*.md; do
    [[ $page == "$newcomer" ]] || pages+=("$page")
done
python3 scripts/docs/snippets.py "${pages[@]}" || status=1
python3 scripts/docs/references.py README.md docs/*.md || status=1
exit "$status"
