#!/usr/bin/env bash
# Instruments every kernel of every corpus PTX file with every hook (entry/exit, basic blocks,
# global accesses), links it with the counting tool of chevron-ptx's tests, prints it and
# assembles the printed text with ptxas 13.0 (-c) for the file's own .target; fails if ptxas
# rejects any of them. Installs ptxas like ptxas-roundtrip.sh (PyPI nvidia-cuda-nvcc==13.0.*).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
deps="$root/.deps/nvcc"
find_ptxas() { [[ -d "$deps" ]] && find "$deps" -type f -name ptxas -perm -u+x | head -n 1 || true; }
ptxas="$(find_ptxas)"
if [[ -z "$ptxas" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$deps" \
        "nvidia-cuda-nvcc==13.0.*" >&2 ||
        { echo "ptxas-instrument: FAILED to install nvidia-cuda-nvcc==13.0.* from PyPI" >&2; exit 1; }
    ptxas="$(find_ptxas)"
fi
[[ -n "$ptxas" ]] || { echo "ptxas-instrument: no ptxas inside $deps" >&2; exit 1; }

scripts/build-workspace --quiet   # the ptx_instrument example among the rest: cargo test's build
instrumenter="$root/target/debug/examples/ptx_instrument"
tool="$root/crates/chevron-ptx/tests/data/tools/count_hooks.ptx"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Checks one file; prints "PASS file" or "FAIL file: reason" (the reason on the lines after).
check() {
    local file="$1" name arch out number version
    name="$(echo "$file" | tr '/' '_')"
    out="$work/$name"
    arch="$(sed -n 's/^[[:space:]]*\.target[[:space:]]\{1,\}\([a-z0-9_]*\).*/\1/p' "$file" | head -n 1)"
    [[ "$arch" == sm_* ]] || arch=sm_80
    number="${arch#sm_}"
    number="${number%%[!0-9]*}"
    if [[ -z "$number" || "$number" -lt 75 ]]; then arch=sm_75; fi
    if ! "$instrumenter" "$file" "$tool" >"$out" 2>"$out.err"; then
        echo "FAIL $file: cannot instrument it"; sed 's/^/    /' "$out.err"; return
    fi
    # ptxas 13.0 reads PTX ISA up to 9.0 (as in ptxas-roundtrip.sh).
    version="$(sed -n 's/^[[:space:]]*\.version[[:space:]]\{1,\}\([0-9.]*\).*/\1/p' "$out" | head -n 1)"
    if [[ "${version%%.*}" -gt 9 || "$version" == 9.[1-9]* ]]; then
        sed -i 's/^\.version .*/.version 9.0/' "$out"
    fi
    if ! "$ptxas" -c -arch="$arch" -o /dev/null "$out" >"$out.err" 2>&1; then
        echo "FAIL $file: ptxas -arch=$arch rejects the instrumented text"
        sed 's/^/    /' "$out.err" | head -n 20; return
    fi
    echo "PASS $file"
}
export -f check
export instrumenter tool ptxas work

find corpus -name '*.ptx' | sort | xargs -P "$(nproc)" -I{} bash -c 'check "$1"' _ {} >"$work/results"
grep -v '^PASS' "$work/results" || true
passed="$(grep -c '^PASS' "$work/results" || true)"
failed="$(grep -c '^FAIL' "$work/results" || true)"
echo "ptxas-instrument: $passed passed, $failed failed"
[[ "$passed" -gt 0 && "$failed" -eq 0 ]]
