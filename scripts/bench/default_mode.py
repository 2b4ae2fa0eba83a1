#!/usr/bin/env python3
"""The default-mode part of scripts/bench-cpu-compiled.sh: each kernel as a user runs it, one
`chevron run --json` per run (first launch and compile included), against gcc -O2, an earlier
chevron build and POCL, and the two-thread speed-up. Prints one markdown table; a timing, not
a test."""

import argparse
import json
import os
import statistics
import subprocess
import sys

N24, N23 = 1 << 24, 1 << 23

# name, file ("ptx" or "user"), kernel, grid, block, --arg specs
CASES = [
    ("saxpy", "ptx", "saxpy", "65536", "256",
     [f"f32[{N24}]=iota", f"f32[{N24}]=fill:1", "f32:2", f"u32:{N24}"]),
    ("matmul256", "ptx", "matmul", "16,16", "16,16",
     ["f32[65536]=iota", "f32[65536]=iota", "f32[65536]=zeros", "u32:256"]),
    ("matmul512", "ptx", "matmul", "32,32", "16,16",
     ["f32[262144]=iota", "f32[262144]=iota", "f32[262144]=zeros", "u32:512"]),
    ("block_sum", "ptx", "block_sum", "32768", "256", [f"u32[{N23}]=iota", "u32[32768]=zeros"]),
    ("warp_sum", "ptx", "warp_sum", "32768", "256", [f"u32[{N23}]=iota", "u32[262144]=zeros"]),
    ("histogram", "ptx", "histogram", "64", "256",
     [f"u32[{N23}]=iota", "u32[256]=zeros", f"u32:{N23}"]),
    ("tile_scan", "user", "tile_scan", "4096", "256", ["u32[4194304]=iota", "u32[4194304]=zeros"]),
    ("tile_radix_sort", "user", "tile_radix_sort", "4096", "256", ["u32[1048576]=iota"]),
    ("grid_sum", "user", "grid_sum", "64", "256",
     [f"u32[{N23}]=iota", "u32[64]=zeros", "u32[1]=zeros", f"u32:{N23}"]),
    ("transpose", "user", "transpose", "64,64", "32,8",
     ["f32[4194304]=iota", "f32[4194304]=zeros", "u32:2048"]),
]

# Kernels that must scale on two threads (issue 28: at least 1.8x).
SCALING = ["matmul512", "block_sum", "tile_scan"]

# Targets of the default mode against gcc -O2.
TARGET = {"saxpy": 3, "matmul256": 3, "matmul512": 3}


def run_once(binary, files, case, threads):
    name, file, kernel, grid, block, specs = case
    command = [binary, "run", "--json", files[file], kernel, "--grid", grid, "--block", block]
    for spec in specs:
        command += ["--arg", spec]
    env = dict(os.environ, CHEVRON_CPU_THREADS=str(threads))
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"{name}: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    for line in reversed(done.stdout.splitlines()):
        if '"elapsed_ms"' in line:
            return json.loads(line)["elapsed_ms"]
    sys.exit(f"{name}: no elapsed_ms in the output of {' '.join(command)}")


def median(binary, files, case, runs, threads=1):
    return statistics.median(run_once(binary, files, case, threads) for _ in range(runs))


def pocl_times(args):
    """Median milliseconds per kernel on POCL (one thread), or {} with the reason printed."""
    source = os.path.join(os.path.dirname(__file__), "pocl_bench.c")
    binary = os.path.join(args.out, "pocl_bench")
    built = subprocess.run(["gcc", "-O2", "-o", binary, source, "-lOpenCL"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        print(f"(POCL column empty: cannot build pocl_bench: {built.stderr.strip()[:300]})")
        return {}
    env = dict(os.environ, POCL_MAX_PTHREAD_COUNT="1", POCL_AFFINITY="0")
    done = subprocess.run([binary, args.opencl], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(f"(POCL column partial: {done.stderr.strip()[:300]})")
    times = {}
    for line in done.stdout.splitlines():
        name, value = line.split()
        times[name] = float(value)
    return times


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--chevron", "--native", "--ptx", "--user-ptx", "--baseline", "--opencl",
                 "--out"]:
        parser.add_argument(flag, default="")
    parser.add_argument("--runs", type=int, default=3)
    # The earlier build interprets most first launches: one run each by default.
    parser.add_argument("--baseline-runs", type=int, default=1)
    args = parser.parse_args()
    files = {"ptx": args.ptx, "user": args.user_ptx}
    native = {}
    with open(args.native) as text:
        for line in text:
            name, value = line.split()
            native[name] = float(value)
    pocl = pocl_times(args) if args.opencl else {}
    with open("/proc/cpuinfo") as info:
        model = next((l.split(":", 1)[1].strip() for l in info if l.startswith("model name")), "?")
    print(f"\nDefault mode as a user runs it ({model}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; medians of {args.runs} runs, earlier build "
          f"{args.baseline_runs}, 1 thread unless said):\n")
    print("| kernel | gcc -O2 ms | chevron ms | × gcc | target | earlier build ms | "
          "× gcc | earlier / now | POCL ms | POCL × gcc | 2 threads / 1 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in CASES:
        name = case[0]
        c_ms = native.get(name)
        now = median(args.chevron, files, case, args.runs)
        row = [name, f"{c_ms:.2f}" if c_ms else "?", f"{now:.1f}"]
        row.append(f"{now / c_ms:.1f}×" if c_ms else "?")
        row.append(f"≤ {TARGET.get(name, 10)}×")
        if args.baseline:
            before = median(args.baseline, files, case, args.baseline_runs)
            row += [f"{before:.1f}", f"{before / c_ms:.1f}×" if c_ms else "?",
                    f"{before / now:.1f}×"]
        else:
            row += ["", "", ""]
        p_ms = pocl.get(name)
        row += [f"{p_ms:.1f}" if p_ms else "", f"{p_ms / c_ms:.1f}×" if p_ms and c_ms else ""]
        if name in SCALING:
            two = median(args.chevron, files, case, args.runs, threads=2)
            row.append(f"{now / two:.2f}×")
        else:
            row.append("")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
