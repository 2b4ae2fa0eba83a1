#!/usr/bin/env bash
# Prints every corpus PTX file (and the hand-written samples of chevron-ptx/tests/data) through
# chevron-ptx (parse, then print) and assembles the printed text with ptxas 13.0 (-c: relocatable,
# so -rdc files with unresolved externs assemble) for the file's own .target; fails if ptxas
# rejects any of them.
# Installs ptxas from PyPI (nvidia-cuda-nvcc==13.0.*) into .deps/nvcc once; fails if it cannot.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
deps="$root/.deps/nvcc"
find_ptxas() { [[ -d "$deps" ]] && find "$deps" -type f -name ptxas -perm -u+x | head -n 1 || true; }
ptxas="$(find_ptxas)"
if [[ -z "$ptxas" ]]; then
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$deps" \
        "nvidia-cuda-nvcc==13.0.*" >&2 ||
        { echo "ptxas-roundtrip: FAILED to install nvidia-cuda-nvcc==13.0.* from PyPI" >&2; exit 1; }
    ptxas="$(find_ptxas)"
fi
[[ -n "$ptxas" ]] || { echo "ptxas-roundtrip: no ptxas inside $deps" >&2; exit 1; }
"$ptxas" --version >/dev/null || { echo "ptxas-roundtrip: $ptxas does not run" >&2; exit 1; }

scripts/build-workspace --quiet   # the ptx_print example among the rest
printer="$root/target/debug/examples/ptx_print"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Checks one file; prints "PASS file" or "FAIL file: reason" (the reason on the lines after).
check() {
    local file="$1" name arch out
    name="$(echo "$file" | tr '/' '_')"
    out="$work/$name"
    arch="$(sed -n 's/^[[:space:]]*\.target[[:space:]]\{1,\}\([a-z0-9_]*\).*/\1/p' "$file" | head -n 1)"
    [[ "$arch" == sm_* ]] || arch=sm_80
    # ptxas 13 supports sm_75 and newer; older targets assemble for sm_75.
    local number="${arch#sm_}"
    number="${number%%[!0-9]*}"
    if [[ -z "$number" || "$number" -lt 75 ]]; then arch=sm_75; fi
    if ! "$printer" "$file" >"$out" 2>"$out.err"; then
        echo "FAIL $file: chevron-ptx cannot parse it"; sed 's/^/    /' "$out.err"; return
    fi
    # ptxas 13.0 reads PTX ISA up to 9.0: newer files (Triton bundles a newer ptxas) are
    # assembled with their .version lowered to 9.0, original and printed text alike.
    local original="$file" version
    version="$(sed -n 's/^[[:space:]]*\.version[[:space:]]\{1,\}\([0-9.]*\).*/\1/p' "$file" | head -n 1)"
    if [[ "${version%%.*}" -gt 9 || "$version" == 9.[1-9]* ]]; then
        sed -i 's/^\.version .*/.version 9.0/' "$out"
        original="$out.original"
        sed 's/^[[:space:]]*\.version .*/.version 9.0/' "$file" >"$original"
    fi
    if ! "$ptxas" -c -arch="$arch" -o /dev/null "$out" >"$out.err" 2>&1; then
        if "$ptxas" -c -arch="$arch" -o /dev/null "$original" >/dev/null 2>&1; then
            echo "FAIL $file: ptxas -arch=$arch rejects the printed text"
        else
            echo "FAIL $file: ptxas -arch=$arch rejects the original too"
        fi
        sed 's/^/    /' "$out.err" | head -n 20; return
    fi
    echo "PASS $file"
}
export -f check
export printer ptxas work

find corpus crates/chevron-ptx/tests/data -name '*.ptx' | sort | xargs -P "$(nproc)" -I{} bash -c 'check "$1"' _ {} >"$work/results"
grep -v '^PASS' "$work/results" || true
passed="$(grep -c '^PASS' "$work/results" || true)"
failed="$(grep -c '^FAIL' "$work/results" || true)"
echo "ptxas-roundtrip: $passed passed, $failed failed"
[[ "$passed" -gt 0 && "$failed" -eq 0 ]]
