"""What a differential case is: a kernel launch with deterministic arguments, how its outputs
are compared between devices, and optionally what the host expects them to be.

A case's `args` are, in kernel parameter order: `chevron run` SPEC strings (`f32:1.5`,
`i32[8]=zeros`, `ptr:1`), `Rand` buffers (seeded PRNG, saved to a file) or `Struct` by-value
parameters (`bytes:HEX`). `check` maps each compared buffer argument to "exact", `ulp(ty, n)`
or `rel(ty, tol)`; `skip` lists element indices whose value depends on thread order.
`expect(ins)` gets every argument's initial value (a list for buffers, a number or tuple for
scalars and structs) and returns {arg: values} or {arg: (values, check)} with the outputs the
host computes; a None value is not checked. `xfail` is the diagnosis of a known CPU-device
failure (the case still runs and is reported as XFAIL, never skipped). `stdout` lists the
lines the kernel prints (device printf), compared in any order.
"""

import random
import struct

from elements import WIDTHS, pack, round_to

EXACT = "exact"


def ulp(ty, n):
    """Within n units in the last place of `ty`."""
    return ("ulp", ty, n)


def rel(ty, tol):
    """Within a relative (or, near zero, absolute) error of tol."""
    return ("rel", ty, tol)


class Rand:
    """A buffer argument filled from a seeded PRNG, written as a file of raw elements.
    Float values are rounded to the element type, so every value is representable."""

    def __init__(self, ty, count, lo, hi, seed, integer=None):
        self.ty, self.count, self.lo, self.hi, self.seed = ty, count, lo, hi, seed
        self.integer = ty not in ("f16", "bf16", "f32", "f64") if integer is None else integer

    def values(self):
        rng = random.Random(self.seed)
        if self.integer:
            return [rng.randint(self.lo, self.hi) for _ in range(self.count)]
        return [round_to(self.ty, rng.uniform(self.lo, self.hi)) for _ in range(self.count)]

    def data(self):
        return pack(self.ty, self.values())


class Values(Rand):
    """A buffer argument of the given values (edge cases: NaN, infinities, signed zeros,
    subnormals, extreme integers), written as a file like a Rand. Floats are rounded to the
    element type."""

    def __init__(self, ty, values):
        super().__init__(ty, len(values), 0, 0, 0)
        self.given = list(values)

    def values(self):
        if self.integer:
            return list(self.given)
        return [v if v != v else round_to(self.ty, float(v)) for v in self.given]


class Struct:
    """A by-value parameter (a C struct): `fmt` is a little-endian `struct` format with the
    padding written out (`x` bytes), so the bytes match the C layout."""

    def __init__(self, fmt, *fields):
        self.fmt, self.fields = fmt, fields

    def spec(self):
        return "bytes:" + struct.pack(self.fmt, *self.fields).hex()


def case(name, file, kernel, grid, block, args, check, shared=0, skip=None, expect=None,
         xfail=None, stdout=None):
    return {
        "name": name,
        "file": file,
        "kernel": kernel,
        "grid": grid,
        "block": block,
        "shared": shared,
        "args": args,
        "check": check,
        "skip": skip or {},
        "expect": expect,
        "xfail": xfail,
        "stdout": stdout,
    }


def element_type(arg):
    """The element type of a buffer argument (a Rand or a `TYPE[COUNT]=...` spec)."""
    return arg.ty if isinstance(arg, Rand) else arg.split("[", 1)[0]


def _number(ty, text):
    if ty in ("f16", "bf16", "f32", "f64"):
        return round_to(ty, float(text))
    return int(text, 0)


def initial_value(arg):
    """What the kernel sees in an argument before it runs: a list for buffers, a number for
    scalars, the field tuple for structs, ("ptr", N) for `ptr:N`."""
    if isinstance(arg, Rand):
        return arg.values()
    if isinstance(arg, Struct):
        return arg.fields
    if "[" in arg:
        ty, rest = arg.split("[", 1)
        count = int(rest.split("]", 1)[0])
        init = rest.split("=", 1)[1]
        if init == "zeros":
            return [0] * count
        if init == "iota":
            return list(range(count))
        if init.startswith("fill:"):
            return [_number(ty, init[5:])] * count
        raise ValueError("no host value for %s" % arg)
    ty, value = arg.split(":", 1)
    if ty == "ptr":
        return ("ptr", int(value))
    if ty == "bytes":
        return bytes.fromhex(value)
    return _number(ty, value)


def spec_of(arg):
    """The SPEC string of an argument that needs no file."""
    return arg.spec() if isinstance(arg, Struct) else arg


__all__ = ["EXACT", "ulp", "rel", "Rand", "Values", "Struct", "case", "element_type", "initial_value",
           "spec_of", "WIDTHS"]
