#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The site table of a dormant build against objdump (tests/e2e/dormant.sh,
builds.sh).

    dormant_sites.py PLAIN DORMANT

PLAIN is the program built with the same flags without --dormant: objdump
lists its calls and tail jumps (jmp, jcc) to the hooks. DORMANT's table
(.ucov_sites) must hold exactly those sites, each as (function, offset in it,
kind), every site and nothing else; each site's bytes in DORMANT's file must
be its dormant form, and its live bytes the opcode objdump shows. Prints
"same N" (N sites), else what differs, and exits 1.

A DORMANT built with ucov's twins plugin (it has functions "f.ucov_twin...")
is checked against itself instead, as its code is not PLAIN's: the hook calls
the link kept relocations for (readelf) are each a site, except those in the
twins, which stay live calls (objdump); no live hook call is outside a twin;
each twin entry site (kind 4) is a 5-byte NOP at the entry of a function f
whose live form jumps to f's twin. Prints "twins N M" (N sites, M twin
entries).

    dormant_sites.py --mem PID DORMANT live|dormant

Every site of DORMANT, as loaded in process PID, holds that form: prints
"live N" or "dormant N", else what differs, and exits 1.
"""
import collections
import os
import re
import struct
import subprocess
import sys

HOOK = re.compile(
    r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(call|jmp|j[a-z]+)\s+[0-9a-f]+ "
    r"<(__sanitizer_cov_trace_(?!pc_guard_init)\w+|__cyg_profile_func_\w+)(?:@plt)?>$")
HOOK_NAME = re.compile(r"__sanitizer_cov_|__cyg_profile_func_|ucov_")
NOP = {5: bytes.fromhex("0f1f440000"), 6: bytes.fromhex("660f1f440000")}
NOP4 = bytes.fromhex("0f1f4000")


def functions(path):
    """Sorted (address, name) of the text symbols."""
    out = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW" and not f[2].startswith("."):
            syms.append((int(f[0], 16), f[2]))
    return syms


def where(syms, addr):
    lo, hi = 0, len(syms)
    while lo < hi:
        mid = (lo + hi) // 2
        if syms[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    return (syms[lo - 1][1], addr - syms[lo - 1][0]) if lo else ("?", addr)


def objdump_sites(path):
    raw = subprocess.run(["objdump", "-d", path], capture_output=True, text=True,
                         check=True).stdout
    sites = {}
    for line in raw.splitlines():
        m = HOOK.match(line)
        if m:
            kind = 1 if m.group(3) == "call" else (2 if m.group(3) == "jmp" else 3)
            sites[int(m.group(1), 16)] = (kind, bytes.fromhex(m.group(2).replace(" ", "")))
    return sites


def elf_sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = hdrs[shstrndx][4]
    secs = {}
    for h in hdrs:
        name = data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode()
        secs[name] = h
    return secs


def file_offset(secs, addr, n):
    for h in secs.values():
        if h[2] & 0x4 and h[1] != 8 and h[3] <= addr and addr + n <= h[3] + h[5]:
            return h[4] + addr - h[3]
    return None


def table(path):
    data = open(path, "rb").read()
    secs = elf_sections(data)
    if ".ucov_sites" not in secs:
        sys.exit(f"{path}: no .ucov_sites section")
    off = secs[".ucov_sites"][4]
    magic, version, esize, count, ret = struct.unpack_from("<QIIQQ", data, off)
    assert magic == 0x5345544953564F43 and version == 1 and esize == 16, "bad table header"
    rows = []
    for i in range(count):
        addr, kind, length = struct.unpack_from("<QBB", data, off + 32 + 16 * i)
        live = data[off + 32 + 16 * i + 10:off + 32 + 16 * i + 10 + length]
        rows.append((addr, kind, length, live))
    return data, secs, ret, rows


def dormant_form(kind, length, live, addr, ret):
    if kind in (1, 4):
        return NOP[length]
    if kind == 2:
        return b"\xc3" + (NOP4 if length == 5 else NOP[5])
    return live[:2] + struct.pack("<i", ret - (addr + length))


def in_memory(pid, path, form):
    _, _, ret, rows = table(path)
    real = os.path.realpath(path)
    base = None
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and os.path.realpath(f[5]) == real and int(f[2], 16) == 0:
            base = int(f[0].split("-")[0], 16)
            break
    if base is None:
        sys.exit(f"{path} is not mapped in process {pid}")
    bad = []
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for addr, kind, length, live in rows:
            mem.seek(base + addr)
            now = mem.read(length)
            want = live if form == "live" else dormant_form(kind, length, live, addr, ret)
            if now != want:
                bad.append(f"site {addr:#x}: {now.hex()}, not its {form} form {want.hex()}")
    if bad:
        print("\n".join(bad[:12]))
        sys.exit(1)
    print(f"{form} {len(rows)}")


RELOC = re.compile(r"^([0-9a-f]+)\s+[0-9a-f]+\s+(R_X86_64_\w+)\s+[0-9a-f]+\s+"
                   r"(__sanitizer_cov_trace_(?!pc_guard_init)\w+|__cyg_profile_func_\w+)")


def hook_relocs(path):
    """Offsets of the kept relocations against a hook in executable sections."""
    out = subprocess.run(["readelf", "-rW", path], capture_output=True, text=True,
                         check=True).stdout
    offs, section = [], ""
    for line in out.splitlines():
        if line.startswith("Relocation section"):
            section = line.split("'")[1]
            continue
        m = RELOC.match(line)
        if m and section.startswith(".rela.text") and m.group(2) in (
                "R_X86_64_PLT32", "R_X86_64_PC32", "R_X86_64_GOTPCRELX",
                "R_X86_64_REX_GOTPCRELX", "R_X86_64_GOTPCREL"):
            offs.append(int(m.group(1), 16))
    return offs


def check_twins(dormant):
    """A twins build against itself (see the top)."""
    data, secs, ret, rows = table(dormant)
    syms = functions(dormant)
    bad = []
    site_of = {}
    for addr, kind, length, live in rows:
        for k in range(length):
            site_of[addr + k] = (addr, kind)
        off = file_offset(secs, addr, length)
        if off is None or data[off:off + length] != dormant_form(kind, length, live, addr, ret):
            bad.append(f"site {addr:#x} is not in its dormant form in the file")
        if kind != 4:
            continue
        func, at = where(syms, addr)
        to = addr + 5 + struct.unpack_from("<i", live, 1)[0]
        twin, into = where(syms, to)
        if live[0] != 0xE9 or at not in (0, 4) or into != 0 or not twin.startswith(
                func + ".ucov_twin"):
            bad.append(f"twin entry {addr:#x} ({func}+{at}) jumps to {twin}+{into}")
    n_sites = 0
    for r in hook_relocs(dormant):
        func, _ = where(syms, r)
        in_twin = ".ucov_twin" in func
        if HOOK_NAME.match(func):
            continue
        hit = site_of.get(r)
        if in_twin and hit:
            bad.append(f"hook call at {r:#x} in twin {func} is a site")
        elif not in_twin and not hit:
            bad.append(f"hook call at {r:#x} in {func} is no site")
        n_sites += bool(hit)
    for addr, (k, _) in objdump_sites(dormant).items():
        func, _ = where(syms, addr)
        if ".ucov_twin" not in func and not HOOK_NAME.match(func):
            bad.append(f"a live hook call at {addr:#x} in {func}, no twin")
    twins = sum(1 for r in rows if r[1] == 4)
    if n_sites + twins != len(rows):
        bad.append(f"{len(rows)} sites, {n_sites} hook calls and {twins} twin entries")
    if not twins:
        bad.append("no twin entry")
    if bad:
        print("\n".join(bad[:12]))
        sys.exit(1)
    print(f"twins {len(rows)} {twins}")


def main():
    if sys.argv[1] == "--mem":
        in_memory(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    plain, dormant = sys.argv[1], sys.argv[2]
    if any(".ucov_twin" in name for _, name in functions(dormant)):
        check_twins(dormant)
        return
    want = objdump_sites(plain)
    psyms = functions(plain)
    data, secs, ret, rows = table(dormant)
    dsyms = functions(dormant)
    # (a hook's own code jumping to another hook is the runtime's, not a site)
    exp = collections.Counter((where(psyms, a) + (k,)) for a, (k, _) in want.items()
                              if not HOOK_NAME.match(where(psyms, a)[0]))
    got = collections.Counter((where(dsyms, a) + (k,)) for a, k, _, _ in rows)
    bad = []
    if exp != got:
        bad.append(f"objdump only: {sorted((exp - got).elements())[:5]}")
        bad.append(f"table only: {sorted((got - exp).elements())[:5]}")
    for addr, kind, length, live in rows:
        off = file_offset(secs, addr, length)
        if off is None:
            bad.append(f"site {addr:#x} not in an executable section")
            continue
        now = data[off:off + length]
        form = dormant_form(kind, length, live, addr, ret)
        if now != form:
            bad.append(f"site {addr:#x}: {now.hex()} in the file, not its dormant form {form.hex()}")
        opcode = {1: (b"\xe8", b"\xff\x15", b"\x67\xe8"), 2: (b"\xe9", b"\xff\x25")}
        if kind in opcode and not any(live.startswith(o) for o in opcode[kind]):
            bad.append(f"site {addr:#x}: live bytes {live.hex()} are not a call or jump")
    if bad:
        print("\n".join(bad[:12]))
        sys.exit(1)
    print(f"same {len(rows)}")


main()
