#!/usr/bin/env python3
"""Extract the code objects that MLIR's gpu-module-to-binary embeds in LLVM IR.

Usage: extract_modules.py FILE.ll OUT_DIR NAME

Each `gpu.module @M` becomes a global `@M_binary` (LLVM 19/20: `@M_bin_cst`)
`= internal constant [N x i8] c"..."` holding
NUL-terminated PTX text (format=isa), a cubin (format=bin, ELF magic 7f 45 4c 46) or a fatbin
(format=fatbin, magic 50 ed 55 ba). This writes OUT_DIR/NAME.EXT when the program has one module
and OUT_DIR/NAME.M.EXT for each module otherwise (EXT: ptx, cubin or fatbin), and prints the
files written.
"""

import os
import re
import sys

# LLVM >= 21: @M_binary (loaded in a global ctor); LLVM 19/20: @M_bin_cst (loaded per launch).
GLOBAL = re.compile(r'^@(\w+?)_(?:binary|bin_cst) = internal constant \[(\d+) x i8\] c"(.*)"(?:, align \d+)?$')


def unescape(text):
    """Decodes an LLVM IR c"..." string (\\XX hex escapes and \\\\)."""
    out = bytearray()
    i = 0
    raw = text.encode("latin-1")
    while i < len(raw):
        if raw[i] == ord("\\"):
            if raw[i + 1] == ord("\\"):
                out.append(ord("\\"))
                i += 2
            else:
                out.append(int(raw[i + 1:i + 3], 16))
                i += 3
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def main():
    ll, out_dir, name = sys.argv[1:4]
    blobs = []
    with open(ll, encoding="latin-1") as f:
        for line in f:
            m = GLOBAL.match(line.rstrip("\n"))
            if m:
                data = unescape(m.group(3))
                if len(data) != int(m.group(2)):
                    sys.exit(f"{ll}: @{m.group(1)}_binary: {len(data)} bytes, expected {m.group(2)}")
                if data.startswith(b"\x7fELF"):
                    blobs.append((m.group(1), "cubin", data))
                elif data.startswith(b"\x50\xed\x55\xba"):
                    blobs.append((m.group(1), "fatbin", data))
                elif b".version" in data[:400]:
                    blobs.append((m.group(1), "ptx", data.rstrip(b"\0")))
                else:
                    sys.exit(f"{ll}: @{m.group(1)}_binary is neither PTX, cubin nor fatbin")
    if not blobs:
        sys.exit(f"{ll}: no embedded gpu module binary found")
    for module, ext, data in blobs:
        stem = name if len(blobs) == 1 else f"{name}.{module}"
        path = os.path.join(out_dir, f"{stem}.{ext}")
        with open(path, "wb") as f:
            f.write(data)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
