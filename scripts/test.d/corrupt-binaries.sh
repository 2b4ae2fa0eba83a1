#!/usr/bin/env bash
# CUDA executables whose embedded fatbin is damaged after linking (scripts/corrupt_fatbin.py:
# the container's header size 0xFFFF, its entry bytes 2^40, an entry's header or payload size
# past the end, a cubin entry's ELF cut short, a compressed entry claiming 2^40 bytes) — and the
# same damages to the translation units' fatbins of a -rdc=true build (`__nv_relfatbin`) — run under
# `chevron exec --device cpu` with a virtual-memory cap (`ulimit -v`) and a timeout, so that an
# abort cannot hide as an OOM kill. Each must print chevron's one-line `corrupted fatbin …`
# error and end with the program's line naming a CUDA error code — never a crash. The intact
# program prints its result. Builds tests/cudart/corrupt_fatbin.cu with nvcc 13.0 (cached under
# target/cudart/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/target/cudart"
mkdir -p "$out"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
program="$out/corrupt_fatbin"
for flavour in "" -rdc; do
    if [[ ! -e $program$flavour || tests/cudart/corrupt_fatbin.cu -nt $program$flavour ]]; then
        nice "$bin/nvcc" -cudart shared ${flavour:+-rdc=true} -arch=sm_90 -L"$nvlib" \
            -Xlinker -rpath -Xlinker "$toolkit/lib" -o "$program$flavour" tests/cudart/corrupt_fatbin.cu
    fi
done
scripts/build-workspace -q
chevron="$root/target/debug/chevron"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
vmem_kb=$((4 << 20))   # 4 GiB of address space: far above what the program needs

# run NAME PROGRAM: runs it capped; sets rc, last (its last line of output) and err.
run() {
    rc=0
    (ulimit -v "$vmem_kb"; exec timeout 60 "$chevron" exec --device cpu "$2") \
        >"$work/$1.out" 2>"$work/$1.err" || rc=$?
    last="$(tail -n1 "$work/$1.out")"
    err="$(cat "$work/$1.err")"
}

failed=0
# PROGRAM SECTION CASES...: the units' cubins of a -rdc build are compressed, so no `elf` there.
all="header_size fat_size entry_offset entry_size elf inflate"
for target in "$program .nv_fatbin $all" "$program-rdc __nv_relfatbin ${all/elf /}"; do
    read -r built section cases <<<"$target"
    name="$(basename "$built")"
    run "$name" "$built"
    [[ $rc == 0 && $last == "corrupt_fatbin: ok 42" ]] \
        || { echo "corrupt-binaries: intact $name failed ($rc): $last $err" >&2; exit 1; }
    echo "$name intact: ok"
    for case in $cases; do
        python3 scripts/corrupt_fatbin.py "$built" "$work/$case" "$case" "$section"
        chmod +x "$work/$case"
        run "$case" "$work/$case"
        lines="$(grep -c 'corrupted fatbin' "$work/$case.err" || true)"
        if (( rc >= 124 )) || [[ $lines != 1 || $last != "corrupt_fatbin: error "* ]]; then
            echo "corrupt-binaries: $name $section $case: exit $rc, last line '$last', stderr:" >&2
            head -c 2000 "$work/$case.err" >&2
            failed=$((failed + 1))
            continue
        fi
        echo "$name $case: ok ($(grep 'corrupted fatbin' "$work/$case.err" | cut -c1-150); ${last#corrupt_fatbin: })"
    done
done
(( failed == 0 )) || { echo "corrupt-binaries: $failed cases failed" >&2; exit 1; }
echo "corrupt-binaries: ok"
