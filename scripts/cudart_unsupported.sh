#!/usr/bin/env bash
# Lists the functions NVIDIA's libcudart.so.13 exports that chevron's CUDA runtime does not
# implement: the names for the unsupported! list in crates/chevron-cudart/src/unsupported.rs.
# Needs the toolkit from scripts/deps/cuda_nvcc.sh. Prints one name per line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="$root/.deps/cuda/nvidia/cu13/lib/libcudart.so.13"
[[ -e $lib ]] || "$root/scripts/deps/cuda_nvcc.sh" >/dev/null
src="$root/crates/chevron-cudart/src"
# Written out (`fn cudaNAME(`), or exported by a macro invoked as `m!(cudaNAME, …)` (as
# scripts/api-table reads them).
implemented=$( (grep -rhoE 'fn (cuda|__cuda)[A-Za-z0-9_]+\(' "$src" --exclude=unsupported.rs \
        | sed -E 's/^fn //; s/\($//'
    grep -rhoE '\b[a-z0-9_]+!\s*\(\s*(cuda|__cuda)[A-Za-z0-9_]+' "$src" --exclude=unsupported.rs \
        | sed -E 's/^.*\(\s*//') | sort -u)
nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u \
    | comm -23 - <(echo "$implemented")
