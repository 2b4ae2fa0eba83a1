#!/usr/bin/env bash
# Lists the CUDA 13.0 driver API functions (cuda.h of the nvcc wheel, under the names a program
# built against it links: cuMemAlloc → cuMemAlloc_v2, …, and, built with
# -DCUDA_API_PER_THREAD_DEFAULT_STREAM, their per-thread forms cuMemcpyHtoD_v2_ptds,
# cuStreamQuery_ptsz, …) that chevron's driver library does not implement: the names for the
# unsupported! list in crates/chevron-driver/src/unsupported.rs.
# With --declared: every such name, implemented or not.
# Needs the toolkit from scripts/deps/cuda_nvcc.sh. Prints one name per line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
header="$root/.deps/cuda/nvidia/cu13/include/cuda.h"
[[ -e $header ]] || "$root/scripts/deps/cuda_nvcc.sh" >/dev/null
src="$root/crates/chevron-driver/src"
# The one list of implemented functions: proc_address.rs's implemented() table.
implemented=$(grep -oE '(::|self::)cu[A-Za-z0-9_]+' "$src/proc_address.rs" \
    | sed -E 's/^.*:://' | sort -u)
[[ ${1:-} == --declared ]] && implemented=""
python3 - "$header" <<'PY' | sort -u | comm -23 - <(echo "$implemented")
import re, sys
text = open(sys.argv[1]).read()
# Declarations name the current ABI through the header's #defines (the pre-versioned names it
# redeclares for the driver's own build map to the same current names); a name the header
# wraps in __CUDA_API_PTDS/__CUDA_API_PTSZ also has its per-thread form.
renamed, per_thread = {}, {}
for name, form, target in re.findall(
        r"#define\s+(cu\w+)\s+(?:__CUDA_API_PT(DS|SZ)\()?(cu\w+)\)?", text):
    renamed[name] = target
    if form:
        per_thread[target] = f"{target}_pt{form.lower()}"
for name in re.findall(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(", text):
    name = renamed.get(name, name)
    print(name)
    if name in per_thread:
        print(per_thread[name])
PY
