#!/usr/bin/env bash
# The tables of the CUDA runtime and driver APIs in docs/cuda-programs.md and docs/driver.md
# (scripts/api-table) match the code:
# - `scripts/api-table --check` passes on this checkout;
# - the check has teeth: a copy of the sources with a function taken off the runtime's
#   `unsupported!` list (so no longer exported) and a copy with a driver function added to
#   `implemented()` each fail it, a copy without one per-thread form (`_ptsz`) is refused
#   naming it, and a copy with a new exporting macro the script cannot read is refused;
# - every per-thread form (`_ptds`/`_ptsz`) the headers declare is exported.
# Takes under a second; no build (the headers come from scripts/deps/cuda_nvcc.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/api-table --check

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy_tree() {
    rm -rf "$work/tree"
    mkdir -p "$work/tree/crates/chevron-cudart" "$work/tree/crates/chevron-driver"
    cp -r crates/chevron-cudart/src "$work/tree/crates/chevron-cudart/"
    cp -r crates/chevron-driver/src "$work/tree/crates/chevron-driver/"
    cp -r docs "$work/tree/"
}
expect_stale() { # NAME DOC
    if out="$(scripts/api-table --check --root "$work/tree" 2>&1)"; then
        echo "FAIL: $1: the check passed"; exit 1
    fi
    grep -qF "differs from the code" <<<"$out" && grep -qF "$2" <<<"$out" \
        || { echo "FAIL: $1: $out"; exit 1; }
    echo "ok: $1 is caught ($2)"
}

copy_tree
sed -i 's/\bcudaIpcGetMemHandle, //' "$work/tree/crates/chevron-cudart/src/unsupported.rs"
expect_stale "a runtime function no longer exported" docs/cuda-programs.md
grep -qF '| `cudaIpcGetMemHandle` | not provided |' "$work/tree/docs/cuda-programs.md" && exit 1
scripts/api-table --root "$work/tree" >/dev/null
grep -qF '| `cudaIpcGetMemHandle` | not provided |' "$work/tree/docs/cuda-programs.md" \
    || { echo "FAIL: the rewritten table does not list cudaIpcGetMemHandle as not provided"; exit 1; }
echo "ok: the rewritten table says cudaIpcGetMemHandle is not provided"

copy_tree
sed -i 's/\bcuArrayGetPlane,//' "$work/tree/crates/chevron-driver/src/unsupported.rs"
sed -i 's/^\(\s*\)context::cuInit,/&\n\1memory::cuArrayGetPlane,/' \
    "$work/tree/crates/chevron-driver/src/proc_address.rs"
expect_stale "a driver function newly implemented" docs/driver.md

copy_tree
sed -i 's/^\(\s*\)per_thread::cuStreamQuery_ptsz,//' \
    "$work/tree/crates/chevron-driver/src/proc_address.rs"
if out="$(scripts/api-table --root "$work/tree" 2>&1)"; then
    echo "FAIL: a per-thread form no longer exported passed"; exit 1
fi
grep -qF 'driver per-thread forms not exported: cuStreamQuery_ptsz' <<<"$out" \
    || { echo "FAIL: $out"; exit 1; }
echo "ok: a per-thread form no longer exported is named"

copy_tree
printf 'macro_rules! exports {\n    ($n:ident) => {\n        #[no_mangle]\n        pub extern "C" fn $n() {}\n    };\n}\n' \
    >>"$work/tree/crates/chevron-cudart/src/device.rs"
if out="$(scripts/api-table --check --root "$work/tree" 2>&1)"; then
    echo "FAIL: an unread exporting macro passed"; exit 1
fi
grep -qF 'macro `exports!` exports functions' <<<"$out" || { echo "FAIL: $out"; exit 1; }
echo "ok: an exporting macro the script cannot read is refused"
echo "api-table: the tables match the code"
