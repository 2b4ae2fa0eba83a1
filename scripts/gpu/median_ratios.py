#!/usr/bin/env python3
"""Medians over several runs of a launch benchmark's ratios to the raw driver, judged against
the targets. Reads the runs' concatenated output on stdin.

  median_ratios.py rust   output of `06-bench` (chevron bench): enqueue ratio of each
                          (kernel, variant); targets checked <= 1.03, unchecked <= 1.01
  median_ratios.py capi   output of tests/capi/bench_launch.c: chevron_launch/raw and
                          mgpu/raw of each kernel; target <= 1.03 for both
Exits 1 when a median misses its target, 0 otherwise."""
import statistics
import sys

RUST_TARGETS = {"chevron checked": 1.03, "chevron unchecked": 1.01}
CAPI_TARGET = 1.03


def rust(lines):
    ratios = {}
    for line in lines:
        if len(line) < 40:
            continue
        kernel, variant, rest = line[:15].strip(), line[16:35].strip(), line[35:].split()
        if variant not in RUST_TARGETS or len(rest) < 2:
            continue
        try:
            ratios.setdefault((kernel, variant), []).append(float(rest[1]))
        except ValueError:
            continue
    return {key: (values, RUST_TARGETS[key[1]]) for key, values in ratios.items()}


def capi(lines):
    ratios = {}
    for line in lines:
        words = line.split()
        if len(words) != 6 or words[0] in ("kernel",):
            continue
        try:
            chevron, mgpu = float(words[4]), float(words[5])
        except ValueError:
            continue
        ratios.setdefault((words[0], "chevron_launch"), []).append(chevron)
        ratios.setdefault((words[0], "mgpuLaunchKernel"), []).append(mgpu)
    return {key: (values, CAPI_TARGET) for key, values in ratios.items()}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("rust", "capi"):
        print(__doc__, file=sys.stderr)
        return 2
    found = (rust if sys.argv[1] == "rust" else capi)(sys.stdin.read().splitlines())
    if not found:
        print("no ratios to the raw driver in the output (no CUDA device?)")
        return 1
    missed = False
    print(f"{'kernel':<15} {'variant':<19} {'runs':>4} {'median ratio':>12} {'target':>7}")
    for (kernel, variant), (values, target) in sorted(found.items()):
        median = statistics.median(values)
        verdict = "met" if median <= target else "MISSED"
        missed |= median > target
        print(f"{kernel:<15} {variant:<19} {len(values):>4} {median:>12.3f} {target:>7.2f}  {verdict}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
