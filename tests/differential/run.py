#!/usr/bin/env python3
"""Runs every differential case on one chevron device and saves the output buffers.

    run.py --chevron target/release/chevron --device cpu --out DIR [--only NAME ...]

Writes DIR/NAME.ARG.bin for each checked output and DIR/status.json: per case `ok`, or the
one-line error chevron printed. Exit status 0 even when cases fail: compare.py judges.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, Rand  # noqa: E402


def arg_specs(case, inputs_dir):
    specs = []
    for i, arg in enumerate(case["args"]):
        if isinstance(arg, Rand):
            path = os.path.join(inputs_dir, "%s.%d.in" % (case["name"], i))
            with open(path, "wb") as f:
                f.write(arg.data())
            specs.append("%s[%d]=file:%s" % (arg.ty, arg.count, path))
        else:
            specs.append(arg)
    return specs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chevron", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--timeout", type=float, default=120)
    opts = parser.parse_args()
    inputs = os.path.join(opts.out, "inputs")
    os.makedirs(inputs, exist_ok=True)
    status = {}
    for case in CASES:
        if opts.only and case["name"] not in opts.only:
            continue
        command = [opts.chevron, "run", case["file"], case["kernel"], "--grid", case["grid"],
                   "--block", case["block"], "--shared", str(case["shared"]),
                   "--device", opts.device]
        for spec in arg_specs(case, inputs):
            command += ["--arg", spec]
        for n in case["check"]:
            command += ["--save", "%d=%s" % (n, os.path.join(opts.out, "%s.%d.bin" % (case["name"], n)))]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=opts.timeout)
            status[case["name"]] = "ok" if done.returncode == 0 else (
                done.stderr.strip() or "exit %d" % done.returncode)
        except subprocess.TimeoutExpired:
            status[case["name"]] = "timed out after %gs" % opts.timeout
        print("%-24s %s" % (case["name"], status[case["name"]]), flush=True)
    with open(os.path.join(opts.out, "status.json"), "w") as f:
        json.dump(status, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
