#!/usr/bin/env python3
"""Checks that what README.md and docs/*.md name exists in the code, wherever it is named: in
runnable blocks, in `no-ci` and `text` blocks (whose commands snippets.py does not run), and in
inline code.

    references.py FILE.md...

- Every `chevron SUBCOMMAND [--flag ...]` command: the subcommand exists and each of its
  `--flag`s (before a lone `--`) appears in `chevron SUBCOMMAND --help` (the built CLI,
  target/debug/chevron).
- Every repository path (`scripts/…`, `tests/…`, `crates/…`, `docs/…`, `corpus/…`, `include/…`,
  `python/…`, `fuzz/…`) exists; paths holding a placeholder (`NAME`, `FILE`, `*`, `…`) are
  skipped.
- Every `CHEVRON_*` environment variable, anywhere on the page, appears in the code.

Prints each mismatch, then `docs references: N commands (N flags), N paths, N variables
checked, N wrong`; exits 1 when anything is wrong.
"""

import os
import re
import subprocess
import sys

from snippets import ROOT, blocks

CHEVRON = os.path.join(ROOT, "target", "debug", "chevron")
TOP_DIRS = ("scripts", "tests", "crates", "docs", "corpus", "include", "python", "fuzz")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[A-Za-z0-9_.+/*…-]*[A-Za-z0-9_/*…])" % "|".join(TOP_DIRS))
VARIABLE = re.compile(r"\bCHEVRON_[A-Z0-9_]*[A-Z0-9]\b")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# A command line: optional prompt and VAR=value words, then the chevron binary.
COMMAND = re.compile(r"^\s*(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:\S*/)?chevron\s+([a-z][a-z-]*)(\s.*)?$")
SOURCES = ("crates", "scripts", "python", "tests", "include")


def code_of(path):
    """Yields (line, text) of every code block and of every inline code span outside blocks."""
    in_block = set()
    for start, words, text in blocks(path):
        count = text.count("\n")
        in_block.update(range(start - 1, start + count + 1))
        yield start - 1, " ".join(words[1:])  # a `no-ci` reason names files too
        yield start, text
    for number, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if number in in_block:
            continue
        for match in CODE_SPAN.finditer(line):
            yield number, match.group(2)


def commands(text):
    """(subcommand, [flags]) for each chevron command line of `text`."""
    found = []
    for line in text.replace("\\\n", " ").split("\n"):
        line = line.split(" #")[0]
        match = COMMAND.match(line)
        if not match:
            continue
        words = (match.group(2) or "").split()
        # Output, not a command: `chevron check (memcheck): 1 problem(s)`, `chevron
        # instrumentation summary:`.
        if any(w.endswith(":") or w.startswith("(") for w in words[:2]):
            continue
        flags = []
        for word in words:
            if word == "--":
                break
            if word.startswith("--") and len(word) > 2:
                flags.append(re.split(r"[=\[]", word)[0].rstrip(".,;:)'\""))
        found.append((match.group(1), flags))
    return found


def placeholder(path):
    return bool(re.search(r"[*…{}<>]|\.\.\.|(?:^|[/._-])[A-Z]{2,}(?:$|[/._-])", path))


def help_text(subcommand, cache):
    if subcommand not in cache:
        done = subprocess.run([CHEVRON, subcommand, "--help"], capture_output=True, text=True)
        cache[subcommand] = done.stdout if done.returncode == 0 else None
    return cache[subcommand]


def code_variables():
    """Every CHEVRON_* name in the code (sources, scripts, tests)."""
    names = set()
    for top in SOURCES:
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith((".rs", ".py", ".sh", ".c", ".h", ".cu", ".toml")):
                    try:
                        text = open(os.path.join(dirpath, name), encoding="utf-8").read()
                    except (UnicodeDecodeError, OSError):
                        continue
                    names.update(VARIABLE.findall(text))
    return names


def main(files):
    if not os.access(CHEVRON, os.X_OK):
        sys.exit("references.py: %s is not built" % CHEVRON)
    helps, known = {}, code_variables()
    counts = {"commands": 0, "flags": 0, "paths": 0, "variables": 0}
    wrong = 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        for line, text in code_of(path):
            where = "%s:%d" % (rel, line)
            for subcommand, flags in commands(text):
                counts["commands"] += 1
                counts["flags"] += len(flags)
                usage = help_text(subcommand, helps)
                if usage is None:
                    wrong += 1
                    print("%s: `chevron %s`: no such subcommand" % (where, subcommand))
                    continue
                for flag in flags:
                    if not re.search(r"(^|[\s,\[])%s\b" % re.escape(flag), usage):
                        wrong += 1
                        print("%s: `chevron %s %s`: no such option" % (where, subcommand, flag))
            for repo_path in PATH.findall(text):
                if placeholder(repo_path):
                    continue
                counts["paths"] += 1
                if not os.path.exists(os.path.join(ROOT, repo_path)):
                    wrong += 1
                    print("%s: %s does not exist" % (where, repo_path))
        for number, text in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
            for variable in VARIABLE.findall(text):
                counts["variables"] += 1
                if variable not in known:
                    wrong += 1
                    print("%s:%d: %s is not read anywhere in the code" % (rel, number, variable))
    print("docs references: %d commands (%d flags), %d paths, %d variables checked, %d wrong"
          % (counts["commands"], counts["flags"], counts["paths"], counts["variables"], wrong))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
