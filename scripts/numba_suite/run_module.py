"""Runs one Numba-CUDA test module with unittest and prints one summary line.

Usage: python run_module.py MODULE. The last line of stdout is
`MODULE passed=P failed=F skipped=S`; each failing test's id and the last line of its
traceback go to stderr first (`FAIL id: reason`), for docs/python.md's failure classes.
"""
import sys
import unittest


class CountingResult(unittest.TextTestResult):
    """A result that also counts successes (unittest counts only the others)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1


def last_line(trace):
    lines = [line for line in trace.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "?"


def main():
    name = sys.argv[1]
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=0, resultclass=CountingResult)
    result = runner.run(suite)
    for test, trace in result.failures + result.errors:
        print(f"FAIL {test.id()}: {last_line(trace)}", file=sys.stderr)
    for test, _ in result.unexpectedSuccesses:
        print(f"FAIL {test.id()}: unexpected success", file=sys.stderr)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped) + len(result.expectedFailures)
    print(f"{name} passed={result.passed} failed={failed} skipped={skipped}", flush=True)


if __name__ == "__main__":
    main()
