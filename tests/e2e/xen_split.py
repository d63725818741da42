#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Split a Xen coverage blob as Xen's xencov_split does, written here from the
format Xen documents (public/sysctl.h): a u32 magic "XCOV" (0x58434f56), then
records {path NUL-terminated, u32 size, size bytes}, words in the target's
byte order (either is accepted, as xencov_split does).
  xen_split.py BLOB OUTDIR   writes OUTDIR/<path> for each record, prints them"""
import os
import struct
import sys


def main():
    blob = open(sys.argv[1], "rb").read()
    out = sys.argv[2]
    if struct.unpack_from("<I", blob, 0)[0] == 0x58434F56:
        order = "<"
    elif struct.unpack_from(">I", blob, 0)[0] == 0x58434F56:
        order = ">"
    else:
        sys.exit("not a xencov blob")
    off = 4
    while off < len(blob):
        end = blob.index(b"\0", off)
        name = blob[off:end].decode()
        (size,) = struct.unpack_from(order + "I", blob, end + 1)
        data = blob[end + 5 : end + 5 + size]
        if len(data) != size:
            sys.exit("truncated record " + name)
        path = os.path.join(out, name.lstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        print(name)
        off = end + 5 + size


if __name__ == "__main__":
    main()
