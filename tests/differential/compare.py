#!/usr/bin/env python3
"""Compares a device's differential outputs with a reference device's.

    compare.py REFERENCE_DIR TEST_DIR

A case passes when it ran on both and every checked output agrees as its case says: exact
bytes, within N float ULPs, or within a relative error (approximate math); printed lines must
be the same in any order. Prints one line per case and ends with `N passed, N failed`; exit
status 1 on any failure other than a known (xfail) one.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES  # noqa: E402
from case_model import element_type  # noqa: E402
from elements import elements_differ  # noqa: E402
from report import Tally  # noqa: E402


def read(path):
    with open(path, "rb") as f:
        return f.read()


def case_problems(case, ref_dir, test_dir, ref_status, test_status):
    name = case["name"]
    if ref_status[name] != "ok":
        return ["reference failed: " + ref_status[name]]
    if test_status.get(name) != "ok":
        return [test_status.get(name, "not run")]
    problems = []
    for n, check in case["check"].items():
        ref = read(os.path.join(ref_dir, "%s.%d.bin" % (name, n)))
        got = read(os.path.join(test_dir, "%s.%d.bin" % (name, n)))
        bad = elements_differ(element_type(case["args"][n]), ref, got, check,
                              set(case["skip"].get(n, [])))
        if bad:
            problems.append("arg %d: %d elements differ, first at %s" % (n, len(bad), bad[0]))
    if case["stdout"] is not None:
        printed = [sorted(read(os.path.join(d, "%s.stdout" % name)).decode().splitlines())
                   for d in (ref_dir, test_dir)]
        if printed[0] != printed[1]:
            problems.append("printed lines differ")
    return problems


def main():
    ref_dir, test_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(ref_dir, "status.json")) as f:
        ref_status = json.load(f)
    with open(os.path.join(test_dir, "status.json")) as f:
        test_status = json.load(f)
    tally = Tally()
    for case in CASES:
        if case["name"] in ref_status:
            tally.record(case, case_problems(case, ref_dir, test_dir, ref_status, test_status),
                         case.get("xfail_gpu"))
    sys.exit(tally.summary())


if __name__ == "__main__":
    main()
