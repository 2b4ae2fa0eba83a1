"""Per-case verdicts for compare.py and verify.py: ok, FAIL, XFAIL (a known CPU-device bug,
with its diagnosis) or XPASS (a known bug that no longer shows), and the closing tally."""

import os


class Tally:
    """Counts verdicts and prints one line per case."""

    def __init__(self):
        self.passed = self.failed = self.xfailed = self.xpassed = 0

    def record(self, case, problems, known=None):
        """One case's verdict; `known` is the diagnosis of an expected failure (the case's
        `xfail` unless given)."""
        name = case["name"]
        known = known or case.get("xfail")
        if problems and known:
            self.xfailed += 1
            print("XFAIL %-26s %s [known: %s]" % (name, "; ".join(problems), known))
        elif problems:
            self.failed += 1
            print("FAIL  %-26s %s" % (name, "; ".join(problems)))
        elif known:
            self.xpassed += 1
            self.passed += 1
            print("XPASS %-26s marked xfail but passes: remove it from xfail.py" % name)
        else:
            self.passed += 1
            print("ok    %s" % name)

    def summary(self):
        """Prints `N passed, N failed` (and the known failures); the exit status to use."""
        extra = ""
        if self.xfailed:
            extra += ", %d xfail (known CPU-device bugs, listed above)" % self.xfailed
        if self.xpassed:
            extra += ", %d xpass" % self.xpassed
        print("%d passed, %d failed%s" % (self.passed, self.failed, extra))
        return 1 if self.failed else 0


def stdout_problem(expected_lines, path):
    """Compares the lines a kernel printed with the expected ones, in any order."""
    if not os.path.exists(path):
        return "no printed output saved"
    with open(path) as f:
        got = f.read().splitlines()
    if sorted(got) != sorted(expected_lines):
        missing = sorted(set(expected_lines) - set(got))
        extra = sorted(set(got) - set(expected_lines))
        return "printed %d lines, expected %d (missing %r, unexpected %r)" % (
            len(got), len(expected_lines), missing[:2], extra[:2])
    return None
