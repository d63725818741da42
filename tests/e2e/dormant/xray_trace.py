#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A clang --ext --dormant trace (XRay entry and exit records) against the
plain --trace build's trace of the same run (tests/e2e/dormant.sh).

    xray_trace.py EXT_TRACE PC_TRACE

Both symbolized, a record a line: "FUNCTION+0xOFFSET KIND" (KIND entry, exit
or normal; none in PC_TRACE). The normal records run through the same
functions as the PC trace; every entry is closed by an exit of the same
function, nested as calls are; the functions entered are the functions the
normal records ran in. Prints "ok N" or what differs, and exits 1.
"""
import sys


def func(rec):
    return rec.split("+")[0]


ext = [line.split() for line in open(sys.argv[1]) if line.strip()]
pcs = [line.split()[0] for line in open(sys.argv[2]) if line.strip()]
normal = [func(r[0]) for r in ext if r[1] == "normal"]
bad = []
if normal != [func(p) for p in pcs]:
    bad.append(f"normal records' functions differ from the PC trace's: {normal[:6]} / "
               f"{[func(p) for p in pcs][:6]}")
stack, entered = [], set()
for rec, kind in ext:
    if kind == "entry":
        stack.append(func(rec))
        entered.add(func(rec))
    elif kind == "exit":
        if not stack or stack[-1] != func(rec):
            bad.append(f"exit of {func(rec)} with {stack[-3:]} open")
            break
        stack.pop()
if stack:
    bad.append(f"entered and never left: {stack}")
if entered != set(normal):
    bad.append(f"entered {sorted(entered)}, ran in {sorted(set(normal))}")
if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"ok {len(ext)}")
