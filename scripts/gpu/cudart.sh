#!/usr/bin/env bash
# On a GPU machine: the CUDA programs of tests/cudart/ under NVIDIA's runtime and under chevron's
# (`chevron exec`, CUDA devices), with their stdout compared line for line; the <<<>>> enqueue
# cost (medians of bursts of 256) and push/pop pairs of the same binary under both runtimes; and
# 1000 dlopen/dlclose cycles of a CUDA shared library under both, host and device memory flat.
#
# Prepare on the development machine (builds release chevron and the programs, among them a
# Thrust program too slow to compile in CI, and copies them to carry/cudart/ with NVIDIA's
# libcudart.so.13):
#   scripts/gpu/cudart.sh --prepare
# then on the GPU machine (no cargo or nvcc needed):
#   scripts/gpu/cudart.sh            # writes its logs to $OUT (default: a temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
carry="$root/carry/cudart"
programs=(basics basics-clang units rdc faults launch_bench dlopen_host libdlopen_kernels.so
    thrust_sort)

if [[ ${1:-} == --prepare ]]; then
    scripts/test.d/cudart.sh
    cargo build -q --release -p chevron-cudart -p chevron-cli
    toolkit="$(dirname "$(scripts/deps/cuda_nvcc.sh)")"
    [[ target/cudart/thrust_sort -nt tests/cudart/thrust_sort.cu ]] \
        || "$toolkit/bin/nvcc" -cudart shared -arch=sm_90 -L target/cudart/nvidia-lib \
            -o target/cudart/thrust_sort tests/cudart/thrust_sort.cu
    target/debug/chevron exec --device cpu target/cudart/thrust_sort | tail -n1
    mkdir -p "$carry/nvidia"
    for file in libcudart.so chevron; do objcopy --strip-debug "target/release/$file" "$carry/$file"; done
    for program in "${programs[@]}"; do cp "target/cudart/$program" "$carry/"; done
    cp "$toolkit/lib/libcudart.so.13" "$carry/nvidia/"
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
status=0

# compare NAME ARGS...: stdout under both runtimes must be identical, up to the order of the
# lines device printf writes from different blocks (which a GPU does not fix).
compare() {
    local name=$1 label="$*"
    shift
    label="${label// /-}"
    nvidia "$carry/$name" "$@" >"$OUT/$label.nvidia" 2>"$OUT/$label.nvidia.err" || true
    chevron "$carry/$name" "$@" >"$OUT/$label.chevron" 2>"$OUT/$label.chevron.err" || true
    if diff -u <(sort "$OUT/$label.nvidia") <(sort "$OUT/$label.chevron") >"$OUT/$label.diff"; then
        echo "$label: same output ($(tail -n1 "$OUT/$label.chevron"))"
    else
        echo "$label: outputs differ:"
        cat "$OUT/$label.diff"
        status=1
    fi
}
compare basics
compare basics-clang
compare units
compare rdc
compare thrust_sort
compare faults assert
compare faults oob
compare faults misaligned
compare faults trap
echo "== chevron's fault reports"
cat "$OUT"/faults*.chevron.err

echo "== <<<>>> enqueue and push/pop, the same binary, NVIDIA's runtime then chevron's"
for round in 1 2; do
    nvidia "$carry/launch_bench" 200 | sed 's/^/nvidia:  /' | tee -a "$OUT/launch_bench.txt" || status=1
    chevron "$carry/launch_bench" 200 | sed 's/^/chevron: /' | tee -a "$OUT/launch_bench.txt" || status=1
done
python3 - "$OUT/launch_bench.txt" <<'EOF' || status=1
import re, sys
figures = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w+): +enqueue empty kernel: ([\d.]+)", line)
    if m:
        figures.setdefault(m.group(1), []).append(float(m.group(2)))
ratio = min(figures["chevron"]) / min(figures["nvidia"])
print(f"enqueue ratio chevron/nvidia (best round): {ratio:.3f} (target <= 1.03)")
sys.exit(0 if ratio <= 1.03 else 1)
EOF

echo "== 1000 dlopen/dlclose cycles of a CUDA shared library"
nvidia "$carry/dlopen_host" "$carry/libdlopen_kernels.so" 1000 | sed 's/^/nvidia:  /' || status=1
chevron "$carry/dlopen_host" "$carry/libdlopen_kernels.so" 1000 | sed 's/^/chevron: /' \
    | tee "$OUT/dlopen.txt" || status=1
grep -q "dlopen: ok" "$OUT/dlopen.txt" || status=1
echo "logs in $OUT"
exit $status
