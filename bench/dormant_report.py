#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/RESULTS-dormant.md from bench/dormant_run.sh's raw figures.

    dormant_report.py WORKDIR ROUNDS SCALE
"""
import re
import statistics
import subprocess
import sys

d, rounds, scale = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
HOOK = re.compile(r"__sanitizer_cov_trace_\w+|__cyg_profile_func_\w+")


def version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "?"


times, timer, records = {}, {}, {}
for line in open(f"{d}/raw.txt"):
    f = line.split()
    if f[1] == "timer":
        timer.setdefault(f[0], []).append([float(x) for x in f[2:6]])
        continue
    cc, kind, onoff = f[0], f[1], f[2]
    vals = dict(zip(f[3::2], f[4::2]))
    times.setdefault((cc, kind, onoff), []).append(float(vals["time"]))
    records[(cc, kind, onoff)] = int(vals["records"])
ir = {}
for line in open(f"{d}/callgrind.txt"):
    f = line.split()
    ir[(f[0], f[1])] = int(f[3])


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


sites = {}
for cc in ("gcc", "clang"):
    m = re.search(r"(\d+) sites \((\d+) calls, (\d+) tail jumps\)",
                  open(f"{d}/{cc}-sites.txt").read())
    sites[cc] = m.groups() if m else ("?", "?", "?")
loads = [float(x) for x in open(f"{d}/load.txt").read().split()]

print("# Dormant builds\n")
print(f"`bash bench/dormant_run.sh {rounds}` on this VM (2 cores; load average "
      f"{min(loads):.2f} to {max(loads):.2f} during the run). {version(['gcc', '--version'])}; "
      f"{version(['clang', '--version'])}.\n")
print("Lua 5.4 (Debian `lua5.4` source package) at -O2, running `bench/workload.lua` at scale "
      f"{scale} through `bench/lua_driver.c`, as `bench/run.sh` does. Variants: uninstrumented; "
      "`ucov cc --trace --dormant` with nobody tracing; `ucov cc --trace` (today's build: "
      "`-fsanitize-coverage=trace-pc,trace-cmp`) with nobody tracing; both tracing the whole "
      "run (PC mode, the buffer reset when half full). Every variant runs once per round, "
      f"the order rotating; {rounds} rounds; minimum and median seconds.\n")
for cc in ("gcc", "clang"):
    base = times[(cc, "none", "off")]
    bmin, bmed = min(base), statistics.median(base)
    n, calls, jumps = sites[cc]
    print(f"## {cc}: {n} sites ({calls} calls, {jumps} tail jumps)\n")
    print("| variant | min s | median s | x uninstrumented (min) | x (median) | Ir (scale 1) |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [("uninstrumented", "none", "off"), ("dormant, nobody tracing", "dormant", "off"),
            ("today's --trace, nobody tracing", "trace", "off"),
            ("dormant, tracing", "dormant", "on"), ("today's --trace, tracing", "trace", "on")]
    for label, kind, onoff in rows:
        t = times[(cc, kind, onoff)]
        irs = f"{ir[(cc, kind)]:,}" if onoff == "off" else ""
        print(f"| {label} | {min(t):.4f} | {statistics.median(t):.4f} | {min(t) / bmin:.3f} | "
              f"{statistics.median(t) / bmed:.3f} | {irs} |")
    tr_d, tr_t = records[(cc, "dormant", "on")], records[(cc, "trace", "on")]
    print(f"\nRecords traced in a run: dormant {tr_d:,}, today's build {tr_t:,}"
          f" ({'equal' if tr_d == tr_t else 'DIFFERENT'}).\n")
    calls_run = hook_calls(f"{d}/cg-{cc}-trace.out")
    extra = ir[(cc, "dormant")] - ir[(cc, "none")]
    shape = extra - calls_run
    print(f"Where the dormant cost goes (callgrind, scale 1): the dormant build runs "
          f"{extra:,} instructions more than the uninstrumented one. {calls_run:,} of them are the "
          f"NOPs that stand where today's build calls a hook ({calls_run / extra:.0%}); the other "
          f"{shape:,} ({shape / extra:.0%}) are the code the compiler shaped around those calls: "
          "arguments of the comparison hooks computed, values kept in callee-saved registers or "
          "spilled across the call. A build whose hooks were never called would run neither. "
          f"Today's build runs {ir[(cc, 'trace')] - ir[(cc, 'none')]:,} more: the calls, the "
          "returns and each hook's test of the thread's state besides.\n")
    tm = timer[cc]
    fe = [x[0] for x in tm]
    fd = [x[1] for x in tm]
    we = [x[2] for x in tm]
    wd = [x[3] for x in tm]
    print("Patching (microseconds; `bench/dormant_timer.c` linked with the same objects, a new "
          f"process each round, {len(tm)} processes): the first enable reads the table from the "
          "file and makes every site live; the last disable makes them dormant; later rounds "
          "patch with the table already read.\n")
    print("| | min us | median us | max us |")
    print("|---|---:|---:|---:|")
    for label, v in (("first enable", fe), ("first disable", fd), ("later enables (median of 20)", we),
                     ("later disables (median of 20)", wd)):
        print(f"| {label} | {min(v):.0f} | {statistics.median(v):.0f} | {max(v):.0f} |")
    print()
print("## EXT alone, clang\n")
print("The same interpreter with entry and exit instrumentation only, nobody tracing: "
      "`ucov cc --ext --dormant` (XRay sleds: a short jump over NOPs at each entry, a `ret` "
      "and NOPs at each exit) against today's `ucov cc --ext` (`-finstrument-functions`: two "
      "hook calls per function call).\n")
print("| variant | min s | median s | x uninstrumented (min) | x (median) |")
print("|---|---:|---:|---:|---:|")
bx = times[("clang", "none", "off")]
for label, kind in (("uninstrumented", "none"), ("XRay sleds, dormant", "xray"),
                    ("-finstrument-functions, nobody tracing", "cyg")):
    t = times[("clang", kind, "off")]
    print(f"| {label} | {min(t):.4f} | {statistics.median(t):.4f} | {min(t) / min(bx):.3f} | "
          f"{statistics.median(t) / statistics.median(bx):.3f} |")
if ("clang", "xray") in ir:
    xi, ni = ir[("clang", "xray")], ir[("clang", "none")]
    print(f"\nInstructions (callgrind, scale 1): XRay sleds {xi:,} against {ni:,} uninstrumented "
          f"(+{(xi - ni) / ni:.1%}): one taken `jmp` over each entry sled per call; the exit "
          "sleds' NOPs follow a `ret` and never run. The time ratio is above the instruction "
          "ratio: a taken jump redirects the front end, and every function grew by 11 bytes "
          "at its entry and at each return.")
print()
print("## Against the targets\n")
for cc in ("gcc", "clang"):
    b = min(times[(cc, "none", "off")])
    dm = min(times[(cc, "dormant", "off")]) / b
    fe = statistics.median(x[0] for x in timer[cc]) / 1000
    print(f"- {cc}: dormant {dm:.2f}x uninstrumented (target 1.3x: "
          f"{'met' if dm <= 1.3 else 'not met'}); first enable {fe:.2f} ms median (target < 10 ms: "
          f"{'met' if fe < 10 else 'not met'}).")
xr = min(times[("clang", "xray", "off")]) / min(times[("clang", "none", "off")])
print(f"- clang EXT: XRay sleds dormant {xr:.3f}x uninstrumented (target 1.05x: "
      f"{'met' if xr <= 1.05 else 'not met'}).")
