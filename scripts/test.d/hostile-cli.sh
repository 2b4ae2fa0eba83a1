#!/usr/bin/env bash
# The chevron CLI against hostile input: buffer specs whose sizes overflow or exceed the device,
# endless files, closed and full outputs, out-of-range scalars, mistyped arguments, unknown
# kernels, CUDA sources, and the host memory a large buffer costs. Every case expects a clean
# outcome: exit 0, or one line `chevron: error: …` with exit code 2 (never a panic or an abort).
# Each command runs under a virtual-memory cap (`ulimit -v`) and a timeout, so an abort cannot
# hide as an OOM kill and an unbounded read cannot hang. Usage: hostile-cli.sh [CHEVRON_BINARY]
# Prints `hostile-cli: N passed, N failed`.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if [[ $# -gt 0 ]]; then
    chevron="$1"
else
    scripts/build-workspace -q || exit 1
    chevron="$root/target/debug/chevron"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CHEVRON_DEVICES=cpu CHEVRON_CPU_MEMORY=2G
vmem_kb=$((8 << 20))   # 8 GiB of address space: far above what any case needs
ptx=corpus/nvrtc/compute_80/elementwise.ptx
saxpy=(run "$ptx" saxpy --grid 1 --block 4)
passed=0
failed=0

# Runs the CLI capped, stdout to $stdout_to (default: a file); sets $rc, $out, $err.
stdout_to=""
capped() {
    (ulimit -v "$vmem_kb"; exec timeout 60 "$chevron" "$@") >"${stdout_to:-$work/out}" 2>"$work/err"
    rc=$?
    out="$(head -c 4000 "$work/out")"
    err="$(head -c 4000 "$work/err")"
}
verdict() { # verdict NAME OK WHY
    if [[ $2 == 1 ]]; then
        passed=$((passed + 1))
        echo "ok    $1"
    else
        failed=$((failed + 1))
        echo "FAIL  $1: $3 (exit $rc; stderr: ${err:0:300})"
    fi
}
# expect_error NAME PATTERN ARGS...: exit 2, one stderr line starting `chevron: error:` and
# matching PATTERN.
expect_error() {
    local name="$1" pattern="$2"
    shift 2
    capped "$@"
    local ok=0
    if [[ $rc == 2 && $(wc -l <"$work/err") == 1 && $err == "chevron: error: "* && $err =~ $pattern ]]; then
        ok=1
    fi
    verdict "$name" $ok "expected one line matching /$pattern/"
}

expect_error "buffer larger than the device" "exceed the 2.0 GiB of cpu:0" \
    "${saxpy[@]}" --arg f32:1 --arg 'f32[99999999999]=zeros' --arg 'f32[4]=zeros' --arg i32:4
expect_error "buffer count of 2^64-1" "2\^64 bytes or more" \
    "${saxpy[@]}" --arg f32:1 --arg 'f32[18446744073709551615]=zeros' --arg 'f32[4]=zeros' --arg i32:4
expect_error "buffer whose byte size wraps to 0" "2\^64 bytes or more" \
    "${saxpy[@]}" --arg f32:1 --arg 'f32[4611686018427387904]=zeros' --arg 'f32[4]=zeros' --arg i32:4
: >"$work/EMPTY"
expect_error "file buffer of 2^63 u16 from an empty file" "2\^64 bytes or more" \
    "${saxpy[@]}" --arg f32:1 --arg "u16[9223372036854775808]=file:$work/EMPTY" --arg 'f32[4]=zeros' --arg i32:4
truncate -s 64G "$work/HUGE"
expect_error "64 GiB file for a 16-byte buffer, refused before reading" \
    "HUGE: holds 68719476736 bytes, but 4 f32 elements need 16" \
    "${saxpy[@]}" --arg f32:1 --arg "f32[4]=file:$work/HUGE" --arg 'f32[4]=zeros' --arg i32:4
expect_error "f32 scalar beyond the largest f32" "out of range" \
    "${saxpy[@]}" --arg f32:1e400 --arg 'f32[4]=zeros' --arg 'f32[4]=zeros' --arg i32:4
expect_error "a float for a .u32 parameter" "parameter 3 \(\`saxpy_param_3\`\) is .u32, an integer, got f32" \
    "${saxpy[@]}" --arg f32:1 --arg 'f32[4]=zeros' --arg 'f32[4]=zeros' --arg f32:4
expect_error "inspect of an endless file" "/dev/zero: larger than 256 MiB" inspect /dev/zero
expect_error "run of an endless file" "/dev/zero: larger than 256 MiB" run /dev/zero k --grid 1 --block 1
ln -s /dev/zero "$work/endless.cu"
expect_error "run of an endless .cu" "endless.cu: not a regular file" run "$work/endless.cu" k
expect_error "trace --html of an endless file" "/dev/zero: larger than 512 MiB, the most chevron reads as a trace" \
    trace --html /dev/zero -o "$work/t.html"
expect_error "trace -o a directory" "the trace was not written: /: Is a directory" \
    trace -o / -- "$chevron" run "$ptx"
expect_error "a CUDA source to inspect" "CUDA C\+\+ source.*nvcc -ptx" inspect "$work/saxpy.cu"
expect_error "a CUDA header to run" "CUDA C\+\+ source.*nvcc -ptx" run "$work/saxpy.cuh" saxpy
stdout_to=/dev/full
expect_error "devices written to a full disk" "writing the output: No space left on device" devices
expect_error "help written to a full disk" "writing the output: No space left on device" --help
stdout_to=""

# A closed pipe ends quietly: exit 0 and nothing on stderr (the reader left on purpose). The
# output (about 10 MB) is larger than any pipe buffer, so the closed end is always met.
(ulimit -v "$vmem_kb"; exec timeout 60 "$chevron" "${saxpy[@]}" --arg f32:1 --arg 'f32[1000000]=iota' \
    --arg 'f32[4]=zeros' --arg i32:4 --print 1) 2>"$work/err" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
err="$(head -c 4000 "$work/err")"
verdict "output into a closed pipe" "$([[ $rc == 0 && -z $err ]] && echo 1)" "expected exit 0, silent"

# An endless file as a buffer's contents: exactly the buffer's bytes are read.
capped "${saxpy[@]}" --arg f32:1 --arg 'f32[4]=file:/dev/zero' --arg 'f32[4]=fill:1' --arg i32:4 --print 2
verdict "buffer read from /dev/zero" "$([[ $rc == 0 && $out == *"arg 2: [1.0,1.0,1.0,1.0]"* ]] && echo 1)" \
    "expected the kernel to run on 16 bytes of zeros"

# Without a kernel the file's kernels are listed with their PTX signatures; with a kernel the
# file lacks, the error lists them.
listed="saxpy  (.f32 saxpy_param_0, .u64 saxpy_param_1, .u64 saxpy_param_2, .u32 saxpy_param_3)"
capped run "$ptx"
verdict "run without a kernel lists the kernels" "$([[ $rc == 0 && $out == *"$listed"* ]] && echo 1)" \
    "expected the kernel list on stdout"
capped run "$ptx" nope --grid 1 --block 1
verdict "run of an unknown kernel lists the kernels" \
    "$([[ $rc == 2 && $err == "chevron: error: kernel \`nope\` not found"*"$listed"* ]] && echo 1)" \
    "expected the kernel list in the error"

# `--print N:COUNT` prints COUNT elements.
capped "${saxpy[@]}" --arg f32:2 --arg 'f32[4]=iota' --arg 'f32[4]=fill:1' --arg i32:4 --print 2:2
verdict "--print 2:2" "$([[ $rc == 0 && $out == *"arg 2 (first 2 of 4): [1.0,3.0]"* ]] && echo 1)" \
    "expected two elements"

# Host memory: a 512 MiB buffer costs about 512 MiB (the CPU device's memory) and a few MiB of
# chunks, not two or three copies on the host. The launch touches 4 elements.
peak_kb="$(python3 - "$chevron" "$vmem_kb" "${saxpy[@]}" <<'PY'
import resource, subprocess, sys
chevron, vmem = sys.argv[1], int(sys.argv[2]) * 1024
cap = lambda: resource.setrlimit(resource.RLIMIT_AS, (vmem, vmem))
done = subprocess.run([chevron] + sys.argv[3:] + ["--arg", "f32:2", "--arg", "f32[134217728]=iota",
                      "--arg", "f32[4]=fill:1", "--arg", "i32:4", "--print", "2"],
                      preexec_fn=cap, capture_output=True, timeout=120)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if done.returncode == 0 else -1)
PY
)"
rc=0
err=""
verdict "512 MiB buffer peaks below 640 MiB of host memory (peak ${peak_kb} KiB)" \
    "$([[ $peak_kb -gt 0 && $peak_kb -lt $((640 << 10)) ]] && echo 1)" "expected a peak under 640 MiB"

echo "hostile-cli: $passed passed, $failed failed"
[[ $failed == 0 ]]
