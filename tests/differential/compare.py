#!/usr/bin/env python3
"""Compares a device's differential outputs with a reference device's.

    compare.py REFERENCE_DIR TEST_DIR

A case passes when it ran on both and every checked output agrees as its case says: exact
bytes, within N float ULPs, or within a relative error (approximate math). Prints one line per
case and ends with `N passed, N failed`; exit status 1 on any failure.
"""

import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES  # noqa: E402

FLOAT = {"f32": ("<f", "<i", 4), "f64": ("<d", "<q", 8)}


def ordered(bits, width):
    """Maps float bit patterns to integers whose distance is the ULP distance."""
    return bits if bits >= 0 else -(bits & ((1 << (8 * width - 1)) - 1))


WIDTHS = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "f32": 4,
          "i64": 8, "u64": 8, "f64": 8}


def element_width(arg):
    """Bytes per element of a buffer argument (a Rand or a `TYPE[COUNT]=...` spec)."""
    ty = arg.ty if hasattr(arg, "ty") else arg.split("[", 1)[0]
    return WIDTHS[ty]


def elements_differ(ref, got, check, skip, step):
    """Element indices where `got` disagrees with `ref`."""
    if len(ref) != len(got):
        return ["length %d vs %d" % (len(got), len(ref))]
    if check == "exact":
        bad = []
        for i in range(0, len(ref), step):
            if ref[i:i + step] != got[i:i + step] and (i // step) not in skip:
                bad.append(i // step)
        return bad
    kind, ty, tol = check
    fmt, ifmt, width = FLOAT[ty]
    count = len(ref) // width
    bad = []
    for i in range(count):
        if i in skip:
            continue
        r = struct.unpack_from(fmt, ref, i * width)[0]
        g = struct.unpack_from(fmt, got, i * width)[0]
        if math.isnan(r) or math.isnan(g):
            if not (math.isnan(r) and math.isnan(g)):
                bad.append(i)
            continue
        if kind == "ulp":
            rb = ordered(struct.unpack_from(ifmt, ref, i * width)[0], width)
            gb = ordered(struct.unpack_from(ifmt, got, i * width)[0], width)
            if abs(rb - gb) > tol:
                bad.append(i)
        elif abs(r - g) > tol * max(abs(r), 1e-30) and abs(r - g) > tol:
            bad.append(i)
    return bad


def main():
    ref_dir, test_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(ref_dir, "status.json")) as f:
        ref_status = json.load(f)
    with open(os.path.join(test_dir, "status.json")) as f:
        test_status = json.load(f)
    passed = failed = 0
    for case in CASES:
        name = case["name"]
        if name not in ref_status:
            continue
        problems = []
        if ref_status[name] != "ok":
            problems.append("reference failed: " + ref_status[name])
        elif test_status.get(name) != "ok":
            problems.append(test_status.get(name, "not run"))
        else:
            for n, check in case["check"].items():
                with open(os.path.join(ref_dir, "%s.%d.bin" % (name, n)), "rb") as f:
                    ref = f.read()
                with open(os.path.join(test_dir, "%s.%d.bin" % (name, n)), "rb") as f:
                    got = f.read()
                bad = elements_differ(ref, got, check, set(case["skip"].get(n, [])),
                                      element_width(case["args"][n]))
                if bad:
                    problems.append("arg %d: %d elements differ, first at %s" % (n, len(bad), bad[0]))
        if problems:
            failed += 1
            print("FAIL %-24s %s" % (name, "; ".join(problems)))
        else:
            passed += 1
            print("ok   %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
