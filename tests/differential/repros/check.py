#!/usr/bin/env python3
"""Runs the minimal reproductions of CPU-device divergences and says which still diverge.

    repros/check.py --chevron target/release/chevron [--device cpu] [NAME ...]

Each NAME.ptx has a NAME.json: the kernel, launch shape, `chevron run` arguments, the buffers a
GPU leaves (by argument position) and optionally the lines it prints (`stdout`), the corpus cases it explains, and the diagnosis. Prints one
line per repro and `N passed, N failed`; exit status 1 while any diverges.
"""

import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def check(name, opts):
    with open(os.path.join(HERE, name + ".json")) as f:
        repro = json.load(f)
    command = [opts.chevron, "run", os.path.join(HERE, name + ".ptx"), repro["kernel"],
               "--grid", repro["grid"], "--block", repro["block"], "--device", opts.device, "--json"]
    for spec in repro["args"]:
        command += ["--arg", spec]
    for n in repro["expected"]:
        command += ["--print", n]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]
    lines = done.stdout.splitlines()
    summary = [line for line in lines if line.startswith('{"')][-1]
    buffers = json.loads(summary)["buffers"]
    printed = sorted(line for line in lines if line != summary)
    if "stdout" in repro and printed != sorted(repro["stdout"]):
        return "printed %r, a GPU prints %r" % (printed, repro["stdout"])
    for n, want in repro["expected"].items():
        if buffers[n] != want:
            first = next(i for i, (g, w) in enumerate(zip(buffers[n], want)) if g != w)
            return "arg %s: element %d is %r, a GPU gives %r" % (n, first, buffers[n][first], want[first])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--chevron", required=True)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("names", nargs="*")
    opts = parser.parse_args()
    names = opts.names or sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(HERE, "*.json")))
    failed = 0
    for name in names:
        problem = check(name, opts)
        failed += problem is not None
        print("%-4s %-28s %s" % ("ok" if problem is None else "FAIL", name, problem or ""))
    print("%d passed, %d failed" % (len(names) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
