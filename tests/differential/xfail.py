"""Cases the CPU device is known to get wrong, by name, with the diagnosis as the reason.

verify.py and compare.py still run and check these cases; a failure is reported as XFAIL with
this reason (not counted as failed), a pass as XPASS (the entry should go). Each diagnosis has
a minimal reproduction under repros/."""

XFAIL = {}
