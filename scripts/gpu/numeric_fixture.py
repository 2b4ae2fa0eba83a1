#!/usr/bin/env python3
"""Reduces a full numeric_probe.py output to the small fixture the `numeric_gpu` test checks
(crates/chevron-ptx/tests/data/numeric_probe_h200.txt):

    python3 scripts/gpu/numeric_fixture.py FULL_PROBE.txt HEADER [MUST_KEEP.tsv] > FIXTURE.txt

Per instruction it keeps every edge-case row of unary instructions, a deterministic sample
(by CRC-32 of the line) of the edge-case rows of the others and of the random rows, and every
row listed in MUST_KEEP (lines `name<TAB>a=0x.. b=0x.. c=0x.. ...`, e.g. the rows a previous
version of the library got wrong). HEADER becomes the first `#` line. Rows keep the probe's
order; `# skipped` notes and their continuation lines are dropped.
"""
import re
import sys
import zlib

EDGE_KEEP = 16     # keep 1 in EDGE_KEEP edge rows of instructions with more than 40 of them
RANDOM_KEEP = 40   # keep 1 in RANDOM_KEEP random rows

# Operand values the probe crosses as edge cases (scripts/gpu/numeric_probe.py).
sys.path.insert(0, __file__.rsplit("/", 1)[0])
import numeric_probe as probe  # noqa: E402

SPECIAL = set(probe.F32_SPECIAL + probe.F64_SPECIAL + probe.H16_SPECIAL + probe.BF16_SPECIAL
              + probe.I64_SPECIAL + [x & 0xffff for x in probe.I32_SPECIAL]
              + [0, 0x7f, 0x80, 0xff, 0x3c, 0x40, 0x7e, 0xfe])
PAIRS = {(x << 16) | y for s in (probe.H16_SPECIAL, probe.BF16_SPECIAL)
         for x in s[:8] for y in s[:8]}


def is_edge(cls, a, b):
    known = SPECIAL | PAIRS
    return a in known and (b in known or not cls.endswith(("_2", "_3")))


def main():
    full, header = sys.argv[1], sys.argv[2]
    must = set()
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            m = re.match(r"(\S+)\t.*?a=0x(\w+) b=0x(\w+) c=0x(\w+)", line)
            if m:
                must.add((m[1], int(m[2], 16), int(m[3], 16), int(m[4], 16)))
    rows = []
    for line in open(full):
        p = line.rstrip("\n").split("\t")
        if line.startswith("#") or len(p) != 6:
            continue
        rows.append((p, line))
    edges = {}
    for p, _ in rows:
        a, b = int(p[2], 16), int(p[3], 16)
        edges[p[0]] = edges.get(p[0], 0) + is_edge(p[1], a, b)
    print(f"# {header}")
    print("# name\tclass\ta\tb\tc\tgpu (hex); reduced by scripts/gpu/numeric_fixture.py")
    kept = 0
    for p, line in rows:
        a, b, c = (int(x, 16) for x in p[2:5])
        h = zlib.crc32(line.encode())
        if (p[0], a, b, c) in must:
            keep = True
        elif is_edge(p[1], a, b):
            keep = edges[p[0]] <= 40 or h % EDGE_KEEP == 0
        else:
            keep = h % RANDOM_KEEP == 0
        if keep:
            sys.stdout.write(line)
            kept += 1
    print(f"kept {kept} of {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
