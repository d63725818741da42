#!/usr/bin/env python3
"""gen_lines.py DIR N: a generated N-line C file, DIR/huge.c, and its
coverage, DIR/huge.info: every third line instrumented, with (line / 3) % 5
hits (every fifteenth line missed). The HTML view at scale is tested and
measured on it."""
import sys

w, n = sys.argv[1], int(sys.argv[2])
with open(w + "/huge.c", "w") as f:
    for i in range(1, n + 1):
        f.write(f"int v{i} = {i};\n")
with open(w + "/huge.info", "w") as f:
    f.write(f"TN:\nSF:{w}/huge.c\n")
    for i in range(3, n + 1, 3):
        f.write(f"DA:{i},{(i // 3) % 5}\n")
    f.write("end_of_record\n")
