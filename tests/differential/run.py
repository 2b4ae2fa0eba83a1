#!/usr/bin/env python3
"""Runs every differential case on one chevron device and saves the output buffers.

    run.py --chevron target/release/chevron --device cpu --out DIR [--only NAME ...] [--jobs N]

Writes DIR/NAME.ARG.bin for each checked output, DIR/NAME.stdout for cases that check what
the kernel prints, and DIR/status.json: per case `ok`, or the one-line error chevron printed.
Exit status 0 even when cases fail: compare.py and verify.py judge.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import CASES, Rand  # noqa: E402
from case_model import spec_of  # noqa: E402


def arg_specs(case, inputs_dir):
    specs = []
    for i, arg in enumerate(case["args"]):
        if isinstance(arg, Rand):
            path = os.path.join(inputs_dir, "%s.%d.in" % (case["name"], i))
            with open(path, "wb") as f:
                f.write(arg.data())
            specs.append("%s[%d]=file:%s" % (arg.ty, arg.count, path))
        else:
            specs.append(spec_of(arg))
    return specs


def is_summary(line):
    """Whether a line is chevron's `--json` summary (which the C runtime's buffered device
    printf output may follow rather than precede)."""
    if not line.startswith("{"):
        return False
    try:
        return "kernel" in json.loads(line)
    except ValueError:
        return False


def device_output(stdout):
    """What the kernel printed: every line but chevron's summary."""
    return "".join(line + "\n" for line in stdout.splitlines() if not is_summary(line))


def run_case(case, opts, inputs):
    command = [opts.chevron, "run", case["file"], case["kernel"], "--grid", case["grid"],
               "--block", case["block"], "--shared", str(case["shared"]),
               "--device", opts.device, "--json"]
    for spec in arg_specs(case, inputs):
        command += ["--arg", spec]
    for n in case["check"]:
        command += ["--save", "%d=%s" % (n, os.path.join(opts.out, "%s.%d.bin" % (case["name"], n)))]
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=opts.timeout)
        status = "ok" if done.returncode == 0 else (
            done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
        if case["stdout"] is not None:
            with open(os.path.join(opts.out, "%s.stdout" % case["name"]), "w") as f:
                f.write(device_output(done.stdout))
    except subprocess.TimeoutExpired:
        status = "timed out after %gs" % opts.timeout
    return status, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chevron", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once")
    opts = parser.parse_args()
    inputs = os.path.join(opts.out, "inputs")
    os.makedirs(inputs, exist_ok=True)
    chosen = [c for c in CASES if not opts.only or c["name"] in opts.only]
    status = {}
    status_path = os.path.join(opts.out, "status.json")
    if opts.only and os.path.exists(status_path):  # a partial rerun keeps the other verdicts
        with open(status_path) as f:
            status = json.load(f)
    with ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        results = pool.map(lambda c: (c["name"], run_case(c, opts, inputs)), chosen)
        for name, (outcome, seconds) in results:
            status[name] = outcome
            print("%-26s %6.2fs %s" % (name, seconds, outcome), flush=True)
    with open(status_path, "w") as f:
        json.dump(status, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
