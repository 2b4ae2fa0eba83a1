#!/usr/bin/env bash
# On a GPU machine: the hostile modules of scripts/test.d/hostile-cpu.sh on cuda:0, next to the
# CPU device, so the words of each failure can be compared (parameter space, local data, shared
# memory, printf with huge widths and precisions, a deadline on a spinning kernel). Prints one
# block per case: the exit status and the first line of stderr on each device, and the size of
# the printf output.
#
# Build on the development machine and carry the binary over:
#   cargo build --release -p chevron-cli
#   mkdir -p carry/bin && cp target/release/chevron carry/bin/
set -uo pipefail
cd "$(dirname "$0")/../.."
chevron=${CHEVRON_BIN:-carry/bin/chevron}
[ -x "$chevron" ] || { echo "no chevron binary at $chevron (see the header of $0)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
header=$'.version 7.0\n.target sm_70\n.address_size 64\n'
ptx() { printf '%s%s\n' "$header" "$2" >"$tmp/$1.ptx"; }
ptx params '.visible .entry k(.param .align 4 .b8 p[40000]) { ret; }'
ptx local '.visible .entry k() { .local .align 4 .b8 buf[2147483648]; .reg .b64 %rd<2>; mov.u64 %rd1, buf; st.local.u32 [%rd1], 1; ret; }'
ptx shared '.shared .align 4 .b8 big[65536];
.visible .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, big; st.shared.u32 [%rd1], 1; ret; }'
ptx registers '.visible .entry k() { .reg .b32 %r<2000000>; mov.u32 %r1999999, 1; ret; }'
ptx spin '.visible .entry k()
{
.reg .b32 %r<2>;
LOOP:
add.u32 %r1, %r1, 1;
bra LOOP;
}'
for case in params local shared registers; do
    for device in cuda:0 cpu; do
        "$chevron" run --device "$device" --grid 1 --block 32 "$tmp/$case.ptx" k >"$tmp/out" 2>"$tmp/err"
        echo "$case on $device: exit $? | $(head -n1 "$tmp/err" | cut -c1-300)"
    done
done
for device in cuda:0 cpu; do
    "$chevron" run --device "$device" --grid 1 --block 32 --timeout 2 "$tmp/spin.ptx" k 2>"$tmp/err" >/dev/null
    echo "spin with --timeout 2 on $device: exit $? | $(head -n1 "$tmp/err" | cut -c1-300)"
done
