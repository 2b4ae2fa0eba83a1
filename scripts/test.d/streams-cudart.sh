#!/usr/bin/env bash
# Streams of CUDA programs on the CPU device (crates/chevron-cudart over chevron's CPU streams):
# builds tests/cudart/streams.cu with nvcc 13.0 (-cudart shared, as scripts/test.d/cudart.sh
# builds its programs) and runs it under `chevron exec --device cpu`, under a virtual memory
# cap (ulimit -v, so an abort on allocation cannot hide as an out-of-memory kill) and a hang
# guard (a host function that deadlocks fails the script instead of stalling it). The program
# creates 100,000 live streams with a kernel on each, runs host functions in stream order while
# the caller goes on, and checks that resident memory stays bounded while 300,000 launches and
# 200,000 graph replays are submitted behind a stalled stream without synchronizing.
# Installs nvcc (scripts/deps/cuda_nvcc.sh) when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/cudart
out="$root/target/cudart"
mkdir -p "$out"

bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
# Link against NVIDIA's libcudart as users do; chevron's library replaces it at run time.
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
scripts/build-workspace -q   # libcudart.so (chevron-cudart) and the CLI, sharing cargo test's build

if [[ ! -e $out/streams || $src/streams.cu -nt $out/streams ]]; then
    nice "$bin/nvcc" -cudart shared -arch=sm_90 -L"$nvlib" -Xlinker -rpath -Xlinker "$toolkit/lib" \
        -o "$out/streams" $src/streams.cu
fi

# Virtual memory cap of the program, in KiB.
memory_cap_kib=$((8 << 20))
if ! (ulimit -v "$memory_cap_kib" && timeout 300 "$root/target/debug/chevron" exec --device cpu \
    "$out/streams" >"$out/streams.stdout" 2>"$out/streams.stderr"); then
    echo "streams-cudart: streams failed:" >&2
    cat "$out/streams.stdout" "$out/streams.stderr" >&2
    exit 1
fi
last="$(tail -n1 "$out/streams.stdout")"
[[ $last == "streams: 100000 streams, ok" ]] \
    || { echo "streams-cudart: last line '$last'" >&2; cat "$out/streams.stdout" >&2; exit 1; }
grep "resident growth" "$out/streams.stdout"
echo "streams-cudart: 1 program passed, 0 failed"
