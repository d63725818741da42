#!/usr/bin/env python3
"""Open one view of an HTML report in headless Chromium, as a reader would.

    browser_open.py PAGE#FRAGMENT ID|name=N|- [PROFILE_DIR]
    browser_open.py PAGE list [PROFILE_DIR]

A harness page loads PAGE#FRAGMENT in an iframe (1200x900) and, at its load
event, forces the layout of the element asked for (an id, or name=N for an
<a name="N">, genhtml's line anchors; -: the body) and takes the time since the load
began: the time to the first render of that line's screen. Meanwhile the
renderer processes' peak resident memory (VmHWM) is read from /proc every
20 ms. Prints "MS PEAK_KIB" (MS -1: the element never appeared), or fails.

With "list": a ucov page's file list, timed as a reader uses it: the load
(laid out), a sort by line coverage (clicked, laid out) and a search typed
into it (laid out); prints "LOAD_MS SORT_MS SEARCH_MS PEAK_KIB".
"""
import os
import subprocess
import sys
import tempfile
import time


def descendants(root):
    """The pids of root's descendants, from /proc's parent links."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


def renderer_peak(pids):
    """The largest VmHWM (KiB) among the renderer processes of pids."""
    peak = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if b"--type=renderer" not in f.read():
                    continue
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            continue
    return peak


def main():
    page, target = sys.argv[1], sys.argv[2]
    profile = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="chromium-")
    if target == "list":
        find = "d.body"
    elif target == "-":
        find = "d.body"
    elif target.startswith("name="):
        find = "d.getElementsByName(%r)[0]" % target[5:]
    else:
        find = "d.getElementById(%r)" % target
    page_dir = os.path.dirname(os.path.abspath(page.split("#")[0]))
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=page_dir, delete=False) as h:
        h.write("""<!DOCTYPE html><html><body><iframe id="f" width="1200" height="900"></iframe>
<script>
const f = document.getElementById('f'), t0 = performance.now();
f.onload = () => {
  const d = f.contentDocument, w = f.contentWindow, e = %s, res = [];
  if (e) e.getBoundingClientRect();
  res.push(e ? (performance.now() - t0).toFixed(0) : '-1');
  if (%s && e) {
    let t = performance.now();
    d.querySelector('th[data-k="l"]').click();
    d.body.getBoundingClientRect();
    res.push((performance.now() - t).toFixed(0));
    t = performance.now();
    const i = d.getElementById('filter');
    i.value = 'file777';
    i.dispatchEvent(new w.Event('input'));
    d.body.getBoundingClientRect();
    res.push((performance.now() - t).toFixed(0));
  }
  const p = document.createElement('pre');
  p.id = 'res';
  p.textContent = res.join(' ');
  document.body.appendChild(p);
};
f.src = %r;
</script></body></html>
""" % (find, "true" if target == "list" else "false", os.path.basename(page)))
        harness = h.name
    browser = next(p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p))
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={profile}", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-breakpad",
           "--allow-file-access-from-files", "--window-size=1300,1000", "--dump-dom",
           "file://" + harness]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak, start = 0, time.monotonic()
    while proc.poll() is None and time.monotonic() - start < 300:
        peak = max(peak, renderer_peak(descendants(proc.pid)))
        time.sleep(0.02)
    if proc.poll() is None:
        proc.kill()
    out = proc.communicate()[0].decode("utf-8", "replace")
    os.unlink(harness)
    at = out.find('<pre id="res">')
    if at < 0:
        sys.exit("browser_open: no result (the page did not load within 300 s?)")
    ms = out[at + 14:out.index("<", at + 14)]
    print(ms, peak)  # (with list: LOAD SORT SEARCH PEAK)


if __name__ == "__main__":
    main()
