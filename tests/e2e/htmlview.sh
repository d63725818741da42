#!/usr/bin/env bash
# The HTML page in headless Chromium: each line's branches (+ taken, - not
# taken, # not executed) with a hover listing every branch, as lcov counts
# them; the table of functions; keys n/j and p/k between uncovered lines;
# excluded lines; a dark theme that follows the system's setting; screenshots
# of both themes.
# Usage: htmlview.sh UCOV SRCDIR WORKDIR
set -u
UCOV=$1 SRC=$2 WORK=$3
. "$SRC/tests/lib.sh"
need_chromium
rm -rf "$WORK" && mkdir -p "$WORK/g" "$WORK/chromium" && cd "$WORK/g" || exit 1
cp "$SRC/tests/e2e/excl/markers.c" . && gcc --coverage -O0 -c markers.c &&
  gcc --coverage markers.o -o m && ./m >/dev/null
cd "$WORK" || exit 1
"$UCOV" report g --html r.html --lcov r.info --title view || fail "report"

headless --dump-dom "file://$WORK/r.html#f=0" >dom.html
# Branches: a line's marks and hover are lcov's BRDA records of that line.
python3 - dom.html r.info <<'PY' && pass "branch marks and hovers are lcov's branches" || fail "branch marks and hovers are lcov's branches"
import html, re, sys
dom = open(sys.argv[1]).read()
want = {}
for line in open(sys.argv[2]):
    if line.startswith("BRDA:"):
        l, b, k, t = line[5:].strip().split(",")
        want.setdefault(int(l), []).append(None if t == "-" else int(t))
assert want, "no branches"
for l, counts in want.items():
    m = re.search(r'<tr id="L%d"[^>]*>.*?<td class="br" title="([^"]*)"[^>]*>(.*?)</td>' % l, dom)
    assert m, l
    title, marks = html.unescape(m.group(1)).split("\n"), re.findall(r'class="(b[tnx])"', m.group(2))
    exp = ["branch %d: " % k + ("not executed" if c is None else "not taken" if c == 0 else
           "taken %d time%s" % (c, "" if c == 1 else "s")) for k, c in enumerate(counts)]
    assert title == exp, (l, title, exp)
    assert marks == ["bx" if c is None else "bt" if c else "bn" for c in counts], (l, marks)
PY
# Functions: one row each, with lcov's counts, linking to their lines.
python3 - dom.html r.info <<'PY' && pass "the table of functions" || fail "the table of functions"
import re, sys
dom = open(sys.argv[1]).read()
t = re.search(r'<table id="functions">(.*?)</table>', dom).group(1)
rows = re.findall(r'<a href="#f=0&amp;l=(\d+)">([^<]*)</a></td><td class="n">\d+</td><td class="n [a-z]+">(\d+)', t)
fn = {}
for line in open(sys.argv[2]):
    if line.startswith("FN:"):
        l, n = line[3:].strip().split(",", 1); fn[n] = [l, None]
    elif line.startswith("FNDA:"):
        c, n = line[5:].strip().split(",", 1); fn[n][1] = c
assert sorted((n, l, c) for l, n, c in rows) == sorted((n, l, c) for n, (l, c) in fn.items()), rows
PY
grep -q '<tr id="L7" class="excl">' dom.html && pass "excluded lines marked" || fail "excluded lines marked"

# Keys: n/j to the next uncovered line, p/k back, wrapping; the address follows.
misses=$(awk -F'[:,]' '/^DA:/ && $3 == 0 {printf "L%s ", $2}' r.info)
read -r m1 m2 m3 _ <<<"$misses"
# keys PAGE#FRAGMENT KEY...: the keys pressed in the page, and after each the
# row marked (its id and count), then the address.
keys() {
  local src=$1
  shift
  cat >keys.html <<H
<!DOCTYPE html><html><body><iframe id="f" src="$src" width="1000" height="700"></iframe>
<script>
document.getElementById('f').onload = () => {
  const w = document.getElementById('f').contentWindow, d = w.document, out = [];
  for (const c of '$*'.split(' ')) {
    d.dispatchEvent(new w.KeyboardEvent('keydown', {key: c}));
    const r = d.querySelectorAll('tr.cur');
    out.push(c + ':' + (r.length === 1 ? r[0].id + '=' + r[0].querySelector('td.cnt').textContent : r.length));
  }
  out.push(w.location.hash);
  const p = document.createElement('pre');
  p.id = 'res';
  p.textContent = out.join(' ');
  document.body.appendChild(p);
};
</script></body></html>
H
  headless --allow-file-access-from-files --dump-dom "file://$WORK/keys.html" |
    sed -n 's/.*<pre id="res">\([^<]*\)<.*/\1/p'
}
res=$(keys 'r.html#f=0' n n j p k)
[ "$res" = "n:$m1=0 n:$m2=0 j:$m3=0 p:$m2=0 k:$m1=0 #f=0&amp;l=${m1#L}" ] && pass "keys between uncovered lines ($misses): $res" ||
  fail "keys between uncovered lines ($misses): $res"

# Themes: the system's setting picks light or dark colours.
cat >theme.html <<'H'
<!DOCTYPE html><html><body><iframe id="f" src="r.html#f=0"></iframe>
<script>
document.getElementById('f').onload = () => {
  const d = document.getElementById('f').contentWindow.document, cs = getComputedStyle(d.body);
  const p = document.createElement('pre');
  p.id = 'res';
  p.textContent = d.body.dataset.scheme + ' ' + cs.backgroundColor;
  document.body.appendChild(p);
};
</script></body></html>
H
t() { headless --allow-file-access-from-files "$@" --dump-dom "file://$WORK/theme.html" |
  sed -n 's/.*<pre id="res">\([^<]*\)<.*/\1/p'; }
light=$(t) dark=$(t --force-dark-mode)
[ "$light" = "light rgb(255, 255, 255)" ] && [ "${dark%% *}" = dark ] && [ "${dark#dark }" != "rgb(255, 255, 255)" ] &&
  pass "themes: light '$light', dark '$dark'" || fail "themes: light '$light', dark '$dark'"
headless --screenshot="$WORK/light.png" "file://$WORK/r.html#f=0"
headless --force-dark-mode --screenshot="$WORK/dark.png" "file://$WORK/r.html#f=0"
[ -s light.png ] && [ -s dark.png ] && ! cmp -s light.png dark.png && pass "the two themes render differently" ||
  fail "screenshots of both themes differ"
# Without its source, a file shows the lines that have data, however large
# their numbers (not four billion empty rows).
printf 'SF:/nonexistent/x.c\nDA:3,1\nDA:4000000000,0\nend_of_record\n' >far.info
"$UCOV" report far.info --html far.html
headless --dump-dom "file://$WORK/far.html#f=0" >far.dom
[ "$(grep -o '<tr id="L[0-9]*"' far.dom | tr '\n' ' ')" = '<tr id="L3" <tr id="L4000000000" ' ] &&
  grep -q 'source not available' far.dom && pass "a file without its source" || fail "a file without its source: $(grep -c '<tr id=' far.dom) rows"

# At scale: a 500,000-line file opens at the line a fragment names
# (#file=PATH&line=N), with only the rows on screen and a margin in the DOM;
# n goes on to the next uncovered line from there, wherever it is.
python3 "$SRC/tests/e2e/gen_lines.py" "$WORK" 500000
"$UCOV" report huge.info --html huge.html || fail "huge report"
headless --dump-dom "file://$WORK/huge.html#file=$WORK/huge.c&line=400002" >huge.dom
rows=$(grep -o '<tr id="L' huge.dom | wc -l)
grep -q '<tr id="L400002" class="hit cur"><td class="ln">400002</td><td class="cnt">4</td>' huge.dom &&
  [ "$rows" -gt 0 ] && [ "$rows" -lt 3000 ] && pass "a 500,000-line file opens at #file=PATH&line=N ($rows rows in the DOM)" ||
  fail "a 500,000-line file opens at #file=PATH&line=N: $rows rows, $(grep -o '<tr id="L400002"[^>]*>' huge.dom)"
res=$(keys 'huge.html#file=huge.c&line=400002' n n p)
# the uncovered lines after 400002: every 15th line from 400005 on
[ "$res" = "n:L400005=0 n:L400020=0 p:L400005=0 #file=huge.c&amp;line=400005" ] &&
  pass "keys in a 500,000-line file, from a fragment's line: $res" || fail "keys in a 500,000-line file: $res"
# The source as the page holds it: chunks of whole lines, each a script of
# its own, as it is where a script can hold it and as a JSON string where
# not (a "</script>", a "<!--", a NUL, a lone CR); a CR before a newline is
# no part of its line. Every row rendered, around lines in every kind of
# chunk, shows exactly its line of the file.
python3 - "$WORK" <<'PY'
import sys
w, lines = sys.argv[1], []
for i in range(1, 6001):
    s = "static const int value_number_%d = %d; /* a comment to make it longer */" % (i, i)
    if i == 700:
        s = "x" * 150000 + " one long line"
    elif i == 1500:
        s = 'char *s = "</script>"; /* would end a script */'
    elif i == 2500:
        s = 'char *c = "<!-- <script>"; /* would escape one */'
    elif 3000 <= i < 3100:
        s = "crlf %d\r" % i
    elif i == 4600:
        s = "a nul \x00 and a lone CR \r in the line"
    elif i == 5200:
        s = 'const char *t = "</SCRIPT >";'
    elif i % 113 == 0:
        s = "utf8 \u00e9\u65e5\u672c %d, and an invalid byte: \udcff" % i
    elif i % 89 == 0:
        s = "tabs\tand & < > \" ' %d" % i
    lines.append(s)
open(w + "/hostile.c", "wb").write("\n".join(lines).encode("utf-8", "surrogateescape"))
with open(w + "/hostile.info", "w") as f:
    f.write("TN:\nSF:%s/hostile.c\n" % w + "".join("DA:%d,%d\n" % (i, i % 3) for i in range(1, 6001, 7)))
    f.write("end_of_record\n")
PY
"$UCOV" report hostile.info --html hostile.html || fail "hostile source report"
for l in 10 700 1500 2500 3050 4600 5200 6000; do
  headless --dump-dom "file://$WORK/hostile.html#file=hostile.c&line=$l" >"hostile$l.dom"
done
python3 - hostile.c hostile.html hostile*.dom <<'PY' && pass "a source in chunks, raw and JSON, shown line for line" ||
import html, re, sys
want = open(sys.argv[1], "rb").read().decode("utf-8", "replace").replace("\r\n", "\n").replace("\0", "").split("\n")
kinds = re.findall(r'<script type="([a-z/]+)" id="s0_\d+">', open(sys.argv[2], encoding="utf-8", errors="replace").read())
assert kinds.count("text/plain") >= 3 and kinds.count("application/json") >= 3, kinds
seen = set()
for dom in sys.argv[3:]:
    d = open(dom, encoding="utf-8", errors="replace", newline="").read()
    rows = re.findall(r'<tr id="L(\d+)"[^>]*>.*?<td class="src">(.*?)</td></tr>', d, re.S)
    at = int(re.search(r"hostile(\d+)", dom).group(1))
    assert any(int(l) == at for l, _ in rows), (dom, len(rows))
    for l, t in rows:
        # (Chromium writes a CR in the DOM out as a newline)
        assert html.unescape(t).replace("\0", "") == want[int(l) - 1].replace("\r", "\n"), (dom, l, t[:80], want[int(l) - 1][:80])
        seen.add(int(l))
assert len(want) == 6000 and len(seen) > 2000, (len(want), len(seen))
PY
  fail "a source in chunks, raw and JSON, shown line for line"
# --html-dir: the same viewer as DIR/index.html, each file's data in
# DIR/files/N.js, loaded when the file is opened.
printf 'SF:/p/a/x.c\nDA:1,1\nend_of_record\nSF:/p/b/x.c\nDA:2,0\nend_of_record\n' >two.info
"$UCOV" report huge.info two.info --html-dir hd || fail "--html-dir"
headless --dump-dom "file://$WORK/hd/index.html#file=huge.c&line=400002" >hd.dom
headless --dump-dom "file://$WORK/hd/index.html#file=b/x.c&line=2" >hd2.dom
[ -s hd/files/0.js ] && [ -s hd/files/2.js ] && [ "$(wc -c <hd/index.html)" -lt 100000 ] &&
  grep -q '<tr id="L400002" class="hit cur"><td class="ln">400002</td><td class="cnt">4</td>' hd.dom &&
  grep -q '<tr id="L2" class="miss cur">' hd2.dom && pass "--html-dir: an index, a data file per source, the same views" ||
  fail "--html-dir: $(find hd | tr '\n' ' ')"
# #file= takes a unique ending of a path; an ambiguous one opens the summary.
"$UCOV" report two.info --html two.html
headless --dump-dom "file://$WORK/two.html#file=b/x.c&line=2" >two.dom
headless --dump-dom "file://$WORK/two.html#file=x.c" >two2.dom
grep -q '<h2>/p/b/x.c</h2>' two.dom && grep -q '<tr id="L2" class="miss cur">' two.dom &&
  grep -q '<table id="summary">' two2.dom && pass "#file= by a unique ending; an ambiguous one lists the files" ||
  fail "#file= by a unique ending: $(grep -o '<h2>[^<]*' two.dom) / $(grep -c summary two2.dom)"
finish htmlview
