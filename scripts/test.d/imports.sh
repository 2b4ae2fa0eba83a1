#!/usr/bin/env bash
# The layering of crates/chevron/src and crates/chevron-cudart/src (docs/architecture-imports.md):
# - `scripts/imports --check` passes: no upward import or cycle across folders beyond its KNOWN
#   list, and no KNOWN entry that no longer occurs;
# - the check has teeth: a copy of the sources with an upward import added back (the CPU
#   backend naming the runtime, cudart's error table naming its launches) fails it, naming the
#   import, and so does a copy with a cycle between two folders of one layer;
# docs/architecture-imports.{dot,md} are refreshed by running `scripts/imports` (not checked
# here, so merges that move imports within the rules need no regenerated drawing).
# Takes about three seconds; no build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/imports --check

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
expect_failure() { # NAME FILE LINE EXPECTED
    rm -rf "$work/tree"
    mkdir -p "$work/tree/crates/chevron" "$work/tree/crates/chevron-cudart"
    cp -r crates/chevron/src "$work/tree/crates/chevron/"
    cp -r crates/chevron-cudart/src "$work/tree/crates/chevron-cudart/"
    echo "$3" >>"$work/tree/$2"
    if out="$(scripts/imports --check --root "$work/tree")"; then
        echo "FAIL: $1: the check passed"; exit 1
    fi
    grep -qF "new violation: $4" <<<"$out" || { echo "FAIL: $1: $out"; exit 1; }
    echo "ok: $1 is caught ($4)"
}
expect_failure "an upward import" crates/chevron/src/backend/cpu/worker.rs \
    "use crate::runtime::Runtime;" "chevron: backend/cpu -> runtime (upward)"
expect_failure "an upward inline path" crates/chevron-cudart/src/errors.rs \
    "fn f() { crate::launch::nothing(); }" "chevron-cudart: errors -> launch (upward)"
expect_failure "a cycle in one layer" crates/chevron/src/error.rs \
    "use super::host_range::X;" "chevron: error -> host_range (cycle)"

echo "imports: layering checked"
