#!/usr/bin/env bash
# Programs that carry a CUDA runtime linked in statically, under `chevron exec` on the CPU device:
# nvcc's default build (-cudart static: NVIDIA's runtime inside) is refused before it runs, in one
# line naming the program and the -cudart shared rebuild, with a non-zero status (it would look
# for NVIDIA's driver); the same source linked with chevron's libcudart.a (-cudart none) runs.
# Prints `static-runtime: N passed, 0 failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/target/static-runtime"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
scripts/build-workspace -q
chevron="$root/target/debug/chevron"
passed=0

nice "$bin/nvcc" -o "$out/square-static" tests/install/square.cu
status=0
"$chevron" exec --device cpu "$out/square-static" >"$out/static.stdout" 2>"$out/static.stderr" || status=$?
[[ $status != 0 && ! -s $out/static.stdout ]] \
    || { echo "static-runtime: nvcc's default build was not refused (status $status)" >&2; exit 1; }
[[ $(wc -l <"$out/static.stderr") == 1 ]] \
    && grep -q "square-static carries NVIDIA's CUDA runtime linked in statically.*-cudart shared" "$out/static.stderr" \
    || { echo "static-runtime: unexpected message:" >&2; cat "$out/static.stderr" >&2; exit 1; }
echo "nvcc default (-cudart static): refused in one line"
passed=$((passed + 1))

status=0
CHEVRON_DEVICES=cpu LD_PRELOAD="$root/target/debug/libchevron_driver.so:$root/target/debug/libcuda.so" \
    "$out/square-static" >"$out/preloaded.stdout" 2>"$out/preloaded.stderr" || status=$?
first_table="cuGetExportTable: table {f8cff951-2146-8b4e-b9e2-fb469e7c0dd9} (unnamed: CUDA 13's"
[[ $status == 1 ]] && grep -qF "$first_table" "$out/preloaded.stderr" \
    && grep -q "requested from square-static+0x[0-9a-f]* is not served by chevron" "$out/preloaded.stderr" \
    || { echo "static-runtime: preloaded run (status $status):" >&2; cat "$out/preloaded.stderr" >&2; exit 1; }
echo "nvcc default, driver library preloaded: table requests refused by UUID and caller, no crash"
passed=$((passed + 1))

nice "$bin/nvcc" -cudart none -o "$out/square-chevron" tests/install/square.cu \
    target/debug/libcudart.a -lpthread -ldl -lm
result="$("$chevron" exec --device cpu "$out/square-chevron")"
[[ $result == "sum of squares 332833500" ]] \
    || { echo "static-runtime: chevron's static runtime printed '$result'" >&2; exit 1; }
echo "chevron's libcudart.a (-cudart none): runs"
passed=$((passed + 1))
echo "static-runtime: $passed passed, 0 failed"
