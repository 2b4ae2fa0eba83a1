#!/usr/bin/env python3
"""Check a program's output against the `// CHECK:` lines of its .mlir source.

Usage: check_output.py PROGRAM.mlir [OUTPUT_FILE]   (output read from stdin by default)

Each CHECK pattern must occur, as a plain substring, in a line of the output after the line
that matched the previous pattern (FileCheck's `CHECK:` without regular expressions).
Exits 0 when all match; otherwise names the first pattern not found and exits 1.
"""

import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        patterns = [line.split("// CHECK:", 1)[1].strip() for line in f if line.startswith("// CHECK:")]
    if not patterns:
        sys.exit(f"{sys.argv[1]}: no // CHECK: lines")
    text = open(sys.argv[2]).read() if len(sys.argv) > 2 else sys.stdin.read()
    lines = text.splitlines()
    pos = 0
    for pattern in patterns:
        while pos < len(lines) and pattern not in lines[pos]:
            pos += 1
        if pos == len(lines):
            print(f"{sys.argv[1]}: CHECK not found (in order): {pattern}", file=sys.stderr)
            return 1
        pos += 1
    print(f"{sys.argv[1]}: {len(patterns)} CHECK lines matched")
    return 0


if __name__ == "__main__":
    sys.exit(main())
