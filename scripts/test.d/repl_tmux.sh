#!/usr/bin/env bash
# `chevron repl` as a person uses it, on the CPU device, driven through tmux (send-keys and
# capture-pane): the prompt, multi-line input, a launch and :print, history recall (Up), Ctrl-C
# dropping a half-entered unit, Ctrl-C during a spinning kernel, Ctrl-C during a compile blocked
# on a FIFO (and a compile after it, which must not wait for it), and Ctrl-D quitting. Then hostile input and the same language from a pipe: no
# prompt, exit code 2 after an error; `chevron run FILE.cu`. The cases of a REPL that takes what
# people type: `:` commands at the start of any line (inside an unfinished unit too), a
# definition and a launch on one line (after a unit's last line, and alone), `:print` of a
# `__device__` global, host statements run (scalars, a buffer, a loop of launches, printf) or
# refused in one line.
# About 10 s once chevron is built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
command -v tmux >/dev/null || { apt-get update -qq >/dev/null && apt-get install -y -qq tmux >/dev/null; }
CHEVRON_NVRTC="$(scripts/deps/nvrtc.sh)"
export CHEVRON_NVRTC CHEVRON_DEVICES=cpu
scripts/build-workspace -q   # the chevron CLI among the rest: cargo test's build
work="$(mktemp -d)"
export CHEVRON_HISTORY="$work/history" CHEVRON_CACHE="$work/cache"
session="chevron-repl-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT

fail() {
    echo "repl_tmux: $1; the screen was:" >&2
    tmux capture-pane -p -t "$session" >&2 || true
    exit 1
}
# Waits until the screen shows $1 at least ${2:-1} times.
wait_for() {
    local want="${2:-1}"
    for _ in $(seq 1 300); do
        local seen
        seen=$(tmux capture-pane -p -t "$session" | grep -cF -- "$1" || true)
        [ "$seen" -ge "$want" ] && return 0
        sleep 0.1
    done
    fail "waited 30 s for '$1' (x$want)"
}
keys() { tmux send-keys -t "$session" "$@"; }
# Waits until the last line on the screen is an empty prompt (the REPL reads again; what is
# typed before that is lost to the terminal's cursor-position query).
wait_prompt() {
    for _ in $(seq 1 300); do
        tmux capture-pane -p -t "$session" | grep -v '^$' | tail -n1 | grep -qE '^(cu|\.\.\.)> ?$' \
            && return 0
        sleep 0.1
    done
    fail "waited 30 s for a prompt"
}
# Types each argument as literal text (a trailing `;` would end a tmux command), then Enter.
lines() {
    for line in "$@"; do
        wait_prompt
        [[ $line == *";" ]] && line="${line%;}\\;"
        tmux send-keys -t "$session" -l "$line"
        tmux send-keys -t "$session" Enter
    done
}

# A header that blocks NVRTC: it includes a FIFO, from an include path (whose headers the REPL
# does not follow, so the compile blocks instead of being refused).
mkfifo "$work/fifo"
mkdir -p "$work/inc"
printf '#include "%s"\n' "$work/fifo" | tee "$work/nested.h" >"$work/inc/blocking.h"
tmux new-session -d -s "$session" -x 160 -y 50 \
    "env TERM=xterm CHEVRON_CUDA_INCLUDE=$work/inc $root/target/debug/chevron repl"
wait_for "chevron repl on cpu:0"
wait_for "cu>"
lines '__device__ int twice(int x) {'
wait_for "...>"
lines '  return 2 * x;' '}'
wait_for "snippet 1: twice(int)"
lines '__global__ void fill(int *out) { out[threadIdx.x] = twice(threadIdx.x); }'
wait_for "snippet 2: fill(int*)"
lines ':buf out i32[4]=zeros' 'fill<<<1, 4>>>(out);'
wait_for "fill(int*): "
lines ':print out'
wait_for "out = [0, 2, 4, 6]"
keys Up
wait_for "cu> :print out" 2
keys Enter
wait_for "out = [0, 2, 4, 6]" 2
lines '__device__ int unfinished(int x) {'
wait_for "...>"
keys C-c
lines ':symbols'
wait_for "buffer       out i32[4]"
tmux capture-pane -p -t "$session" | grep -qF "unfinished" \
    && ! tmux capture-pane -p -t "$session" | grep -q "function unfinished" \
    || fail "Ctrl-C did not drop the unfinished unit"
lines '__global__ void spin(int *flag) { while (atomicAdd(flag, 0) == 0) { } }'
wait_for "snippet 3: spin(int*)"
lines 'spin<<<1, 1>>>(out);'
sleep 1
keys C-c
wait_for "error: interrupted: stopped \`spin(int*)\` on cpu:0"
lines ':print out 3'
wait_for "out = [0, 2, 4, …]"
lines 'fill<<<1, 4>>>(out);' ':print out 2'
wait_for "out = [0, 2, …]"
# A :command inside an unfinished unit runs at once and the unit goes on; a definition and a
# launch on one line; :print of a __device__ global; host statements run or refused in one line.
lines '__device__ int g_seen = 7; __global__ void mark(int *o) {'
wait_for "...>"
lines ':print out 2'
wait_for "out = [0, 2, …]" 2
lines '  o[0] += g_seen; } mark<<<1, 1>>>(out);'
wait_for "mark(int*): "
lines ':print g_seen' ':print out 1'
wait_for "g_seen (int) = 7"
wait_for "out = [7, …]"
lines 'cudaMalloc(&p, 4);'
wait_for "error: host code is not run: \`cudaMalloc(&p, 4)\`; the REPL runs launches"
lines 'int n = 2;' 'for (int i = 0; i < n; i++) mark<<<1, 1>>>(out);' 'printf("n=%d\n", n);' ':print out 1'
wait_for "loop: 2 iterations"
wait_for "n=2"
wait_for "out = [21, …]"
# A buffer declared as host code, then a definition and its launch typed as one line.
lines 'int v[3] = {1, 2, 3};' '__global__ void triple(int *v) { v[threadIdx.x] *= 3; } triple<<<1, 3>>>(v);'
wait_for "triple(int*): "
lines ':print v'
wait_for "v = [3, 6, 9]"
# Ctrl-C while NVRTC is blocked (a header that includes a FIFO) ends the compile, not the REPL.
lines "#include <blocking.h>"
sleep 2
keys C-c
wait_for "error: snippet 6: interrupted: the compile was abandoned, the session is unchanged"
lines 'fill<<<1, 4>>>(out);' ':print out 1'
wait_for "out = [0, …]"
# A compile after the abandoned one (still blocked in NVRTC) does not wait for it.
lines '__global__ void after(int *o) { o[0] = 9; }' 'after<<<1, 1>>>(out);' ':print out 1'
wait_for "snippet 6: after(int*)"
wait_for "out = [9, …]"
keys C-d
for _ in $(seq 1 50); do
    tmux has-session -t "$session" 2>/dev/null || break
    sleep 0.1
done
tmux has-session -t "$session" 2>/dev/null && fail "Ctrl-D did not quit"
grep -qF 'fill<<<1, 4>>>(out);' "$CHEVRON_HISTORY" || { echo "repl_tmux: no history file" >&2; exit 1; }

# From a pipe: no prompt, the error reported on one line, exit code 2.
status=0
printf '%s\n' '__device__ int three() { return 3; }' ':buf v i32[2]=zeros' \
    '__global__ void put(int *v) { v[threadIdx.x] = three(); }' 'put<<<1, 2>>>(v);' \
    'missing<<<1, 1>>>();' ':print v' \
    | target/debug/chevron repl >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 2 ] || { echo "repl_tmux: piped exit code $status, expected 2" >&2; exit 1; }
grep -qF 'v = [3, 3]' "$work/out" || { cat "$work/out" >&2; exit 1; }
! grep -qF 'cu> ' "$work/out" || { echo "repl_tmux: prompt printed to a pipe" >&2; exit 1; }
[ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "kernel \`missing\` not found" "$work/err" \
    || { cat "$work/err" >&2; exit 1; }

# Hostile input from a pipe, each one error line: commands without arguments give their usage,
# endless and non-regular files are refused, an include of a FIFO is refused and a nested one
# meets the compile deadline, control characters are escaped, a literal for a pointer
# parameter is refused naming the kernel and the parameter.
status=0
# A FIFO included from a header of an include path (not followed) meets the deadline, last: the
# abandoned compile may hold NVRTC.
printf '%s\n' ':buf' ':load /dev/zero' ":load $work/fifo" "#include \"$work/fifo\"" \
    "#include \"$work/nested.h\"" $':print \e[2Jx' '__global__ void p(float *v) { v[0] = 1; }' \
    'p<<<1, 1>>>(1.5);' ':time' '#include <blocking.h>' \
    | CHEVRON_COMPILE_TIMEOUT=5 CHEVRON_CUDA_INCLUDE="$work/inc" timeout 60 target/debug/chevron repl \
        >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 9 ] \
    || { echo "repl_tmux: hostile input: exit $status, 9 errors expected:" >&2; cat "$work/err" >&2; exit 1; }
for expected in 'error: usage: :buf NAME TYPE[COUNT]=' 'error: /dev/zero: not a regular file' \
    "error: $work/fifo: not a regular file" "$work/fifo is not a regular file (a FIFO" "$work/fifo\": $work/fifo is not a regular" \
    'compiling snippet 2 on NVRTC did not finish within 5 s' 'error: no buffer `\x1b[2Jx`' \
    'kernel `p(float*)`, parameter 0 (`float*`): `1.5` is not a buffer' 'error: usage: :time on|off'; do
    grep -qF -- "$expected" "$work/err" || { echo "repl_tmux: no '$expected' in:" >&2; cat "$work/err" >&2; exit 1; }
done
! grep -q $'\e' "$work/err" || { echo "repl_tmux: a raw escape reached the terminal" >&2; exit 1; }

# The rest of the language from a pipe: a template kernel instantiated by its launch, #include of
# a CUDA header, :load, :save, :symbols, a fault that leaves the session usable, :device.
printf '%s\n' '__device__ int base = 40;' \
    'template <typename T> __global__ void add(T *v, T x) { v[threadIdx.x] += x + base; }' \
    >"$work/load.cu"
status=0
printf '%s\n' ":load $work/load.cu" ':buf w i32[3]=iota' 'add<int><<<1, 3>>>(w, 2);' \
    '#include <cuda_fp16.h>' \
    '__global__ void halve(int *v) { v[threadIdx.x] = __half2float(__float2half(v[threadIdx.x] * 0.5f)); }' \
    'halve<<<1, 3>>>(w);' ":save w $work/w.bin" ':symbols' \
    '__global__ void wild(int *v) { v[1 << 28] = 1; }' 'wild<<<1, 1>>>(w);' \
    'add<int><<<1, 3>>>(w, 0);' ':print w' ':device cpu:0' ':symbols' \
    | target/debug/chevron repl >"$work/out" 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "out-of-bounds" "$work/err" \
    || { echo "repl_tmux: the fault should be the one error (exit $status)" >&2; cat "$work/err" >&2; exit 1; }
for expected in 'snippet 1: base (' 'snippet 1    global   base (4 bytes at' 'kernel   add<int>(int*, int)' \
    'w = [61, 61, 62]' 'device cpu:0: a new session'; do
    grep -qF "$expected" "$work/out" || { echo "repl_tmux: no '$expected' in:" >&2; cat "$work/out" >&2; exit 1; }
done
[ "$(od -An -tu4 "$work/w.bin" | xargs)" = "21 21 22" ] \
    || { echo "repl_tmux: :save wrote $(od -An -tu4 "$work/w.bin")" >&2; exit 1; }
[ "$(tail -n1 "$work/out")" = "device cpu:0: a new session (earlier snippets and buffers are gone)" ] \
    || { echo "repl_tmux: :symbols after :device should list nothing" >&2; exit 1; }

# `chevron run` compiles a .cu file through the same session.
printf '%s\n' '__device__ int offset = 5;' \
    '__global__ void shift(int *v) { v[threadIdx.x] += offset; }' >"$work/shift.cu"
target/debug/chevron run "$work/shift.cu" shift --grid 1 --block 3 --arg 'i32[3]=iota' --print 0 \
    | grep -qF 'arg 0: [5,6,7]' || { echo "repl_tmux: chevron run FILE.cu failed" >&2; exit 1; }
printf '%s\n' 'template <typename T> __global__ void twice(T *v) { v[threadIdx.x] *= 2; }' >"$work/twice.cu"
target/debug/chevron run "$work/twice.cu" 'twice<float>' --grid 1 --block 3 --arg 'f32[3]=iota' \
    --print 0 | grep -qF 'arg 0: [0.0,2.0,4.0]' \
    || { echo "repl_tmux: chevron run FILE.cu 'twice<float>' failed" >&2; exit 1; }
echo "repl_tmux: prompt, multi-line input, :commands inside a unit, host subset, globals, history recall, Ctrl-C (input, stopping a kernel, a compile abandoned without holding back the next), Ctrl-D, pipe, templates, #include, :load/:save/:symbols/:device, a fault, run .cu: ok"
