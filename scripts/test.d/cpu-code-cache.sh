#!/usr/bin/env bash
# The CPU device's code cache as a program run twice sees it (docs/cpu-compiled.md): the
# first run compiles saxpy, interpreting its first blocks meanwhile, and writes the kernel's
# record; the second run's first launch takes the kernel from the record at once and runs
# compiled from its first block (it never says "interpreted until the code is ready"); both
# runs give the right numbers in those first blocks. A cache of its own in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build-workspace --quiet   # the chevron CLI among the rest: cargo test's build
chevron=target/debug/chevron
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
n=$((1 << 20))
run() {
    env XDG_CACHE_HOME="$tmp/cache" CHEVRON_CPU_EXEC=auto CHEVRON_CPU_DETERMINISTIC=0 \
        CHEVRON_CPU_COMPILE_LOG=1 CHEVRON_CPU_THREADS=1 \
        "$chevron" run crates/chevron-cpu-jit/examples/bench/kernels.ptx saxpy \
        --grid $((n / 256)) --block 256 --arg "f32[$n]=iota" --arg "f32[$n]=fill:1" \
        --arg f32:2 --arg u32:$n --print 1:8
}
run >"$tmp/first.out" 2>"$tmp/first.err"
run >"$tmp/second.out" 2>"$tmp/second.err"
fail() { echo "cpu-code-cache: $1"; cat "$tmp/first.err" "$tmp/second.err"; exit 1; }
ls "$tmp/cache/chevron/cpu-code/"*.kernel >/dev/null 2>&1 || fail "no kernel record written"
grep -q "interpreted until the code is ready" "$tmp/first.err" || fail "first run not tiered"
grep -q "interpreted until the code is ready" "$tmp/second.err" && fail "second run interpreted"
grep -q "3 of 3 functions from the code cache" "$tmp/second.err" ||
    fail "second run not from the cache"
want="arg 1 (first 8 of $n): [1.0,3.0,5.0,7.0,9.0,11.0,13.0,15.0]"
for r in first second; do
    grep -qxF "$want" "$tmp/$r.out" || fail "$r run: $(grep '^arg' "$tmp/$r.out")"
done
echo "cpu-code-cache: ok (second run compiled from its first block, right output)"
