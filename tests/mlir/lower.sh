#!/usr/bin/env bash
# Lowers tests/mlir/*.mlir programs with MLIR/LLVM 22:
#   NAME.mlir --mlir-opt-22 (one run per "// OPT:" line, piped in order)-->
#   --mlir-translate-22 --mlir-to-llvmir--> tests/mlir/lowered/NAME.ll     (committed)
#   --clang-22 -O2 -S -fPIC -fno-addrsig--> tests/mlir/asm/NAME.s          (committed)
# and extracts the module embedded in each .ll into corpus/mlir/NAME[.MODULE].{ptx,cubin,fatbin}.
# The .s files assemble with GNU as (`cc -c`), so using the programs needs no LLVM at all
# (tests/mlir/run_programs.sh). clang, not llc: async_execute's coroutines (llvm.coro.*, from the
# async runtime lowering) must be split by the optimisation pipeline; llc-22 aborts on them.
# Programs lowered with cubin-format=bin or fatbin need ptxas/fatbinary: they come from
# scripts/deps/cuda_nvcc.sh (CUDA 13.0 from PyPI).
# Each program states its mlir-opt arguments in header comments, shell-quoted, e.g.
#   // OPT: -gpu-lower-to-nvvm-pipeline="cubin-format=isa cubin-chip=sm_80 cubin-features=+ptx80"
# Usage: tests/mlir/lower.sh [NAME...]   (default: all programs)
# With LLVM_VERSION=19 (Debian mlir-19-tools, `scripts/deps/mlir.sh 19`), the programs are
# lowered with MLIR 19 instead, into lowered-llvm19/, asm-llvm19/ and corpus/mlir-llvm19/ (the
# assembly is still made by clang-22).
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
out_asm="$here/asm$suffix"
out_ptx="$root/corpus/mlir$suffix"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out_ll" "$out_asm" "$out_ptx"

# opt_stages FILE OUTPUT: runs mlir-opt once per "// OPT:" line of FILE, piped.
opt_stages() {
    local src="$1" input="$1" i=0
    local -a stages
    mapfile -t stages < <(sed -n 's|^// OPT: *||p' "$src")
    [[ ${#stages[@]} -gt 0 ]] || { echo "lower.sh: $src has no // OPT: line" >&2; return 1; }
    for line in "${stages[@]}"; do
        eval "local -a args=($line)"
        "mlir-opt-$version" "${args[@]}" "$input" -o "$work/stage$i.mlir"
        input="$work/stage$i.mlir"
        i=$((i + 1))
    done
    mv "$input" "$2"
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
    opt_stages "$src" "$work/$name.llvm.mlir"
    "mlir-translate-$version" --mlir-to-llvmir "$work/$name.llvm.mlir" -o "$out_ll/$name.ll"
    clang-22 -O2 -S -fPIC -fno-addrsig -Wno-override-module "$out_ll/$name.ll" \
        -o "$out_asm/$name.s"
    rm -f "$out_ptx/$name".ptx "$out_ptx/$name".*.ptx "$out_ptx/$name".cubin "$out_ptx/$name".fatbin
    python3 "$here/extract_modules.py" "$out_ll/$name.ll" "$out_ptx" "$name" >/dev/null
    echo "lowered $name" >&2
done
# cuobjdump views of new cubins/fatbins in corpus/
if compgen -G "$root/corpus/mlir$suffix/*bin" >/dev/null; then
    bash "$root/scripts/corpus/dump_objects.sh"
fi
