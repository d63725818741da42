#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The tree's shape (docs/architecture.md, "Size and shape"), checked:
 - every .c and .h file in src/ and kernel/ has at most 600 lines;
 - no two of them share a name (a file named in a message is one file);
 - no function is over 150 lines, at most 10 are over 80, and each of those
   says why in a "(Long: ...)" comment right above it.
Usage: tree_shape.py SOURCE_DIR. Exit 1 with each finding on stderr."""
import os
import re
import sys

FILE_MAX, FN_MAX, FN_LONG, LONG_MAX = 600, 150, 80, 10


def functions(path):
    """(first line, length, name) of each function definition of a C file."""
    text = open(path, errors="replace").read().split("\n")
    out, depth, start, in_comment = [], 0, None, False
    for i, raw in enumerate(text):
        s = re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', raw)
        if in_comment:
            if "*/" not in s:
                continue
            s, in_comment = s.split("*/", 1)[1], False
        s = re.sub(r"/\*.*?\*/", "", s)
        s = re.sub(r"//.*", "", s)
        if "/*" in s:
            s, in_comment = s.split("/*")[0], True
        if s.startswith("#"):
            continue
        if depth == 0 and start is None and s.rstrip().endswith("{"):
            k = i
            while k > 0 and text[k - 1].strip() and not text[k - 1].rstrip().endswith(
                    (";", "}", "*/")) and not text[k - 1].startswith("#"):
                k -= 1
            sig = " ".join(text[k:i + 1])
            if "(" in sig and ")" in sig and "= {" not in sig and not re.match(
                    r"^\s*(typedef\s+)?(static\s+)?(const\s+)?(struct|enum|union)\s+\w*\s*\{", sig):
                names = [n for n in re.findall(r"(\w+)\s*\(", sig)
                         if n not in ("__attribute__", "format", "aligned", "section")]
                start = (i, k, names[0] if names else "?")
        depth += s.count("{") - s.count("}")
        if depth == 0 and start is not None and "}" in s:
            out.append((start[1], i - start[0] + 1, start[2]))
            start = None
    return out, text


def main(root):
    bad, names, long_fns = [], {}, []
    for top in ("src", "kernel"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                p = os.path.join(d, f)
                rel = os.path.relpath(p, root)
                n = sum(1 for _ in open(p, errors="replace"))
                if n > FILE_MAX:
                    bad.append(f"{rel}: {n} lines (at most {FILE_MAX})")
                names.setdefault(f, []).append(rel)
                if not f.endswith(".c"):
                    continue
                fns, text = functions(p)
                for first, length, name in fns:
                    if length > FN_MAX:
                        bad.append(f"{rel}:{first + 1}: {name} is {length} lines (at most {FN_MAX})")
                    elif length > FN_LONG:
                        above = " ".join(text[max(0, first - 3):first])
                        long_fns.append((rel, first + 1, name, length, "(Long:" in above))
    for f, where in names.items():
        if len(where) > 1:
            bad.append(f"{f}: one name for {len(where)} files: {', '.join(sorted(where))}")
    for rel, line, name, length, why in long_fns:
        if not why:
            bad.append(f"{rel}:{line}: {name} is {length} lines without a (Long: ...) reason above it")
    if len(long_fns) > LONG_MAX:
        bad.append(f"{len(long_fns)} functions over {FN_LONG} lines (at most {LONG_MAX}): " +
                   ", ".join(n for _, _, n, _, _ in long_fns))
    for b in bad:
        print("tree shape: " + b, file=sys.stderr)
    print(f"tree shape: {len(long_fns)} functions over {FN_LONG} lines, each with its reason"
          if not bad else f"tree shape: {len(bad)} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
