#!/usr/bin/env python3
# symbolize.py SYMS PCS: each PC's function (SYMS: `nm -n vmlinux`'s text
# symbols, "address name" a line; PCS: a hex PC a line), one byte back, as a
# PC is a call's return address; "outside-the-text" for a PC outside
# _stext.._etext.
import bisect
import sys

syms = [(int(a, 16), n) for a, n in (line.split() for line in open(sys.argv[1]))]
addrs = [a for a, _ in syms]
where = {n: a for a, n in syms}
for line in open(sys.argv[2]):
    pc = int(line, 16)
    i = bisect.bisect_right(addrs, pc - 1) - 1
    inside = where["_stext"] <= pc < where["_etext"]
    print(syms[i][1] if inside and i >= 0 else "outside-the-text")
