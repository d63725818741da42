/* SPDX-License-Identifier: MIT */
/*
 * One self-contained HTML report: the coverage and the sources as JSON in the
 * page, rendered by a small script (no network, no external assets). The
 * summary is a sortable, filterable table of files; a file's page (#f=N)
 * shows its source with counts, coloured, and its functions. Pages are built
 * when opened, so 10,000 files cost one table.
 *
 * DOM the tests rely on: table#summary (tr[data-path] rows), table#source
 * (tr#L<line> rows with class hit/miss/none/excl and td.cnt holding the
 * count; td.br a line's branches: + taken, - not taken, # not executed, each
 * listed in its title), table#functions (a row per function), the keys n/j
 * and p/k (tr.cur: the uncovered line gone to), body[data-scheme] (light or
 * dark, from the system's setting).
 */
#include "html.h"
#include "util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

/* The page's data is written through a buffer: integers and escapes by
 * hand, not printf (SQLite: a 9 MB source and 100,000 records). */
struct out {
  FILE *f;
  size_t n;
  char b[1 << 16];
};

static void o_flush(struct out *o) {
  fwrite(o->b, 1, o->n, o->f);
  o->n = 0;
}

static void o_put(struct out *o, const char *s, size_t n) {
  if (n <= sizeof(o->b) - o->n) { /* the common case: it fits */
    memcpy(o->b + o->n, s, n);
    o->n += n;
    return;
  }
  while (n) {
    if (o->n == sizeof(o->b))
      o_flush(o);
    size_t k = n < sizeof(o->b) - o->n ? n : sizeof(o->b) - o->n;
    memcpy(o->b + o->n, s, k);
    o->n += k;
    s += k;
    n -= k;
  }
}

static void o_str(struct out *o, const char *s) {
  o_put(o, s, strlen(s));
}

static void o_u64(struct out *o, uint64_t v) {
  char d[20];
  size_t k = sizeof(d);
  do
    d[--k] = (char)('0' + v % 10);
  while (v /= 10);
  o_put(o, d + k, sizeof(d) - k);
}

/* [a,b] or [a,b,c] */
static void o_tuple(struct out *o, int comma, uint64_t a, uint64_t b, const uint64_t *c) {
  o_str(o, comma ? ",[" : "[");
  o_u64(o, a);
  o_put(o, ",", 1);
  o_u64(o, b);
  if (c) {
    o_put(o, ",", 1);
    o_u64(o, *c);
  }
  o_put(o, "]", 1);
}

/* Bytes a JSON string inside <script> cannot hold as they are: '"', '\\',
 * controls, and '<', '>', '&' (so no "</script>" can end the data). */
static int needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&';
}

/* The inside of a JSON string safe inside <script>: plain runs copied
 * whole, escapes between. */
static void put_js_bytes(struct out *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  static unsigned char special[256];
  if (!special['"'])
    for (int c = 0; c < 256; c++)
      special[c] = (unsigned char)needs_escape((unsigned char)c);
  size_t run = 0;
  for (size_t i = 0;; i++) {
    while (i < n && !special[(unsigned char)s[i]])
      i++;
    if (i == n)
      break;
    unsigned char c = (unsigned char)s[i];
    o_put(o, s + run, i - run);
    if (o->n > sizeof(o->b) - 6)
      o_flush(o);
    char *e = o->b + o->n;
    e[0] = '\\';
    if (c == '"' || c == '\\' || c == '\n' || c == '\t') {
      e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
      o->n += 2;
    } else {
      memcpy(e + 1, "u00", 3);
      e[4] = hex[c >> 4];
      e[5] = hex[c & 15];
      o->n += 6;
    }
    run = i + 1;
  }
  o_put(o, s + run, n - run);
}

static void put_js_string(struct out *o, const char *s, size_t n) {
  o_put(o, "\"", 1);
  put_js_bytes(o, s, n);
  o_put(o, "\"", 1);
}

static void put_html(FILE *f, const char *s) {
  for (; *s; s++)
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else
      putc(*s, f);
}

/*
 * A source file as a JSON string, streamed (64 KiB at a time, never held
 * whole), its last newline left out; "null" if it cannot be read or is
 * larger than 256 MiB (not shown).
 */
static void put_source(struct out *o, const char *path) {
  FILE *f = ucov_fopen_regular(path);
  struct stat st;
  if (!f || fstat(fileno(f), &st) || st.st_size > ((off_t)256 << 20)) {
    if (f)
      fclose(f);
    o_str(o, "null");
    return;
  }
  static char buf[1 << 16];
  size_t r;
  int newline = 0; /* a newline held back: the file's last is not shown */
  o_put(o, "\"", 1);
  while ((r = fread(buf, 1, sizeof(buf), f)) > 0) {
    if (newline)
      o_put(o, "\\n", 2);
    newline = buf[r - 1] == '\n';
    put_js_bytes(o, buf, r - (size_t)newline);
  }
  o_put(o, "\"", 1);
  fclose(f);
}

static const char style[] =
    ":root{color-scheme:light dark;--fg:#222;--bg:#fff;--mut:#777;--hd:#234;--th:#eef;"
    "--even:#f7f7f7;--hit:#dfd;--hitc:#bdb;--miss:#fdd;--missc:#ebb;--ex:#eee;--cur:#fc3;"
    "--ok:#174;--mid:#a60;--lo:#b22;--bar:#e66;--barok:#4a4;--a:#125}"
    "@media (prefers-color-scheme:dark){:root{--fg:#ddd;--bg:#15181c;--mut:#8a8f96;"
    "--hd:#0d2236;--th:#232a33;--even:#1b1f25;--hit:#17361f;--hitc:#20502c;--miss:#47191c;"
    "--missc:#6a2227;--ex:#262a30;--cur:#806000;--ok:#6c6;--mid:#db8;--lo:#f77;--bar:#a33;"
    "--barok:#393;--a:#8bf}}"
    "body{font:14px/1.4 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg)}"
    "header{background:var(--hd);color:#fff;padding:10px 16px}header h1{font-size:18px;margin:0}"
    "header .t{font-size:13px;opacity:.85}main{padding:12px 16px}"
    "table{border-collapse:collapse}th,td{padding:2px 8px}"
    "#summary th,#functions th{cursor:pointer;background:var(--th);position:sticky;top:0;"
    "text-align:left}"
    "#summary td.n,#functions td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "#summary tr:nth-child(even),#functions tr:nth-child(even){background:var(--even)}"
    ".bar{display:inline-block;width:80px;height:10px;background:var(--bar);vertical-align:middle}"
    ".bar i{display:block;height:10px;background:var(--barok)}"
    ".hi{color:var(--ok)}.mid{color:var(--mid)}.lo{color:var(--lo)}"
    "#filter{margin:0 0 8px;padding:4px;width:320px}"
    "#functions{margin:8px 0 12px}.keys{color:var(--mut);font-size:12px}"
    "#source{font:12px/1.35 ui-monospace,monospace;width:100%}"
    "#source td{padding:0 6px;white-space:pre;vertical-align:top}"
    "#source td.ln,#source td.cnt,#source td.br{text-align:right;color:var(--mut);user-select:none}"
    "#source tr.hit td.src{background:var(--hit)}#source tr.miss td.src{background:var(--miss)}"
    "#source tr.hit td.cnt{background:var(--hitc);color:var(--fg)}"
    "#source tr.miss td.cnt{background:var(--missc);color:var(--fg)}"
    "#source td.cat{font-size:11px;color:var(--mut)}"
    "#source tr.excl td.src{background:var(--ex);color:var(--mut)}"
    "#source tr.cur td.ln{background:var(--cur);color:#000}"
    "#source td.br{cursor:help;text-align:left}"
    ".bt,.bn,.bx{font-weight:bold;padding:0 1px}.bt{color:var(--ok)}.bn{color:var(--lo)}"
    ".bx{color:var(--mut)}"
    "a{color:var(--a)}";

/* The page script: renders the summary or a file from the embedded data. */
static const char script[] =
    "const D=JSON.parse(document.getElementById('data').textContent);\n"
    "const M=document.querySelector('main');\n"
    "document.body.dataset.scheme=matchMedia('(prefers-color-scheme: dark)').matches?'dark':"
    "'light';\n"
    "function pc(h,f){return f?100*h/f:null}\n"
    "function cls(p){return p===null?'':p>=90?'hi':p>=60?'mid':'lo'}\n"
    "function fmt(h,f){const p=pc(h,f);return p===null?'-':p.toFixed(1)+'%'}\n"
    "function esc(s){return s.replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':"
    "'&quot;'}[c]))}\n"
    "function stats(f){let lh=0,fh=0,bh=0,bf=0,mh=0,mf=0;for(const l of f.l)if(l[1]>0)lh++;"
    "for(const x of f.f)if(x[2]>0)fh++;for(const b of f.b){bh+=b[1];bf+=b[2]}"
    "for(const x of f.m||[]){mh+=x[1];mf+=x[2]}"
    "return{lh,lf:f.l.length,fh,ff:f.f.length,bh,bf,mh,mf,xl:(f.x||[]).length,xb:f.xb||0}}\n"
    "const S=D.files.map(stats);\n"
    "let key='p',dir=1,filt='',fkey='l',fdir=1,cur=0;\n"
    "function cell(h,f){const p=pc(h,f);return '<td class=\"n '+cls(p)+'\">'+fmt(h,f)+"
    "'</td><td class=\"n\">'+h+' / '+f+'</td>'}\n"
    "function summary(){\n"
    " const idx=D.files.map((f,i)=>i).filter(i=>!filt||D.files[i].p.includes(filt));\n"
    " const val=i=>key==='p'?D.files[i].p:key==='l'?pc(S[i].lh,S[i].lf):key==='f'?"
    "pc(S[i].fh,S[i].ff):key==='m'?pc(S[i].mh,S[i].mf):key==='x'?S[i].xl:pc(S[i].bh,S[i].bf);\n"
    " idx.sort((a,b)=>{const x=val(a),y=val(b);return (x===y?0:x===null?-1:y===null?1:x<y?-1:1)"
    "*dir});\n"
    " let h='<input id=\"filter\" placeholder=\"filter files\" value=\"'+esc(filt)+'\">"
    "<table id=\"summary\"><thead><tr><th data-k=\"p\">File</th><th data-k=\"l\" colspan=3>"
    "Lines</th><th data-k=\"f\" colspan=2>Functions</th><th data-k=\"b\" colspan=2>Branches"
    "</th>'+(D.mcdc?'<th data-k=\"m\" colspan=2>MC/DC</th>':'')+(D.excl?'<th data-k=\"x\">"
    "Excluded</th>':'')+(D.diff?'<th>Diff</th>':'')+"
    "'</tr></thead><tbody>';\n"
    " const rows=[];for(const i of idx){const f=D.files[i],s=S[i],p=pc(s.lh,s.lf);"
    "rows.push('<tr data-path=\"'+esc(f.p)+'\"><td><a href=\"#f='+i+'\">'+esc(f.p)+'</a></td>"
    "<td><span class=\"bar\"><i style=\"width:'+(p===null?100:p)+'%\"></i></span></td>'+"
    "cell(s.lh,s.lf)+cell(s.fh,s.ff)+cell(s.bh,s.bf)+(D.mcdc?cell(s.mh,s.mf):'')+"
    "(D.excl?'<td class=\"n x\" title=\"'+s.xb+' branches\">'+s.xl+'</td>':'')+"
    "(D.diff?'<td>'+esc(f.dc||'')+'</td>':'')+"
    "'</tr>')}\n"
    " M.innerHTML=h+rows.join('')+'</tbody></table>';\n"
    " for(const th of M.querySelectorAll('th[data-k]'))th.onclick=()=>{dir=key===th.dataset.k?"
    "-dir:1;key=th.dataset.k;summary()};\n"
    " const fi=document.getElementById('filter');fi.oninput=()=>{filt=fi.value;summary();"
    "const g=document.getElementById('filter');g.focus();g.setSelectionRange(filt.length,"
    "filt.length)};\n"
    "}\n"
    /* a line's branches: counts (null: not executed) as + - # marks and a hover list */
    "function branches(b){if(!b)return '<td class=\"br\"></td>';const c=b[3]||[];"
    "const t=c.map((n,k)=>'branch '+k+': '+(n===null?'not executed':n>0?'taken '+n+"
    "(n==1?' time':' times'):'not taken')).join('\\n');"
    "return '<td class=\"br\" title=\"'+esc(t)+'\" data-taken=\"'+b[1]+'\" data-found=\"'+b[2]+"
    "'\">'+c.map(n=>n===null?'<span class=\"bx\">#</span>':n>0?'<span class=\"bt\">+</span>':"
    "'<span class=\"bn\">-</span>').join('')+'</td>'}\n"
    "function funcs(i){const f=D.files[i];const v=x=>fkey==='n'?x[0]:fkey==='c'?x[2]:x[1];"
    "const fs=f.f.slice().sort((a,b)=>{const x=v(a),y=v(b);return (x===y?0:x<y?-1:1)*fdir});"
    "return '<table id=\"functions\"><thead><tr><th data-fk=\"n\">Function</th>"
    "<th data-fk=\"l\">Line</th><th data-fk=\"c\">Calls</th></tr></thead><tbody>'+fs.map(x=>"
    "'<tr class=\"'+(x[2]>0?'hit':'miss')+'\"><td><a href=\"#f='+i+'&l='+x[1]+'\">'+esc(x[0])+"
    "'</a></td><td class=\"n\">'+x[1]+'</td><td class=\"n '+(x[2]>0?'hi':'lo')+'\">'+x[2]+"
    "'</td></tr>').join('')+'</tbody></table>'}\n"
    "function file(i){\n"
    " const f=D.files[i],s=S[i],cnt=new Map(f.l),br=new Map(f.b.map(b=>[b[0],b])),"
    "mc=new Map((f.m||[]).map(x=>[x[0],x])),cat=new Map(f.d||[]),ex=new Set(f.x||[]);\n"
    " let h='<p><a href=\"#\">&larr; all files</a></p><h2>'+esc(f.p)+'</h2><p>Lines '+"
    "fmt(s.lh,s.lf)+' ('+s.lh+' / '+s.lf+'), functions '+fmt(s.fh,s.ff)+', branches '+"
    "fmt(s.bh,s.bf)+(s.mf?', MC/DC conditions '+fmt(s.mh,s.mf)+' ('+s.mh+' / '+s.mf+')':'')+"
    "(s.xl||s.xb?'; excluded: <span id=\"excluded\">'+s.xl+' lines, '+s.xb+' branches</span>':'')+"
    "'</p>'+funcs(i)+'<p class=\"keys\">n / p (or j / k): next / previous uncovered line. "
    "Branches: <span class=\"bt\">+</span> taken, <span class=\"bn\">-</span> not taken, "
    "<span class=\"bx\">#</span> not executed.</p>';\n"
    " const src=f.s===null?null:f.s.split('\\n');\n"
    " if(src===null)h+='<p>(source not available: '+esc(f.p)+')</p>';\n"
    /* without the source, only the lines with data (a line number is not a row count) */
    " const ks=src?src.map((_,j)=>j+1):[...new Set([...f.l.map(l=>l[0]),...f.b.map(b=>b[0]),"
    "...(f.x||[])])].sort((a,b)=>a-b);const rows=[];\n"
    " for(const k of ks){const c=cnt.get(k),b=br.get(k),d=cat.get(k),x=mc.get(k);"
    "const e=ex.has(k);"
    "rows.push('<tr id=\"L'+k+'\" class=\"'+(e?'excl':c===undefined?'none':c>0?'hit':'miss')+'\">"
    "<td class=\"ln\">'+k+'</td><td class=\"cnt\">'+(e?'excl':c===undefined?'':c)+'</td>'"
    "+branches(b)+(D.mcdc?'<td class=\"mcdc\">'+(x?x[1]+'/'+x[2]:'')+'</td>':'')"
    "+(D.diff?'<td class=\"cat\">'+(d||'')+'</td>':'')+"
    "'<td class=\"src\">'+(src?esc(src[k-1]):'')+'</td></tr>')}\n"
    " M.innerHTML=h+'<table id=\"source\"><tbody>'+rows.join('')+'</tbody></table>';\n"
    " file_keys(i);cur=0;\n"
    "}\n"
    "function file_keys(i){for(const th of M.querySelectorAll('th[data-fk]'))th.onclick=()=>"
    "{fdir=fkey===th.dataset.fk?-fdir:1;fkey=th.dataset.fk;"
    "document.getElementById('functions').outerHTML=funcs(i);file_keys(i)}}\n"
    /* keyboard: the next or previous uncovered line, marked and scrolled to */
    "function go(step){const t=document.getElementById('source');if(!t)return;"
    "const miss=[...t.querySelectorAll('tr.miss')].map(r=>+r.id.slice(1));if(!miss.length)return;"
    "let to=step>0?miss.find(l=>l>cur):miss.slice().reverse().find(l=>l<cur);"
    "if(to===undefined)to=step>0?miss[0]:miss[miss.length-1];"
    "const old=document.getElementById('L'+cur);if(old)old.classList.remove('cur');"
    "cur=to;const r=document.getElementById('L'+cur);r.classList.add('cur');"
    "r.scrollIntoView({block:'center'});const m=/^#f=(\\d+)/.exec(location.hash);"
    "if(m)history.replaceState(null,'','#f='+m[1]+'&l='+cur)}\n"
    "document.addEventListener('keydown',e=>{if(e.target.tagName==='INPUT'||e.ctrlKey||e.metaKey||"
    "e.altKey)return;if(e.key==='n'||e.key==='j')go(1);else if(e.key==='p'||e.key==='k')go(-1)});\n"
    "function route(){const m=/^#f=(\\d+)(?:&l=(\\d+))?/.exec(location.hash);"
    "if(m&&D.files[+m[1]]){file(+m[1]);if(m[2]){cur=+m[2];const "
    "r=document.getElementById('L'+m[2]);"
    "if(r){r.classList.add('cur');r.scrollIntoView()}}}else summary();}\n"
    "window.onhashchange=route;route();\n";

/* (Long: the page's parts in the order they are written, over one set of totals.) */
int html_write(const struct cov_model *m, FILE *f, const char *title, const struct cov_diff *diff) {
  struct cov_summary all;
  cov_summary(m, &all);
  char when[64];
  time_t now = time(NULL);
  strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
  char mcdc[160] = "";
  if (all.mcdc_found)
    snprintf(mcdc, sizeof(mcdc), " &middot; MC/DC %" PRIu64 "/%" PRIu64, all.mcdc_hit,
             all.mcdc_found);
  size_t ml = strlen(mcdc);
  if (all.lines_excluded || all.branches_excluded)
    snprintf(mcdc + ml, sizeof(mcdc) - ml,
             " &middot; excluded %" PRIu64 " lines, %" PRIu64 " branches", all.lines_excluded,
             all.branches_excluded);
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\"><title>",
        f);
  put_html(f, title);
  fprintf(f, "</title><style>%s</style></head><body><header><h1>", style);
  put_html(f, title);
  fprintf(f,
          "</h1><div class=\"t\">%zu files &middot; lines %" PRIu64 "/%" PRIu64
          " &middot; functions %" PRIu64 "/%" PRIu64 " &middot; branches %" PRIu64 "/%" PRIu64
          "%s &middot; %s &middot; ucov</div></header>\n<main></main>\n"
          "<script type=\"application/json\" id=\"data\">{\"diff\": %s, \"mcdc\": %s, "
          "\"excl\": %s, \"files\": [",
          m->n_files, all.lines_hit, all.lines_found, all.funcs_hit, all.funcs_found,
          all.branches_hit, all.branches_found, mcdc, when, diff ? "true" : "false",
          all.mcdc_found ? "true" : "false",
          all.lines_excluded || all.branches_excluded ? "true" : "false");
  static struct out o; /* (64 KiB: not on the stack) */
  o.f = f;
  o.n = 0;
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    o_str(&o, i ? ",\n{\"p\": " : "\n{\"p\": ");
    const char *shown = cov_display(m, c->path);
    put_js_string(&o, shown, strlen(shown));
    o_str(&o, ", \"l\": [");
    for (size_t k = 0; k < c->n_lines; k++)
      o_tuple(&o, k > 0, c->lines[k].line, c->lines[k].count, NULL);
    o_str(&o, "], \"f\": [");
    for (size_t k = 0; k < c->n_funcs; k++) {
      o_str(&o, k ? ",[" : "[");
      put_js_string(&o, c->funcs[k].name, strlen(c->funcs[k].name));
      o_put(&o, ",", 1);
      o_u64(&o, c->funcs[k].line);
      o_put(&o, ",", 1);
      o_u64(&o, c->funcs[k].count);
      o_put(&o, "]", 1);
    }
    /* Branches per line: [line, taken, found, [count or null (not executed), ...]]. */
    o_str(&o, "], \"b\": [");
    for (size_t k = 0, first = 1; k < c->n_branches; first = 0) {
      uint32_t line = c->branches[k].line;
      uint64_t hit = 0, found = 0;
      size_t from = k;
      for (; k < c->n_branches && c->branches[k].line == line; k++) {
        found++;
        hit += c->branches[k].executed && c->branches[k].taken > 0;
      }
      o_str(&o, first ? "[" : ",[");
      o_u64(&o, line);
      o_put(&o, ",", 1);
      o_u64(&o, hit);
      o_put(&o, ",", 1);
      o_u64(&o, found);
      o_str(&o, ",[");
      for (size_t j = from; j < k; j++) {
        if (j > from)
          o_put(&o, ",", 1);
        if (c->branches[j].executed)
          o_u64(&o, c->branches[j].taken);
        else
          o_str(&o, "null");
      }
      o_str(&o, "]]");
    }
    o_str(&o, "]");
    /* MC/DC conditions per line: [line, shown, found]. */
    if (c->n_mcdc) {
      o_str(&o, ", \"m\": [");
      for (size_t k = 0, first = 1; k < c->n_mcdc; first = 0) {
        uint32_t line = c->mcdc[k].line;
        uint64_t hit = 0, found = 0;
        for (; k < c->n_mcdc && c->mcdc[k].line == line; k++) {
          found++;
          hit += c->mcdc[k].taken > 0;
        }
        o_tuple(&o, !first, line, hit, &found);
      }
      o_str(&o, "]");
    }
    if (diff && i < diff->n_files && diff->files[i].n) {
      const struct cov_diff_file *d = &diff->files[i];
      o_str(&o, ", \"d\": [");
      for (size_t k = 0; k < d->n; k++) {
        o_str(&o, k ? ",[" : "[");
        o_u64(&o, d->lines[k].line);
        o_str(&o, ",\"");
        o_str(&o, cov_category_name[d->lines[k].category]);
        o_str(&o, "\"]");
      }
      o_str(&o, "], \"dc\": \"");
      for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
        if (d->counts[cat]) {
          o_str(&o, cov_category_name[cat]);
          o_put(&o, " ", 1);
          o_u64(&o, d->counts[cat]);
          o_put(&o, " ", 1);
        }
      o_str(&o, "\"");
    }
    if (c->n_excl_lines) {
      o_str(&o, ", \"x\": [");
      for (size_t k = 0; k < c->n_excl_lines; k++) {
        if (k)
          o_put(&o, ",", 1);
        o_u64(&o, c->excl_lines[k]);
      }
      o_str(&o, "]");
    }
    if (c->excl_branches) {
      o_str(&o, ", \"xb\": ");
      o_u64(&o, c->excl_branches);
    }
    o_str(&o, ", \"s\": ");
    char buf[8192];
    put_source(&o, cov_source_path(m, c->path, buf, sizeof(buf)));
    o_str(&o, "}");
  }
  o_flush(&o);
  fprintf(f, "\n]}</script>\n<script>%s</script>\n</body></html>\n", script);
  return ferror(f) ? -1 : 0;
}
