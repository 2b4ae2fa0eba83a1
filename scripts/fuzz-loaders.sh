#!/usr/bin/env bash
# A longer mutation loop over chevron's code-object loaders than CI runs (CI runs the same
# program for 500 rounds in scripts/test.d/driver.sh; docs/hostile-inputs.md): mutated PTX,
# cubins and fatbins (nvcc 13.0's, uncompressed and compressed, from fuzz/binary_seeds.sh and
# tests/driver/kernels.cu) through cuModuleLoadData, cuModuleLoadFatBinary, cuLibraryLoadData,
# cuLinkAddData and the runtime's registration of a static program's fatbin
# (tests/driver/fuzz_loaders.c, under `chevron exec --device cpu`), then through
# `chevron inspect`, each for SECONDS, below an address-space cap (8 GiB), so that an
# unbounded allocation fails instead of passing unseen. A crash, a hang, a contained panic
# (CUDA_ERROR_UNKNOWN) or a panic of the CLI is reported with the input that caused it,
# kept under target/fuzz-loaders/. Replay one with
#   chevron exec --device cpu target/fuzz-loaders/fuzz_loaders DIR 0 0 0 INPUT
# Usage: scripts/fuzz-loaders.sh [SECONDS (default 300)] [SEED (default: the time)]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-300}"
seed="${2:-$(date +%s)}"
out="$root/target/fuzz-loaders"
mkdir -p "$out/seeds" "$out/run" "$out/inspect" "$out/failures"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
scripts/build-workspace -q
chevron="$root/target/debug/chevron"
library="$root/target/debug/libchevron_driver.so"

[[ -e $out/seeds/sm90.cubin ]] || fuzz/binary_seeds.sh "$out/seeds" >/dev/null 2>&1
for kind in ptx cubin fatbin; do
    [[ -e $out/seeds/kernels.$kind ]] \
        || nice "$bin/nvcc" -arch=sm_90 "-$kind" -o "$out/seeds/kernels.$kind" tests/driver/kernels.cu
done
# The link-time stub of libcuda.so (as scripts/test.d/driver.sh builds it).
nm -D --defined-only "$library" | awk '$2 == "T" && $3 ~ /^cu[A-Z]/ { print "void " $3 "(void) {}" }' \
    >"$out/stub.c"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$out/libcuda.so" "$out/stub.c"
cc -O1 -Wall -Werror -I"$toolkit/include" -Itests/driver -o "$out/fuzz_loaders" \
    tests/driver/fuzz_loaders.c -L"$out" -lcuda -ldl
mapfile -t inputs < <(find "$out/seeds" -type f -size -4M | sort)
cap_kib=$((8 * 1024 * 1024))

echo "fuzz-loaders: seed $seed, ${#inputs[@]} seed files, ${seconds}s per loop"
rc=0
(ulimit -v "$cap_kib"; timeout $((seconds + 120)) "$chevron" exec --device cpu \
    "$out/fuzz_loaders" "$out/run" "$seed" 0 "$seconds" "${inputs[@]}") \
    >"$out/run.stdout" 2>"$out/run.stderr" || rc=$?
tail -n 2 "$out/run.stdout"
if [[ $rc != 0 ]]; then
    kept="$out/failures/driver-$seed.bin"
    cp "$out/run/current.bin" "$kept"
    echo "fuzz-loaders: the driver's loaders failed (exit $rc) on $kept" >&2
    exit 1
fi

# chevron inspect: one process per input, batches of mutated files until the time is up.
start=$SECONDS
checked=0
failed=0
batch=0
while ((SECONDS - start < seconds)); do
    rm -f "$out/inspect"/input-*.bin
    "$chevron" exec --device cpu "$out/fuzz_loaders" --write "$out/inspect" $((seed + batch)) 200 \
        "${inputs[@]}" >/dev/null
    batch=$((batch + 1))
    for input in "$out/inspect"/input-*.bin; do
        status=0
        (ulimit -v "$cap_kib"; timeout 10 "$chevron" inspect "$input") >/dev/null 2>"$out/inspect.stderr" \
            || status=$?
        checked=$((checked + 1))
        # 0: listed; 1 or 2: an error it explains. A panic (101), a signal or a hang is a bug.
        if ((status > 2)); then
            failed=$((failed + 1))
            kept="$out/failures/inspect-$seed-$checked.bin"
            cp "$input" "$kept"
            echo "fuzz-loaders: chevron inspect exited $status on $kept: $(tail -n 1 "$out/inspect.stderr")" >&2
        fi
        ((SECONDS - start < seconds)) || break
    done
done
echo "fuzz-loaders: chevron inspect: $checked inputs, $failed failed"
((failed == 0))
