#!/usr/bin/env python3
"""Consistency checks of corpus/ and tests/mlir/ that need no compiler.

1. Every PTX file has .version, .target and at least one .entry or .func; every cubin is an
   ELF for EM_CUDA (190); every fatbin starts with the fatbin magic 0xBA55ED50.
2. The modules embedded in each tests/mlir/lowered/NAME.ll are byte-identical to
   corpus/mlir/NAME[.MODULE].{ptx,cubin,fatbin}, and nothing else is in corpus/mlir/; the same
   for lowered-llvm19/ and corpus/mlir-llvm19/.
3. Every tests/mlir/NAME.mlir has CHECK lines, a lowered .ll, its assembly and a trace.
4. Every cubin and fatbin has its cuobjdump view next to it (scripts/corpus/dump_objects.sh).

Prints one line per failure and a closing 'corpus: N passed, N failed' line; exits 1 on failure.
"""

import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EM_CUDA = 190


def check_object(path):  # path relative to ROOT
    """Returns an error message for a malformed corpus file, or None."""
    with open(os.path.join(ROOT, path), "rb") as f:
        data = f.read()
    if path.endswith(".ptx"):
        text = data.decode("latin-1")
        for needle in (r"^\.version \d+\.\d+", r"^\.target sm_\d+", r"\.(entry|func)\s"):
            if not re.search(needle, text, re.M):
                return f"{path}: no match for {needle}"
    dump = {".cubin": ".elf.txt", ".fatbin": ".txt"}.get(os.path.splitext(path)[1])
    if dump and not os.path.exists(os.path.join(ROOT, path + dump)):
        return f"{path}: no {path + dump} (run scripts/corpus/dump_objects.sh)"
    if path.endswith(".cubin"):
        if data[:4] != b"\x7fELF":
            return f"{path}: not an ELF file"
        machine = struct.unpack_from("<H", data, 18)[0]
        if machine != EM_CUDA:
            return f"{path}: e_machine {machine}, expected {EM_CUDA} (EM_CUDA)"
    elif path.endswith(".fatbin"):
        if struct.unpack_from("<I", data, 0)[0] != 0xBA55ED50:
            return f"{path}: no fatbin magic"
    return None


def corpus_objects():
    for dirpath, _, files in os.walk(os.path.join(ROOT, "corpus")):
        for name in sorted(files):
            if name.endswith((".ptx", ".cubin", ".fatbin")):
                yield os.path.join(dirpath, name)


def check_mlir_extraction(results, suffix=""):
    lowered = os.path.join(ROOT, "tests", "mlir", "lowered" + suffix)
    corpus = os.path.join(ROOT, "corpus", "mlir" + suffix)
    label = "corpus/mlir" + suffix
    expected = set()
    with tempfile.TemporaryDirectory() as tmp:
        for ll in sorted(os.listdir(lowered)):
            name = ll[:-3]
            out = subprocess.run(
                [sys.executable, os.path.join(ROOT, "tests", "mlir", "extract_modules.py"),
                 os.path.join(lowered, ll), tmp, name],
                capture_output=True, text=True)
            if out.returncode != 0:
                results.append(f"extract {ll}: {out.stderr.strip()}")
                continue
            for path in out.stdout.split():
                base = os.path.basename(path)
                expected.add(base)
                committed = os.path.join(corpus, base)
                if not os.path.exists(committed):
                    results.append(f"{label}/{base} missing (embedded in {ll})")
                elif open(path, "rb").read() != open(committed, "rb").read():
                    results.append(f"{label}/{base} differs from the module in {ll}")
                else:
                    results.append(None)
    objects = {f for f in os.listdir(corpus) if f.endswith((".ptx", ".cubin", ".fatbin"))}
    for extra in sorted(objects - expected):
        results.append(f"{label}/{extra} is not embedded in any lowered program")


def check_mlir_programs(results):
    here = os.path.join(ROOT, "tests", "mlir")
    for src in sorted(f for f in os.listdir(here) if f.endswith(".mlir")):
        name = src[:-5]
        text = open(os.path.join(here, src)).read()
        problems = []
        if "// CHECK:" not in text:
            problems.append("no // CHECK: line")
        if "// OPT:" not in text:
            problems.append("no // OPT: line")
        for rel in (f"lowered/{name}.ll", f"asm/{name}.s", f"traces/{name}.trace"):
            if not os.path.exists(os.path.join(here, rel)):
                problems.append(f"tests/mlir/{rel} missing")
        results.append(f"tests/mlir/{src}: " + "; ".join(problems) if problems else None)


def main():
    results = []
    for path in corpus_objects():
        results.append(check_object(os.path.relpath(path, ROOT)))
    check_mlir_extraction(results)
    check_mlir_extraction(results, "-llvm19")
    check_mlir_programs(results)
    failed = [r for r in results if r]
    for r in failed:
        print(r)
    print(f"corpus: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
