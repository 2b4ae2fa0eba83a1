#!/usr/bin/env python3
"""Checks one device's differential outputs against what the host computes.

    verify.py DIR [--only NAME ...]

Every case carries a host expectation (`expect`, `stdout`; see case_model.py): integer and
exactly rounded results must match bit for bit, library and approximate math within the
tolerance the expectation names. Prints one line per case and ends with `N passed, N failed`;
exit status 1 on any failure other than a known (xfail) one.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES  # noqa: E402
from case_model import EXACT, element_type, initial_value  # noqa: E402
from elements import elements_differ, pack  # noqa: E402
from report import Tally, stdout_problem  # noqa: E402


def expectation_problems(case, out_dir):
    problems = []
    try:
        expected = case["expect"]([initial_value(a) for a in case["args"]]) if case["expect"] else {}
    except Exception as e:  # a broken expectation is a failure of this case, not of the run
        return ["host expectation raised %s: %s" % (type(e).__name__, e)]
    for n, want in sorted(expected.items()):
        values, check = want if isinstance(want, tuple) else (want, EXACT)
        ty = element_type(case["args"][n])
        with open(os.path.join(out_dir, "%s.%d.bin" % (case["name"], n)), "rb") as f:
            got = f.read()
        skip = {i for i, v in enumerate(values) if v is None} | set(case["skip"].get(n, []))
        check = "bits" if check == EXACT else check
        bad = elements_differ(ty, pack(ty, values), got, check, skip)
        if bad:
            problems.append("arg %d: %d of %d elements wrong, first at %s" % (
                n, len(bad), len(values), bad[0]))
    if case["stdout"] is not None:
        problem = stdout_problem(case["stdout"], os.path.join(out_dir, "%s.stdout" % case["name"]))
        if problem:
            problems.append(problem)
    if not expected and case["stdout"] is None:
        problems.append("no host expectation")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--only", nargs="*")
    opts = parser.parse_args()
    with open(os.path.join(opts.dir, "status.json")) as f:
        status = json.load(f)
    tally = Tally()
    for case in CASES:
        if opts.only and case["name"] not in opts.only:
            continue
        if case["name"] not in status:
            tally.record(case, ["not run"])
        elif status[case["name"]] != "ok":
            tally.record(case, [status[case["name"]]])
        else:
            tally.record(case, expectation_problems(case, opts.dir))
    sys.exit(tally.summary())


if __name__ == "__main__":
    main()
