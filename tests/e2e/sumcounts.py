#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sum every arc counter of the .gcda files and every counter of the LLVM raw
profiles (v8-v10) given (directories are searched), for lossless checks:
  sumcounts.py PATH...   prints the sum
Temporary files of pulls in progress (*.ucov-tmp.*) are not counted."""
import os
import struct
import sys


def gcda_arcs(b):
    total, off = 0, 16
    while off + 8 <= len(b):
        tag, length = struct.unpack_from("<Ii", b, off)
        off += 8
        if tag == 0:
            break
        if length < 0:
            continue
        if tag == 0x01A10000:
            total += sum(struct.unpack_from("<%dq" % (length // 8), b, off))
        off += length
    return total


def profraw_counters(b):
    total, off = 0, 0
    while off + 88 <= len(b):  # several profiles may be concatenated
        magic, version = struct.unpack_from("<QQ", b, off)
        if magic != 0xFF6C70726F667281:
            break
        v = version & 0xFFFFFFFF
        words = 11 if v == 8 else 14 if v == 9 else 16
        h = struct.unpack_from("<%dQ" % words, b, off)
        ids, ndata, pad1, ncnts, pad2 = h[2], h[3], h[4], h[5], h[6]
        rec = 48 if v == 8 else 64
        start = off + words * 8 + ids + ndata * rec + pad1
        total += sum(struct.unpack_from("<%dQ" % ncnts, b, start))
        # the rest of this profile: bitmaps, names, value data; stop here
        break
    return total


def count(path):
    if not path.endswith((".gcda", ".profraw")):
        return 0  # notes links (some dangling), reset files, modules
    with open(path, "rb") as f:
        b = f.read()
    return gcda_arcs(b) if path.endswith(".gcda") else profraw_counters(b)


def main():
    total = 0
    for p in sys.argv[1:]:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                for f in files:
                    if ".ucov-tmp." not in f:
                        total += count(os.path.join(root, f))
        elif os.path.exists(p):
            total += count(p)
    print(total)


if __name__ == "__main__":
    main()
