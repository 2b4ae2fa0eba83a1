#!/usr/bin/env python3
"""Runs the code blocks of README.md and docs/*.md as a reader would copy them.

    snippets.py [--list] FILE.md...

Fenced blocks tagged ```sh run from the repository root under bash and under zsh (`set -e`,
`pipefail`), with the built `chevron` CLI (target/debug) first on PATH and CHEVRON_DEVICES=cpu.
zsh reads the block as an interactive shell reads a paste: without rc files, and (zsh's default)
with `#` not starting a comment, so a trailing `# comment` fails as it would for a reader.
Blocks tagged ```rust are compiled as a program against the workspace's built chevron crate
(target/debug/libchevron.rlib; a block without `fn main` is wrapped in one) and run; blocks
tagged ```c are compiled with the system C compiler, linked against libchevron.so and run.
Blocks tagged ```bash or ```shell run as ```sh blocks; in a ```console block the lines after a
`$ ` prompt run as one (the output shown is not compared). Other tags (text, toml, none) are
never run; scripts/docs/references.py checks the commands, paths and variables they name. A
block whose tag line says `no-ci: REASON` (```sh no-ci: needs a GPU) is shown to readers but
not run here, and the reason is printed: keep those few (the test command itself, a GPU, a
file the reader brings); a `no-ci` without a reason fails. Prints one line per block and `docs:
N passed, N failed, N not run (no-ci)`; exits 1 on any failure.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(ROOT, "target", "doc-snippets")
DEBUG = os.path.join(ROOT, "target", "debug")
RUNNABLE = ("sh", "rust", "c", "console")
# Tags run as another: shell blocks by any of their names.
ALIASES = {"bash": "sh", "shell": "sh"}
TIMEOUT_S = 300
FENCE = re.compile(r"^(\s*)(```+)\s*([^`]*)$")


def blocks(path):
    """Yields (line, tag words, text) for each fenced block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match.groups()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        # A `no-ci` reason is one word, kept as written: "no-ci:REASON".
        head, no_ci, reason = info.partition("no-ci")
        words = head.replace(",", " ").split()
        if no_ci:
            words.append("no-ci:" + reason.lstrip(":").strip())
        if words:
            words[0] = ALIASES.get(words[0], words[0])
        yield start, words, "\n".join(body) + "\n"


def no_ci_reason(words):
    """The reason a block's tag line gives after `no-ci` ("" when none); None without `no-ci`."""
    for word in words[1:]:
        if word.startswith("no-ci:"):
            return word[len("no-ci:"):]
    return None


def environment():
    env = dict(os.environ)
    env["PATH"] = DEBUG + os.pathsep + env.get("PATH", "")
    env["CHEVRON_DEVICES"] = "cpu"
    return env


def run(command, stdin=None):
    """Runs a command from the repository root; returns (ok, the tail of its output)."""
    try:
        done = subprocess.run(command, cwd=ROOT, env=environment(), capture_output=True,
                              text=True, timeout=TIMEOUT_S, input=stdin)
    except subprocess.TimeoutExpired:
        return False, "timed out after %d s" % TIMEOUT_S
    output = (done.stdout + done.stderr).strip().split("\n")
    return done.returncode == 0, "\n".join(output[-15:])


def trailing_comment(text):
    """The first line with a `#` comment outside quotes, which a pasted line in zsh passes on as
    arguments; None if there is none."""
    heredoc_end = None
    for line in text.split("\n"):
        # A here-document's body is data (a C program's #include), not shell.
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            continue
        start = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", line)
        if start:
            heredoc_end = start.group(1)
        unquoted = re.sub(r"'[^']*'|\"(\\.|[^\"])*\"", "", line)
        if re.search(r"(^|\s)#", unquoted):
            return line
    return None


def check_sh(name, text):
    comment = trailing_comment(text)
    if comment is not None:
        return False, "a comment, which zsh takes as arguments when pasted: " + comment
    script = os.path.join(WORK, name + ".sh")
    with open(script, "w") as f:
        f.write(text)
    ok, tail = run(["bash", "-e", "-o", "pipefail", script])
    if not ok:
        return False, "bash: " + tail
    ok, tail = run(["zsh", "-f", "-i", "-e", "-o", "pipefail"], stdin=text)
    if not ok:
        return False, "zsh (interactive): " + tail
    return True, ""


def check_rust(name, text):
    if not re.search(r"\bfn\s+main\s*\(", text):
        text = ("fn main() -> Result<(), Box<dyn std::error::Error>> {\n%s\nOk(())\n}\n" % text)
    source = os.path.join(WORK, name + ".rs")
    binary = os.path.join(WORK, name)
    with open(source, "w") as f:
        f.write(text)
    ok, tail = run(["rustc", "--edition", "2021", "--crate-name", "snippet", source, "-o", binary,
                    "--extern", "chevron=" + os.path.join(DEBUG, "libchevron.rlib"),
                    "-L", "dependency=" + os.path.join(DEBUG, "deps")])
    if not ok:
        return False, "rustc: " + tail
    return run([binary])


def check_c(name, text):
    source = os.path.join(WORK, name + ".c")
    binary = os.path.join(WORK, name)
    with open(source, "w") as f:
        f.write(text)
    ok, tail = run([os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Wextra", "-Werror",
                    "-Iinclude", source, "-L" + DEBUG, "-lchevron", "-Wl,-rpath," + DEBUG,
                    "-o", binary])
    if not ok:
        return False, "cc: " + tail
    return run([binary])


def check_console(name, text):
    commands = [line[2:] for line in text.split("\n") if line.startswith("$ ")]
    if not commands:
        return False, "a console block without a `$ ` command line"
    return check_sh(name, "\n".join(commands) + "\n")


CHECKS = {"sh": check_sh, "rust": check_rust, "c": check_c, "console": check_console}


def main(argv):
    listing = "--list" in argv
    files = [a for a in argv if a != "--list"]
    os.makedirs(WORK, exist_ok=True)
    passed = failed = not_run = 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        for line, words, text in blocks(path):
            if not words or words[0] not in RUNNABLE:
                continue
            where = "%s:%d (%s)" % (rel, line, words[0])
            reason = no_ci_reason(words)
            if reason is not None:
                comment = trailing_comment(text) if words[0] == "sh" else None
                if comment is not None:
                    failed += 1
                    print("FAIL   %s\n       a comment, which zsh takes as arguments when "
                          "pasted: %s" % (where, comment))
                    continue
                if not reason:
                    failed += 1
                    print("FAIL   %s\n       `no-ci` without a reason (```%s no-ci: WHY)"
                          % (where, words[0]))
                    continue
                not_run += 1
                print("no-ci  %s: %s" % (where, reason))
                continue
            if listing:
                print("run    " + where)
                continue
            name = re.sub(r"[^A-Za-z0-9]+", "_", rel) + "_%d" % line
            ok, tail = CHECKS[words[0]](name, text)
            if ok:
                passed += 1
                print("ok     " + where)
            else:
                failed += 1
                print("FAIL   " + where + "\n" + "\n".join("       " + t for t in tail.split("\n")))
    print("docs: %d passed, %d failed, %d not run (no-ci)" % (passed, failed, not_run))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
