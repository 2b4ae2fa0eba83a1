#!/usr/bin/env bash
# Run on the GPU machine (nvcc 13.0, Triton, PyTorch; no internet needed):
#   OUT=/some/dir scripts/gpu/make_corpus.sh
# (a) nvcc -ptx / -cubin / -fatbin of corpus/nvrtc/src/*.cu for sm_80 and sm_90, with the
#     machine's own nvcc (the corpus already has nvcc 13.0 output made without a GPU: this is
#     the cross-check with the toolkit that runs the GPU);
# (b) Triton kernels (add, softmax, layer norm, tl.dot matmul) for sm_80 and sm_90 with the
#     machine's Triton (scripts/corpus/triton_corpus.py: ahead of time via triton.compile and a
#     GPUTarget; if that fails, by launching each kernel once on the GPU and reading
#     kernel.asm["ptx"]);
# (c) a record of the tool versions and the GPU, and tars of $OUT (at most 4 files).
# Keeps going past individual failures and reports them at the end; exits non-zero only when
# nothing at all was produced.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:?set OUT to an output directory}"
mkdir -p "$OUT/nvcc" "$OUT/triton"
failures=()
log="$OUT/make_corpus.log"
: >"$log"

note() { echo "$*" | tee -a "$log" >&2; }

# --- versions ----------------------------------------------------------------------------
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
    command -v nvcc >/dev/null && nvcc --version | tail -2
    python3 -c 'import triton; print("triton", triton.__version__)' 2>&1
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
} >"$OUT/VERSIONS.txt"

# --- (a) nvcc ------------------------------------------------------------------------------
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
src="$root/corpus/nvrtc/src"
if [[ -x "$NVCC" ]]; then
    for cu in "$src"/*.cu; do
        name="$(basename "$cu" .cu)"
        rdc=()
        [[ $name == rdc_* ]] && rdc=(-rdc=true)
        for sm in 80 90; do
            [[ $name == hopper && $sm == 80 ]] && continue
            for kind in ptx cubin; do
                if "$NVCC" "-$kind" -arch="sm_$sm" "${rdc[@]}" "$cu" \
                    -o "$OUT/nvcc/$name.sm_$sm.$kind" 2>>"$log"; then
                    echo "nvcc -$kind -arch=sm_$sm ${rdc[*]} $name.cu" >>"$OUT/nvcc/COMMANDS.txt"
                else
                    failures+=("nvcc -$kind sm_$sm $name")
                fi
            done
        done
        arch=(-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90)
        [[ $name != hopper ]] && arch=(-gencode arch=compute_80,code=sm_80 "${arch[@]}")
        if "$NVCC" -fatbin "${arch[@]}" "${rdc[@]}" "$cu" -o "$OUT/nvcc/$name.fatbin" 2>>"$log"; then
            echo "nvcc -fatbin ${arch[*]} ${rdc[*]} $name.cu" >>"$OUT/nvcc/COMMANDS.txt"
        else
            failures+=("nvcc -fatbin $name")
        fi
    done
else
    failures+=("nvcc not found (set NVCC=/path/to/nvcc)")
fi

# --- (b) Triton ----------------------------------------------------------------------------
export TRITON_CACHE_DIR="$OUT/.triton-cache" TRITON_DISABLE_LINE_INFO=1
if ! python3 "$root/scripts/corpus/triton_corpus.py" "$OUT/triton" --arch 80 --arch 90 --cubin \
    2>>"$log"; then
    failures+=("triton (see make_corpus.log)")
fi
python3 "$root/scripts/corpus/triton_corpus.py" "$OUT/triton" --arch 90 --ptx-version 90 \
    --suffix ptx90 --no-fallback 2>>"$log" || failures+=("triton ptx_version=90")
rm -rf "$TRITON_CACHE_DIR"

# --- (c) pack ------------------------------------------------------------------------------
produced=$(find "$OUT/nvcc" "$OUT/triton" -type f \( -name '*.ptx' -o -name '*.cubin' -o -name '*.fatbin' \) | wc -l)
note "produced $produced code objects"
for f in "${failures[@]}"; do note "FAILED: $f"; done
tar -C "$OUT" -czf "$OUT/corpus-nvcc.tar.gz" nvcc
tar -C "$OUT" -czf "$OUT/corpus-triton.tar.gz" triton
tar -C "$OUT" -czf "$OUT/corpus-meta.tar.gz" VERSIONS.txt make_corpus.log
rm -rf "$OUT/nvcc" "$OUT/triton"
ls -la "$OUT" >&2
[[ $produced -gt 0 ]]
