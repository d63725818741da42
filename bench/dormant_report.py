#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/RESULTS-dormant.md from bench/dormant_run.sh's raw figures.

    dormant_report.py WORKDIR ROUNDS LUA_SCALE ZLIB_SCALE NFNS
"""
import re
import statistics
import subprocess
import sys

d, rounds, scale, zscale, nfns = sys.argv[1], *map(int, sys.argv[2:6])
HOOK = re.compile(r"__sanitizer_cov_trace_\w+|__cyg_profile_func_\w+")
CCS = ("gcc", "clang")
WORKLOADS = ("lua", "zlib")
TITLE = {"lua": "Lua", "zlib": "zlib"}


def version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "?"


times, timer, records, unique, layout = {}, {}, {}, {}, {}
for line in open(f"{d}/raw.txt"):
    f = line.split()
    if f[0] == "layout":
        layout[(f[1], f[2])] = int(dict(zip(f[3::2], f[4::2]))["records"])
        continue
    if f[0] == "timer":
        timer.setdefault(f[1], []).append([float(x) for x in f[2:6]])
        continue
    w, cc, kind, onoff = f[:4]
    vals = dict(zip(f[4::2], f[5::2]))
    if onoff == "unique":
        unique[(w, cc, kind)] = int(vals["records"])
        continue
    times.setdefault((w, cc, kind, onoff), []).append(float(vals["time"]))
    records[(w, cc, kind, onoff)] = int(vals["records"])
ir = {}
for line in open(f"{d}/callgrind.txt"):
    f = line.split()
    ir[(f[0], f[1], f[2])] = int(f[4])


def hook_calls(path):
    """Calls to the hooks in a callgrind output file (its calls= lines)."""
    names, total, callee = {}, 0, None
    for line in open(path):
        m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line)
        if m:
            if m.group(2):
                names[m.group(1)] = m.group(2).strip()
            if line.startswith("cfn="):
                callee = names.get(m.group(1), "")
            continue
        if line.startswith("calls=") and callee is not None:
            if HOOK.fullmatch(callee):
                total += int(line.split("=")[1].split()[0])
            callee = None
    return total


def sites(path):
    """(sites, calls, tail jumps, twin entries) from ucov cc -v's line."""
    m = re.search(r"(\d+) sites \((\d+) calls, (\d+) tail jumps, (\d+) twin entries\)",
                  open(path).read())
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0, 0)


def ratio(w, cc, kind, fn):
    return fn(times[(w, cc, kind, "off")]) / fn(times[(w, cc, "none", "off")])


loads = [float(x) for x in open(f"{d}/load.txt").read().split()]
print("# Dormant builds\n")
print(f"`bash bench/dormant_run.sh {rounds}` on this VM (2 cores; load average "
      f"{min(loads):.2f} to {max(loads):.2f} during the run). {version(['gcc', '--version'])}; "
      f"{version(['clang', '--version'])}.\n")
print("Two workloads nobody here wrote, each built at -O2 four ways: uninstrumented; **twins** "
      "(`ucov cc --trace --dormant` compiling with ucov's twins plugin: every function a "
      "hook-free plain body, whose entry is a 5-byte NOP, and a traced twin); **call sites** "
      "(the objects of today's trace build linked `--dormant`: each hook call a NOP, as "
      "without a plugin); today's `ucov cc --trace` "
      "(`-fsanitize-coverage=trace-pc,trace-cmp`). Each runs with nobody tracing, and the "
      "last three also tracing the whole run (PC mode, the buffer reset when half full).\n")
print(f"- **Lua** 5.4 (Debian `lua5.4` source package) running `bench/workload.lua` at scale "
      f"{scale} through `bench/lua_driver.c`, as `bench/run.sh` does: an interpreter.")
print(f"- **zlib** 1.2.13 (Debian `zlib` source package) through `bench/zlib_driver.c`: "
      f"{zscale} rounds of deflate (level 6) and inflate of 1 MiB of generated text, in 16 KiB "
      "steps: block-dense code (deflate's match search, inflate's decoding loops), where "
      "per-block instrumentation costs the most.\n")
print(f"Every variant runs once per round, the order rotating; {rounds} rounds; minimum and "
      "median seconds. Instructions: callgrind at scale 1.\n")
for w in WORKLOADS:
    for cc in CCS:
        tw = sites(f"{d}/{w}-{cc}-twins-sites.txt")
        cs = sites(f"{d}/{w}-{cc}-calls-sites.txt")
        print(f"## {TITLE[w]}, {cc}: {tw[3]} twin entries ({tw[0] - tw[3]} hook calls outside "
              f"twins); call sites: {cs[0]} ({cs[1]} calls, {cs[2]} tail jumps)\n")
        print("| variant | min s | median s | x uninstrumented (min) | x (median) | Ir (scale 1) "
              "| x (Ir) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        base_ir = ir[(w, cc, "none")]
        rows = [("uninstrumented", "none", "off"), ("twins, nobody tracing", "twins", "off"),
                ("call sites, nobody tracing", "calls", "off"),
                ("today's --trace, nobody tracing", "trace", "off"),
                ("twins, tracing", "twins", "on"), ("call sites, tracing", "calls", "on"),
                ("today's --trace, tracing", "trace", "on")]
        base = times[(w, cc, "none", "off")]
        for label, kind, onoff in rows:
            t = times[(w, cc, kind, onoff)]
            irs = f"{ir[(w, cc, kind)]:,} | {ir[(w, cc, kind)] / base_ir:.3f}" \
                if onoff == "off" else " | "
            print(f"| {label} | {min(t):.4f} | {statistics.median(t):.4f} | "
                  f"{min(t) / min(base):.3f} | {statistics.median(t) / statistics.median(base):.3f}"
                  f" | {irs} |")
        rt, rc, rr = (records[(w, cc, k, "on")] for k in ("twins", "calls", "trace"))
        ut, uc, ur = (unique.get((w, cc, k), -1) for k in ("twins", "calls", "trace"))
        print(f"\nRecords traced in a run: twins {rt:,}, call sites {rc:,}, today's build {rr:,}; "
              f"UNIQUE (scale 1): twins {ut:,}, call sites {uc:,}, today's build {ur:,}.\n")
        calls_run = hook_calls(f"{d}/cg-{w}-{cc}-trace.out")
        extra_c = ir[(w, cc, "calls")] - base_ir
        extra_t = ir[(w, cc, "twins")] - base_ir
        print(f"Instructions over the uninstrumented build: twins {extra_t:+,}; call sites "
              f"{extra_c:+,}, of which {calls_run:,} are the NOPs standing where today's build "
              f"calls a hook and the rest the code the compiler shaped around those calls; "
              f"today's build {ir[(w, cc, 'trace')] - base_ir:+,}.\n")
print("Lua's records depend on where the linker puts things: its string cache (`luaS_new`) is "
      "indexed by the address of the C string. At scale 1, PC mode: " + "; ".join(
          f"{cc}: today's build {layout[(cc, 'trace')]:,}, the same objects linked in reverse "
          f"order {layout[(cc, 'tracerev')]:,}, twins {layout[(cc, 'twins')]:,}" for cc in CCS)
      + ". zlib's are layout-free and equal; the hook calls of each function (objdump) are the "
      "trace build's in the twins, and the UNIQUE counts are equal.\n")
print("## Patching\n")
print("Microseconds; `bench/dormant_timer.c`, a new process each round, "
      f"{len(timer.get('fns-gcc', []))} processes: the first enable reads the table from the "
      "file and makes every site live; the last disable makes them dormant; later rounds patch "
      "with the table already read. Lua: linked with the interpreter's objects (the call sites' "
      f"or the twins'). {nfns:,} functions: generated (`bench_fns`), every one with a twin, "
      "while another thread calls them all in a loop (meeting sites in mid-patch).\n")
print("| build | sites | first enable | first disable | later enables (median) | "
      "later disables (median) | later enables (max) | later disables (max) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for cc in CCS:
    for name, label, sfile in ((f"lua-{cc}-calls", f"Lua, {cc}, call sites",
                                f"lua-{cc}-calls-sites.txt"),
                               (f"lua-{cc}-twins", f"Lua, {cc}, twins",
                                f"lua-{cc}-twins-sites.txt"),
                               (f"fns-{cc}", f"{nfns:,} functions, {cc}, twins, a thread running",
                                f"fns-{cc}-sites.txt")):
        tm = timer[name]
        col = list(zip(*tm))
        med = [statistics.median(c) for c in col]
        print(f"| {label} | {sites(f'{d}/{sfile}')[0]:,} | {med[0]:.0f} | {med[1]:.0f} | "
              f"{med[2]:.0f} | {med[3]:.0f} | {max(col[2]):.0f} | {max(col[3]):.0f} |")
print("\n(each cell: the median over the processes; later rounds: each process's median of 20.)\n")
print("## EXT alone, clang\n")
print("Lua with entry and exit instrumentation only, nobody tracing: `ucov cc --ext --dormant` "
      "(XRay sleds: a short jump over NOPs at each entry, a `ret` and NOPs at each exit) against "
      "today's `ucov cc --ext` (`-finstrument-functions`: two hook calls per function call).\n")
print("| variant | min s | median s | x uninstrumented (min) | x (median) |")
print("|---|---:|---:|---:|---:|")
for label, kind in (("uninstrumented", "none"), ("XRay sleds, dormant", "xray"),
                    ("-finstrument-functions, nobody tracing", "cyg")):
    t = times[("lua", "clang", kind, "off")]
    print(f"| {label} | {min(t):.4f} | {statistics.median(t):.4f} | "
          f"{ratio('lua', 'clang', kind, min):.3f} | {ratio('lua', 'clang', kind, statistics.median):.3f} |")
xi, ni = ir[("lua", "clang", "xray")], ir[("lua", "clang", "none")]
print(f"\nInstructions (callgrind, scale 1): XRay sleds {xi:,} against {ni:,} uninstrumented "
      f"(+{(xi - ni) / ni:.1%}).\n")
idle, pairs = {}, {}
for line in open(f"{d}/idle.txt"):
    f = line.split()
    r, w, cc, kind = f[:4]
    t = float(dict(zip(f[4::2], f[5::2]))["time"])
    idle.setdefault((w, cc, kind), []).append(t)
    pairs.setdefault((w, cc, r), {})[kind] = t
n_idle = len(idle[("lua", "gcc", "none")])
print("## Idle, back to back\n")
spread = times[("lua", "gcc", "none", "off")]
print(f"The CPU of this VM changes speed from minute to minute (the uninstrumented Lua ran "
      f"from {min(spread):.2f} to {max(spread):.2f} s above), by more than the difference "
      f"measured: so after the rounds "
      f"above, {n_idle} pairs of runs, the twins build and the uninstrumented one back to back "
      "(which runs first alternating), nobody tracing. The ratio of each pair's two times sees "
      "through a drift slower than a pair.\n")
print("| workload | uninstrumented min s | twins min s | x (min) | x (median) | "
      "x (median of the pairs' ratios) | x (Ir) |")
print("|---|---:|---:|---:|---:|---:|---:|")
idle_x = {}
for w in WORKLOADS:
    for cc in CCS:
        a, b = idle[(w, cc, "none")], idle[(w, cc, "twins")]
        pr = statistics.median(p["twins"] / p["none"] for (pw, pc, _), p in pairs.items()
                               if pw == w and pc == cc and len(p) == 2)
        idle_x[(w, cc)] = (min(b) / min(a), statistics.median(b) / statistics.median(a), pr)
        print(f"| {TITLE[w]}, {cc} | {min(a):.4f} | {min(b):.4f} | {min(b) / min(a):.3f} | "
              f"{statistics.median(b) / statistics.median(a):.3f} | {pr:.3f} | "
              f"{ir[(w, cc, 'twins')] / ir[(w, cc, 'none')]:.3f} |")
print()
print("## Against the targets\n")
for w in WORKLOADS:
    for cc in CCS:
        mn, md, pr = idle_x[(w, cc)]
        ok = mn <= 1.10 and md <= 1.10
        print(f"- {TITLE[w]}, {cc}: twins idle {mn:.3f}x (min), {md:.3f}x (median), {pr:.3f}x "
              f"(pairs), {ir[(w, cc, 'twins')] / ir[(w, cc, 'none')]:.3f}x instructions (target "
              f"1.10x: {'met' if ok else 'not met'}).")
for cc in CCS:
    col = list(zip(*timer[f"fns-{cc}"]))
    en, dis = statistics.median(col[2]), statistics.median(col[3])
    print(f"- {nfns:,} functions, {cc}: enable {en:.0f} us, disable {dis:.0f} us (median; target "
          f"1 ms: {'met' if en < 1000 and dis < 1000 else 'not met'}).")
