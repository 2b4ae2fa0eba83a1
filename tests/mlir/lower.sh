#!/usr/bin/env bash
# Lowers every tests/mlir/*.mlir program with MLIR/LLVM 22:
#   NAME.mlir --mlir-opt-22 (one run per "// OPT:" line, piped in order)-->
#   --mlir-translate-22 --mlir-to-llvmir--> tests/mlir/lowered/NAME.ll (committed)
#   --clang-22 -O2 -c--> target/mlir/NAME.o
# and extracts the module embedded in each .ll into corpus/mlir/NAME[.MODULE].{ptx,cubin,fatbin}.
# Programs lowered with cubin-format=bin or fatbin need ptxas/fatbinary: they come from
# scripts/deps/cuda_nvcc.sh (CUDA 13.0 from PyPI).
# Each program states its mlir-opt arguments in header comments, shell-quoted, e.g.
#   // OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
# Usage: tests/mlir/lower.sh [NAME...]   (default: all programs)
# With LLVM_VERSION=19 (Debian mlir-19-tools), the programs are lowered with MLIR 19 instead,
# into tests/mlir/lowered-llvm19/, target/mlir-llvm19/ and corpus/mlir-llvm19/ (the object is
# still made by clang-22).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${LLVM_VERSION:-22}"
for t in "mlir-opt-$version" "mlir-translate-$version" clang-22; do
    command -v "$t" >/dev/null || { echo "lower.sh: $t missing: run scripts/deps/mlir.sh" >&2; exit 1; }
done
suffix=""
[[ $version == 22 ]] || suffix="-llvm$version"
out_ll="$here/lowered$suffix"
out_obj="$root/target/mlir$suffix"
out_ptx="$root/corpus/mlir$suffix"
mkdir -p "$out_ll" "$out_obj" "$out_ptx"

# opt_stages FILE STAGE_OUTPUT: runs mlir-opt-22 once per "// OPT:" line of FILE, piped.
opt_stages() {
    local src="$1" input="$1" tmp i=0
    local -a stages
    mapfile -t stages < <(sed -n 's|^// OPT: *||p' "$src")
    [[ ${#stages[@]} -gt 0 ]] || { echo "lower.sh: $src has no // OPT: line" >&2; return 1; }
    for line in "${stages[@]}"; do
        eval "local -a args=($line)"
        tmp="$2.stage$i"
        "mlir-opt-$version" "${args[@]}" "$input" -o "$tmp"
        input="$tmp"
        i=$((i + 1))
    done
    mv "$input" "$2"
    rm -f "$2".stage*
}

if [[ $# -gt 0 ]]; then
    programs=("$@")
else
    programs=()
    for f in "$here"/*.mlir; do programs+=("$(basename "$f" .mlir)"); done
fi

for name in "${programs[@]}"; do
    src="$here/$name.mlir"
    if grep -q '^// OPT:.*format=\(bin\|fatbin\)' "$src" && ! command -v ptxas >/dev/null; then
        PATH="$PATH:$(bash "$root/scripts/deps/cuda_nvcc.sh")"
    fi
    opt_stages "$src" "$out_obj/$name.llvm.mlir"
    "mlir-translate-$version" --mlir-to-llvmir "$out_obj/$name.llvm.mlir" -o "$out_ll/$name.ll"
    # clang (not llc) so that the coroutines of the async runtime lowering get split.
    clang-22 -O2 -c -fPIC -Wno-override-module "$out_ll/$name.ll" -o "$out_obj/$name.o"
    rm -f "$out_ptx/$name".ptx "$out_ptx/$name".*.ptx "$out_ptx/$name".cubin "$out_ptx/$name".fatbin
    python3 "$here/extract_modules.py" "$out_ll/$name.ll" "$out_ptx" "$name"
    echo "lowered $name" >&2
done
