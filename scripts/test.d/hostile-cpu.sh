#!/usr/bin/env bash
# Hostile input on the CPU device, from the CLI and from a C host, under an address-space cap
# (ulimit -v) so that an abort cannot hide as an out-of-memory kill: oversized declarations
# (registers, .local, .shared, .global, parameter space) are one-line errors with exit status 2,
# runaway recursion is the call-depth fault, printf is bounded and streamed, a spinning kernel
# ends at --timeout naming its PTX line, a block waiting on a block that never starts is a
# deadlock, and CHEVRON_CPU_DEVICES=0 says the CPU backend is off. About 15 s on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts/build-workspace -q   # the chevron CLI and libchevron, sharing cargo test's build
chevron="$root/target/debug/chevron"
lib="$root/target/debug"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cap_kib=$((6 * 1024 * 1024))
header=$'.version 7.0\n.target sm_70\n.address_size 64\n'
passed=0

# expect NAME STATUS NEEDLE -- COMMAND...: COMMAND (under the cap) exits with STATUS within 60 s
# and its stderr holds NEEDLE on one line.
expect() {
    local name="$1" status="$2" needle="$3"
    shift 4
    local rc=0
    (ulimit -v "$cap_kib"; timeout 60 "$@") >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    if [[ $rc != "$status" ]] || ! grep -qF -- "$needle" "$tmp/$name.err"; then
        echo "$name: exit $rc (expected $status), stderr:"
        cat "$tmp/$name.err"
        exit 1
    fi
    echo "$name: ok ($(grep -F -- "$needle" "$tmp/$name.err" | head -c 160))"
    passed=$((passed + 1))
}

ptx() { printf '%s%s\n' "$header" "$2" >"$tmp/$1.ptx"; }
ptx registers '.visible .entry k() { .reg .b32 %r<2000000000>; ret; }'
ptx local '.visible .entry k() { .local .align 4 .b8 buf[2147483648]; ret; }'
ptx shared '.shared .align 4 .b8 big[4294967296];
.visible .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, big; ret; }'
ptx global '.global .align 4 .b8 big[16000000000];
.visible .entry k() { ret; }'
ptx params '.visible .entry k(.param .align 4 .b8 p[40000]) { ret; }'
ptx recursion '.func f() { .reg .b32 %r<20000>; call f, (); ret; }
.visible .entry k() { call f, (); ret; }'
ptx spin '.visible .entry k()
{
.reg .b32 %r<2>;
LOOP:
add.u32 %r1, %r1, 1;
bra LOOP;
}'
ptx wait_for_later '.visible .entry k(.param .u64 flag) {
.reg .b32 %r<3>; .reg .b64 %rd<3>; .reg .pred %p<2>;
ld.param.u64 %rd1, [flag]; cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r1, %ctaid.x; setp.eq.u32 %p1, %r1, 1; @%p1 bra SET;
WAIT: ld.volatile.global.u32 %r2, [%rd2]; setp.eq.u32 %p1, %r2, 0; @%p1 bra WAIT;
ret;
SET: st.volatile.global.u32 [%rd2], 1; ret; }'
# printf(FORMAT, 7, 7) COUNT times (the `count` parameter) per thread.
printf_ptx() {
    local bytes
    bytes="$(printf '%s' "$2" | od -An -tu1 -v | tr -s ' \n' ',' | sed 's/^,//')0"
    ptx "$1" ".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);
.global .align 1 .b8 fmt[$(( ${#2} + 1 ))] = {$bytes};
.visible .entry k(.param .u32 count) {
.local .align 8 .b8 args[8]; .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
ld.param.u32 %r1, [count]; mov.u32 %r2, 0;
mov.u64 %rd1, args; cvta.local.u64 %rd2, %rd1; st.local.u32 [%rd1], 7; st.local.u32 [%rd1+4], 7;
mov.u64 %rd3, fmt; cvta.global.u64 %rd3, %rd3;
LOOP: setp.ge.u32 %p1, %r2, %r1; @%p1 bra DONE;
{ .param .b64 p0; st.param.b64 [p0], %rd3; .param .b64 p1; st.param.b64 [p1], %rd2;
.param .b32 r0; call.uni (r0), vprintf, (p0, p1); }
add.u32 %r2, %r2, 1; bra LOOP;
DONE: ret; }"
}
printf_ptx width '%999999999999d|%.100000f|%.*d'
printf_ptx endless $'line %d %d\n'

run=("$chevron" run --grid 1 --block 32)
expect registers 2 "registers, more than the 65536" -- "${run[@]}" "$tmp/registers.ptx" k
expect local 2 "Entry function 'k' uses too much local data" -- "${run[@]}" "$tmp/local.ptx" k
expect shared 2 "shared memory exceed" -- "${run[@]}" "$tmp/shared.ptx" k
expect global 2 "OUT_OF_MEMORY" -- env CHEVRON_CPU_MEMORY=11G "${run[@]}" "$tmp/global.ptx" k
expect params 2 "uses too much parameter space (0x9c40 bytes, 0x7ffc max)" -- \
    "${run[@]}" "$tmp/params.ptx" k
expect recursion 2 "calls nested deeper than" -- "${run[@]}" "$tmp/recursion.ptx" k
expect timeout 2 "did not finish within 1 s" -- "${run[@]}" --timeout 1 "$tmp/spin.ptx" k
grep -qF "32 at PTX line 8" "$tmp/timeout.err" || { echo "timeout: no PTX line"; exit 1; }
# A compiled kernel making progress in a loop is reported in its loop, not at its first line.
ptx count '.visible .entry k(.param .u64 out) {
.reg .b64 %rd<4>; .reg .pred %p<2>; mov.u64 %rd1, 0;
LOOP: add.u64 %rd1, %rd1, 1; setp.lt.u64 %p1, %rd1, 1000000000000; @%p1 bra LOOP;
ld.param.u64 %rd2, [out]; st.global.u64 [%rd2], %rd1; ret; }'
expect timeout-compiled 2 "32 live threads: threads 32 at PTX line 6" -- env CHEVRON_CPU_EXEC=compiled \
    "${run[@]}" --timeout 1 "$tmp/count.ptx" k --arg 'u64[1]=zeros'
expect deadlock 2 "deadlock in kernel \`k\`" -- env CHEVRON_CPU_DETERMINISTIC=1 \
    "$chevron" run --grid 2 --block 32 "$tmp/wait_for_later.ptx" k --arg 'u32[1]=zeros'
expect devices-off 2 "turned off by CHEVRON_CPU_DEVICES=0" -- \
    env CHEVRON_CPU_DEVICES=0 CHEVRON_DEVICES=cpu "${run[@]}" "$tmp/spin.ptx" k

# Huge widths and precisions print a bounded amount, quickly.
(ulimit -v "$cap_kib"; timeout 20 "$chevron" run --grid 1 --block 1 "$tmp/width.ptx" k --arg u32:1) \
    >"$tmp/width.out"
size=$(wc -c <"$tmp/width.out")
[[ $size -lt 65536 ]] || { echo "printf width: $size bytes"; exit 1; }
echo "printf-width: ok ($size bytes)"
passed=$((passed + 1))

# An endlessly printing kernel shows its output while it runs, in bounded memory.
rc=0
(ulimit -v "$cap_kib"; timeout 60 "$chevron" run --grid 4 --block 32 --timeout 3 "$tmp/endless.ptx" k \
    --arg u32:4000000000) >"$tmp/endless.out" 2>"$tmp/endless.err" || rc=$?
lines=$(wc -l <"$tmp/endless.out")
[[ $rc == 2 && $lines -gt 1000 ]] || { echo "endless printf: exit $rc, $lines lines"; exit 1; }
echo "printf-stream: ok ($lines lines before the deadline)"
passed=$((passed + 1))

# The same from a C host through libchevron.
for program in hostile_cpu hostile_ptx; do
    cc -std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Itests/capi "tests/capi/$program.c" \
        -L"$lib" -lchevron -Wl,-rpath,"$lib" -o "$tmp/$program"
    (ulimit -v "$cap_kib"; CHEVRON_DEVICES=cpu timeout 60 "$tmp/$program") >"$tmp/$program.out" 2>&1 ||
        { cat "$tmp/$program.out"; exit 1; }
    echo "$program: ok ($(tail -n1 "$tmp/$program.out"))"
    passed=$((passed + 1))
done
echo "hostile-cpu: $passed passed, 0 failed"
