#!/usr/bin/env bash
# Links every lowered program (target/mlir/NAME.o from lower.sh) against the tracing mgpu* stub
# (mgpu_stub.c) and the memref printer (print_memref.c; async_execute also needs Debian's
# libmlir_async_runtime), runs it, and writes the call trace to tests/mlir/traces/NAME.trace. No GPU needed: the stub runs no kernel. The link line is the one
# a real mgpu* library (chevron-capi) uses in place of mgpu_stub.o.
# Usage: tests/mlir/run_stub.sh [NAME...]   (default: all programs)
# With LLVM_VERSION=19: the objects of the MLIR 19 lowering, traces into traces-llvm19/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version="${LLVM_VERSION:-22}"
suffix=""
[[ $version == 22 ]] || suffix="-llvm$version"
obj="$root/target/mlir$suffix"
traces="$here/traces$suffix"
libdir="/usr/lib/llvm-$version/lib"
mkdir -p "$obj" "$traces"
clang-22 -O1 -c -fPIC -Wall -Wextra "$here/mgpu_stub.c" -o "$obj/mgpu_stub.o"
clang-22 -O1 -c -fPIC -Wall -Wextra "$here/print_memref.c" -o "$obj/print_memref.o"

if [[ $# -gt 0 ]]; then
    programs=("$@")
else
    programs=()
    for f in "$here"/*.mlir; do programs+=("$(basename "$f" .mlir)"); done
fi

for name in "${programs[@]}"; do
    [[ -e "$obj/$name.o" ]] || bash "$here/lower.sh" "$name"
    async=()
    [[ $name == async_execute ]] && async=("$libdir/libmlir_async_runtime.so.22.1" -Wl,-rpath,"$libdir")
    clang-22 "$obj/$name.o" "$obj/mgpu_stub.o" "$obj/print_memref.o" "${async[@]}" -lpthread \
        -o "$obj/$name"
    MGPU_STUB_TRACE="$traces/$name.trace" timeout 60 "$obj/$name" >"$obj/$name.stdout"
    echo "traced $name: $(wc -l <"$traces/$name.trace") calls" >&2
done
