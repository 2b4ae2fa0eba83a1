#!/usr/bin/env bash
# On a GPU machine: host-visible memory on chevron's CUDA backend against NVIDIA's runtime. The
# tests/cudart/hm_*.cu programs (pinned buffers copied asynchronously on several streams,
# a managed linked list walked by a kernel, registered memory written in place), plus
# host_memory.cu and zero_copy.cu, run under both runtimes: a table of each program's output
# (same or differing) and its wall-time ratio chevron/NVIDIA (target <= 1.1), then the pinned
# copy bandwidth of both (hm_pinned_streams bench; target ratio >= 0.9).
#
# Prepare on the development machine (stripped dev builds of chevron and its libcudart.so, the
# programs built with nvcc 13.0 -cudart shared at the default architecture and -arch=sm_90,
# NVIDIA's libcudart.so.13), written to carry/host-memory/:
#   scripts/gpu/host-memory.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/host-memory.sh            # logs to $OUT (default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/host-memory"
sources=(hm_pinned_streams host_memory zero_copy)

if [[ ${1:-} == --prepare ]]; then
    scripts/build-workspace -q
    bin="$(scripts/deps/cuda_nvcc.sh)"
    toolkit="$(dirname "$bin")"
    mkdir -p "$carry/nvidia"
    for source in "${sources[@]}"; do
        for arch in default sm_90; do
            flags=()
            [[ $arch == sm_90 ]] && flags=(-arch=sm_90)
            nice "$bin/nvcc" -cudart shared "${flags[@]}" -L "$toolkit/lib" \
                -o "$carry/$source-$arch" "tests/cudart/$source.cu"
        done
    done
    for file in libcudart.so chevron; do objcopy --strip-debug "target/debug/$file" "$carry/$file"; done
    cp "$toolkit/lib/libcudart.so.13" "$carry/nvidia/"
    du -sh "$carry"
    echo "prepared $carry"
    exit 0
fi

[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
export CHEVRON_CUDART="$carry/libcudart.so"
nvidia() { LD_LIBRARY_PATH="$carry/nvidia${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
chevron() { "$carry/chevron" exec --device cuda "$@"; }
# timed LOG COMMAND...: runs COMMAND with stdout to LOG; prints its wall time in seconds.
timed() {
    local log=$1 start end
    shift
    start=$(date +%s.%N)
    "$@" >"$log" 2>"$log.err" || true
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.3f}')"
}
status=0
printf '%-28s %-9s %9s %9s %7s\n' program output nvidia_s chevron_s ratio
for source in "${sources[@]}"; do
    for arch in default sm_90; do
        name="$source-$arch"
        tn=$(timed "$OUT/$name.nvidia" nvidia "$carry/$name")
        tc=$(timed "$OUT/$name.chevron" chevron "$carry/$name")
        if diff -u "$OUT/$name.nvidia" "$OUT/$name.chevron" >"$OUT/$name.diff"; then
            same=same
        else
            same=DIFFERS
            status=1
        fi
        ratio=$(python3 -c "print(f'{$tc / max($tn, 1e-3):.2f}')")
        printf '%-28s %-9s %9s %9s %7s\n' "$name" "$same" "$tn" "$tc" "$ratio"
    done
done
for name in "$OUT"/*.diff; do [[ -s $name ]] && { echo "== $name"; cat "$name"; }; done

echo "== pinned copy bandwidth (GB/s, best of 5 copies of 256 MiB)"
nvidia "$carry/hm_pinned_streams-sm_90" bench | grep '^bench' | sed 's/^/nvidia:  /' | tee "$OUT/bench.txt"
chevron "$carry/hm_pinned_streams-sm_90" bench | grep '^bench' | sed 's/^/chevron: /' | tee -a "$OUT/bench.txt"
python3 - "$OUT/bench.txt" <<'PY' || status=1
import re, sys
figures = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w+): +bench (\w+) GB/s ([\d.]+)", line)
    if m:
        figures[(m.group(1), m.group(2))] = float(m.group(3))
ok = True
for way in ("h2d", "d2h"):
    ratio = figures[("chevron", way)] / figures[("nvidia", way)]
    print(f"{way} bandwidth ratio chevron/nvidia: {ratio:.3f} (target >= 0.9)")
    ok &= ratio >= 0.9
sys.exit(0 if ok else 1)
PY
echo "logs in $OUT"
exit $status
