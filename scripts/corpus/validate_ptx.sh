#!/usr/bin/env bash
# Assembles every PTX file of corpus/ with NVIDIA's ptxas, to show that each is valid PTX:
# ptxas 13.0.88 (scripts/deps/cuda_nvcc.sh), or for PTX ISA newer than 9.0 the ptxas 13.4 that
# Triton bundles (scripts/deps/triton.sh). The architecture is the file's .target, or sm_90
# where CUDA 13 no longer supports it (sm_50..sm_72); files with .extern declarations are
# assembled as relocatable (-c). Prints failures and a closing "N passed, N failed" line.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
ptxas="$(bash scripts/deps/cuda_nvcc.sh)/ptxas"
ptxas_new="$(bash scripts/deps/triton.sh)/triton/backends/nvidia/bin/ptxas-blackwell"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
passed=0
failed=0
while IFS= read -r -d '' f; do
    target="$(sed -n 's/^\.target \([a-z0-9_]*\).*/\1/p' "$f" | head -n1)"
    version="$(sed -n 's/^\.version \([0-9.]*\).*/\1/p' "$f" | head -n1)"
    case "$target" in sm_5? | sm_6? | sm_70 | sm_72) target=sm_90 ;; esac
    tool="$ptxas"
    [[ "${version%%.*}" -gt 9 || $version == 9.[1-9] ]] && tool="$ptxas_new"
    relocatable=()
    grep -q '^\.extern \.\(func\|global\)' "$f" && relocatable=(-c)
    if log="$("$tool" "-arch=$target" "${relocatable[@]}" "$f" -o "$out" 2>&1)"; then
        passed=$((passed + 1))
    else
        echo "FAIL $f: $log"
        failed=$((failed + 1))
    fi
done < <(find corpus -name '*.ptx' -print0 | sort -z)
echo "ptxas: $passed passed, $failed failed"
[[ $failed == 0 ]]
