#!/usr/bin/env bash
# Writes NVIDIA's own view of every cubin and fatbin in corpus/ next to it, as ground truth for
# chevron's ELF/.nv.info/fatbin readers:
#   NAME.cubin.elf.txt   cuobjdump -elf NAME.cubin (sections, .nv.info attributes such as
#                        EIATTR_KPARAM_INFO, symbols, relocations)
#   NAME.fatbin.txt      cuobjdump -lelf -lptx (the entries), then -elf and -ptx of the entries
#                        (decompressed by cuobjdump)
# cuobjdump is the one bundled with Triton 3.9.0 (scripts/deps/triton.sh; "release 13.1,
# V13.1.80"): PyPI has no 13.0 cuobjdump. No GPU needed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
cuobjdump="$(bash scripts/deps/triton.sh)/triton/backends/nvidia/bin/cuobjdump"
version="$("$cuobjdump" --version | tail -2 | head -1)"
count=0
while IFS= read -r -d '' f; do
    dir="$(dirname "$f")"
    base="$(basename "$f")"
    case "$base" in
    *.cubin)
        { echo "# cuobjdump -elf $base ($version)"; (cd "$dir" && "$cuobjdump" -elf "$base"); } \
            >"$f.elf.txt"
        ;;
    *.fatbin)
        {
            echo "# cuobjdump -lelf -lptx $base ($version)"
            (cd "$dir" && "$cuobjdump" -lelf -lptx "$base" 2>/dev/null) # PTX-only: "No ELF file"
            echo "# cuobjdump -elf $base"
            (cd "$dir" && "$cuobjdump" -elf "$base")
            echo "# cuobjdump -ptx $base"
            (cd "$dir" && "$cuobjdump" -ptx "$base")
        } >"$f.txt"
        ;;
    esac
    count=$((count + 1))
done < <(find corpus -type f \( -name '*.cubin' -o -name '*.fatbin' \) -print0 | sort -z)
echo "dumped $count objects" >&2
