/* SPDX-License-Identifier: MIT */
/*
 * One self-contained HTML report: the coverage and the sources as JSON in the
 * page, rendered by a small script (no network, no external assets). The
 * page holds an index (script#data: each file's path and totals, all the
 * summary needs) and each file's view data in a script of its own
 * (script#f<N>: lines as a flat line, count list, functions, branches,
 * MC/DC, categories, exclusions, the source), parsed only when that file
 * is opened. The summary is a sortable, filterable table of files; a
 * file's view shows its source with counts, coloured, and its functions,
 * rendering only the rows on screen and a margin, so that a 500,000-line
 * file opens at once, at any line.
 *
 * Addresses: #f=N or #file=PATH (the path shown, or a unique ending of it)
 * opens a file; &l=N or &line=N scrolls to line N and marks it (tr.cur).
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

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    "a{color:var(--a)}"
    "#history{padding:8px 16px 0}#chart .grid{stroke:var(--th)}#chart .axis{font-size:10px;"
    "fill:var(--mut);text-anchor:end}#chart polyline{fill:none;stroke-width:1.5}"
    "#chart .s0,.legend .s0{stroke:#2a7;fill:#2a7;color:#2a7}#chart .s1,.legend .s1{stroke:#37c;"
    "fill:#37c;color:#37c}#chart .s2,.legend .s2{stroke:#c73;fill:#c73;color:#c73}"
    "#chart polyline.s0,#chart polyline.s1,#chart polyline.s2{fill:none}"
    ".legend{font-size:12px;color:var(--mut)}"
    "#who{position:fixed;right:12px;bottom:12px;max-height:40vh;overflow:auto;background:var(--bg);"
    "border:1px solid var(--mut);padding:6px 10px;font-size:12px}"
    "#source tr[data-tests] td.cnt{cursor:pointer}"
    "#legend{margin:6px 0}#legend button{font:12px system-ui,sans-serif;border:1px solid "
    "var(--mut);"
    "border-radius:3px;padding:1px 6px;cursor:pointer;color:#000}#legend button.on{outline:2px "
    "solid "
    "var(--fg)}#legend button[data-cat=\"\"]{background:var(--bg);color:var(--fg)}"
    ".c-GNC{background:#9d9}.c-GBC{background:#bfb}.c-CBC{background:#ded}"
    ".c-UNC{background:#f99}.c-LBC{background:#fb7}.c-UBC{background:#fcc}"
    ".c-DCB{background:#ccd}.c-DUB{background:#ddc}#source td.cat.c-GNC,#source td.cat.c-UNC,"
    "#source td.cat.c-GBC,#source td.cat.c-LBC,#source td.cat.c-CBC,#source td.cat.c-UBC,"
    "#source td.cat.c-DCB,#source td.cat.c-DUB{color:#000}";

/*
 * The page script. The summary comes from the index (paths and totals);
 * a file's data is parsed when it is opened (the last one kept), and its
 * view renders only the rows on screen and a margin, between two spacers
 * (files of up to ALL rows render whole). #file=PATH (the shown path, or
 * a unique ending of it) or #f=N opens a file; &line=N (or &l=N) scrolls to
 * line N and marks it.
 */
static const char script[] =
    "const D=JSON.parse(document.getElementById('data').textContent);\n"
    "const M=document.querySelector('main');\n"
    "document.body.dataset.scheme=matchMedia('(prefers-color-scheme: dark)').matches?'dark':'li"
    "ght';\n"
    "function pc(h,f){return f?100*h/f:null}\n"
    "function cls(p){return p===null?'':p>=90?'hi':p>=60?'mid':'lo'}\n"
    "function fmt(h,f){const p=pc(h,f);return p===null?'-':p.toFixed(1)+'%'}\n"
    "function esc(s){return s.replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','\"':'&"
    "quot;'}[c]))}\n"
    "const S=D.files.map(f=>{const t=f.t;return{lh:t[0],lf:t[1],fh:t[2],ff:t[3],bh:t[4],bf:t[5]"
    ",mh:t[6],mf:t[7],xl:t[8],xb:t[9]}});\n"
    "const T=D.tests||null,H=document.getElementById('history');\n"
    "const CATS={GNC:'new code, covered',UNC:'new code, not covered',GBC:'baseline code, covere"
    "d now, not before',LBC:'baseline code, covered before, not now',CBC:'baseline code, covere"
    "d before and now',UBC:'baseline code, covered neither before nor now',DCB:'deleted code, c"
    "overed before',DUB:'deleted code, not covered before'};\n"
    "let catf='',only=-1,onlyName='',key='p',dir=1,filt='',fkey='l',fdir=1,cur=0,V=null,C={i:-1"
    ",f:null};\n"
    "function data(i){if(C.i!==i)C={i,f:JSON.parse(document.getElementById('f'+i).textContent)}"
    ";return C.f}\n"
    "function load(i,then){if(C.i===i||!D.dir)return then();window.ucovFile=(n,o)=>{C={i:n,f:o}"
    ";if(n===i)then()};const e=document.createElement('script');e.src='files/'+i+'.js';e.onerro"
    "r=()=>{M.innerHTML='<p>'+esc(D.files[i].p)+': its data, files/'+i+'.js, cannot be loaded</"
    "p>'};document.body.appendChild(e)}\n"
    "function cell(h,f){const p=pc(h,f);return '<td class=\"n '+cls(p)+'\">'+fmt(h,f)+'</td><td"
    " class=\"n\">'+h+' / '+f+'</td>'}\n"
    "function summary(){\n"
    " V=null;if(H)H.hidden=false;\n"
    " const idx=D.files.map((f,i)=>i).filter(i=>!filt||D.files[i].p.includes(filt));\n"
    " const val=i=>key==='p'?D.files[i].p:key==='l'?pc(S[i].lh,S[i].lf):key==='f'?pc(S[i].fh,S["
    "i].ff):key==='m'?pc(S[i].mh,S[i].mf):key==='x'?S[i].xl:pc(S[i].bh,S[i].bf);\n"
    " idx.sort((a,b)=>{const x=val(a),y=val(b);return (x===y?0:x===null?-1:y===null?1:x<y?-1:1)"
    "*dir});\n"
    " let h='<input id=\"filter\" placeholder=\"filter files\" value=\"'+esc(filt)+'\"><table i"
    "d=\"summary\"><thead><tr><th data-k=\"p\">File</th><th data-k=\"l\" colspan=3>Lines</th><t"
    "h data-k=\"f\" colspan=2>Functions</th><th data-k=\"b\" colspan=2>Branches</th>'+(D.mcdc?'"
    "<th data-k=\"m\" colspan=2>MC/DC</th>':'')+(D.excl?'<th data-k=\"x\">Excluded</th>':'')+(D"
    ".diff?'<th>Diff</th>':'')+'</tr></thead><tbody>';\n"
    " const rows=[];for(const i of idx){const f=D.files[i],s=S[i],p=pc(s.lh,s.lf);rows.push('<t"
    "r data-path=\"'+esc(f.p)+'\"><td><a href=\"#f='+i+'\">'+esc(f.p)+'</a></td><td><span class"
    "=\"bar\"><i style=\"width:'+(p===null?100:p)+'%\"></i></span></td>'+cell(s.lh,s.lf)+cell(s"
    ".fh,s.ff)+cell(s.bh,s.bf)+(D.mcdc?cell(s.mh,s.mf):'')+(D.excl?'<td class=\"n x\" title=\"'"
    "+s.xb+' branches\">'+s.xl+'</td>':'')+(D.diff?'<td>'+esc(f.dc||'')+'</td>':'')+'</tr>')}\n"
    " M.innerHTML=h+rows.join('')+'</tbody></table>';\n"
    " for(const th of M.querySelectorAll('th[data-k]'))th.onclick=()=>{dir=key===th.dataset.k?-"
    "dir:1;key=th.dataset.k;summary()};\n"
    " const fi=document.getElementById('filter');fi.oninput=()=>{filt=fi.value;summary();const "
    "g=document.getElementById('filter');g.focus();g.setSelectionRange(filt.length,filt.length)"
    "};\n"
    "}\n"
    "function branches(b){if(!b)return '<td class=\"br\"></td>';const c=b[3]||[];const t=c.map("
    "(n,k)=>'branch '+k+': '+(n===null?'not executed':n>0?'taken '+n+(n==1?' time':' times'):'n"
    "ot taken')).join('\\n');return '<td class=\"br\" title=\"'+esc(t)+'\" data-taken=\"'+b[1]+"
    "'\" data-found=\"'+b[2]+'\">'+c.map(n=>n===null?'<span class=\"bx\">#</span>':n>0?'<span c"
    "lass=\"bt\">+</span>':'<span class=\"bn\">-</span>').join('')+'</td>'}\n"
    "function funcs(i){const f=data(i);const v=x=>fkey==='n'?x[0]:fkey==='c'?x[2]:x[1];const fs"
    "=f.f.slice().sort((a,b)=>{const x=v(a),y=v(b);return (x===y?0:x<y?-1:1)*fdir});return '<ta"
    "ble id=\"functions\"><thead><tr><th data-fk=\"n\">Function</th><th data-fk=\"l\">Line</th>"
    "<th data-fk=\"c\">Calls</th></tr></thead><tbody>'+fs.map(x=>'<tr class=\"'+(x[2]>0?'hit':'"
    "miss')+'\"><td><a href=\"#f='+i+'&l='+x[1]+'\">'+esc(x[0])+'</a></td><td class=\"n\">'+x[1"
    "]+'</td><td class=\"n '+(x[2]>0?'hi':'lo')+'\">'+x[2]+'</td></tr>').join('')+'</tbody></ta"
    "ble>'}\n"
    "function file(i){\n"
    " const f=data(i),s=S[i],t=f.s,wm=new Map(),fw=f.w||[];if(H)H.hidden=true;\n"
    " for(let k=0;k+1<fw.length;k+=2+2*fw[k+1])wm.set(fw[k],k);\n"
    " const cof=(l,c)=>{if(only===-1)return c;if(only<0)return 0;const k=wm.get(l);if(k===undef"
    "ined)return 0;for(let j=0;j<fw[k+1];j++)if(fw[k+2+2*j]===only)return fw[k+3+2*j];return 0}"
    ";\n"
    " let src=null;if(t!==null){let n1=1;for(let p=t.indexOf('\\n');p>=0;p=t.indexOf('\\n',p+1)"
    ")n1++;src=new Int32Array(n1+1);for(let p=t.indexOf('\\n'),j=1;p>=0;p=t.indexOf('\\n',p+1))"
    "src[j++]=p+1;src[n1]=t.length+1}\n"
    " const n0=src?src.length-1:0,cv=src?new Float64Array(n0+1).fill(-1):null,cnt=src?null:new "
    "Map();\n"
    " for(let k=0;k+1<f.l.length;k+=2){const l=f.l[k],c=cof(l,f.l[k+1]);if(cv){if(l<=n0)cv[l]=c"
    "}else cnt.set(l,c)}\n"
    " const br=new Map(f.b.map(b=>[b[0],b])),mc=new Map((f.m||[]).map(x=>[x[0],x])),cat=new Map"
    "(f.d||[]),ex=new Set(f.x||[]);\n"
    " let h='<p><a href=\"#\">&larr; all files</a></p><h2>'+esc(f.p||D.files[i].p)+'</h2><p>Lin"
    "es '+fmt(s.lh,s.lf)+' ('+s.lh+' / '+s.lf+'), functions '+fmt(s.fh,s.ff)+', branches '+fmt("
    "s.bh,s.bf)+(s.mf?', MC/DC conditions '+fmt(s.mh,s.mf)+' ('+s.mh+' / '+s.mf+')':'')+(s.xl||"
    "s.xb?'; excluded: <span id=\"excluded\">'+s.xl+' lines, '+s.xb+' branches</span>':'')+'</p"
    ">'+(only!==-1?'<p id=\"only\">Test <b>'+esc(onlyName)+'</b> alone: each line\\'s hits in t"
    "hat test.</p>':'')+funcs(i)+'<p class=\"keys\">n / p (or j / k): next / previous uncovered"
    " line. Branches: <span class=\"bt\">+</span> taken, <span class=\"bn\">-</span> not taken,"
    " <span class=\"bx\">#</span> not executed.</p>';\n"
    " if(src===null)h+='<p>(source not available: '+esc(D.files[i].p)+')</p>';\n"
    " const cc={},dc=(D.files[i].dc||'').trim().split(/ +/);for(let k=0;k+1<dc.length;k+=2)cc[d"
    "c[k]]=+dc[k+1];\n"
    " if(D.diff&&D.files[i].dc)h+='<div id=\"legend\">'+Object.keys(CATS).filter(c=>cc[c]).map("
    "c=>'<button class=\"c-'+c+(catf===c?' on':'')+'\" data-cat=\"'+c+'\" title=\"'+CATS[c]+'\""
    ">'+c+' '+cc[c]+'</button>').join(' ')+' <button data-cat=\"\"'+(catf?'':' class=\"on\"')+'"
    ">all lines</button></div>';\n"
    " const ks=catf?(f.d||[]).filter(d=>d[1]===catf&&(!src||d[0]<=n0)).map(d=>d[0]).sort((a,b)="
    ">a-b):src?null:[...new Set([...cnt.keys(),...f.b.map(b=>b[0]),...(f.x||[])])].sort((a,b)=>"
    "a-b);\n"
    " const n=ks?ks.length:n0,miss=[],inks=ks&&catf?new Set(ks):null;\n"
    " for(let k=0;k+1<f.l.length;k+=2){const l=f.l[k];if(!(cof(l,f.l[k+1])>0)&&!ex.has(l)&&(!sr"
    "c||l<=n0)&&(!inks||inks.has(l)))miss.push(l)}\n"
    " miss.sort((a,b)=>a-b);\n"
    " M.innerHTML=h+'<table id=\"source\"><tbody></tbody></table>';\n"
    " V={i,n,t,src,ks,cv,cnt,wm,fw,br,mc,cat,ex,miss,tb:M.querySelector('#source tbody'),from:-"
    "1,to:-1,rh:16};\n"
    " for(const b of M.querySelectorAll('#legend button'))b.onclick=()=>{catf=b.dataset.cat;con"
    "st q=params();delete q.cat;delete q.line;delete q.l;if(catf)q.cat=catf;history.replaceStat"
    "e(null,'','#'+Object.keys(q).map(k=>k+'='+encodeURIComponent(q[k])).join('&'));scrollTo(0,"
    "0);file(i)};\n"
    " file_keys(i);cur=0;paint(true);\n"
    "}\n"
    "function row(k){const c=V.cv?(V.cv[k]<0?undefined:V.cv[k]):V.cnt.get(k),b=V.br.get(k),d=V."
    "cat.get(k),x=V.mc.get(k),e=V.ex.has(k);let wt='',wc='';if(T){const w=V.wm.get(k),nm=[],ti="
    "[];if(w!==undefined)for(let j=0;j<V.fw[w+1];j++){nm.push(T[V.fw[w+2+2*j]]);ti.push(T[V.fw["
    "w+2+2*j]]+': '+V.fw[w+3+2*j])}wt=' data-line=\"'+k+'\" data-tests=\"'+esc(nm.join(' '))+'"
    "\"';wc=ti.length?' title=\"'+esc(ti.join('\\n'))+'\"':''}\n"
    "return '<tr id=\"L'+k+'\" class=\"'+(e?'excl':c===undefined?'none':c>0?'hit':'miss')+(k==="
    "cur?' cur':'')+'\"'+wt+'><td class=\"ln\">'+k+'</td><td class=\"cnt\"'+wc+'>'+(e?'excl':c="
    "==undefined?'':c)+'</td>'+branches(b)+(D.mcdc?'<td class=\"mcdc\">'+(x?x[1]+'/'+x[2]:'')+'"
    "</td>':'')+(D.diff?'<td class=\"cat'+(d?' c-'+d:'')+'\">'+(d||'')+'</td>':'')+'<td class="
    "\"src\">'+(V.src?esc(V.t.substring(V.src[k-1],V.src[k]-1)):'')+'</td></tr>'}\n"
    "function pad(r){return '<tr class=\"pad\"><td colspan=\"9\" style=\"height:'+r*V.rh+'px\">"
    "</td></tr>'}\n"
    "const ALL=2000,MARGIN=400;\n"
    "function paint(force){\n"
    " if(!V)return;let from=0,to=V.n;\n"
    " if(V.n>ALL){const top=V.tb.parentNode.getBoundingClientRect().top,first=Math.min(V.n,Math"
    ".max(0,Math.floor(-top/V.rh))),last=Math.min(V.n,first+Math.ceil(innerHeight/V.rh)+1);\n"
    "  if(!force&&V.from>=0&&(first-V.from>=MARGIN/4||V.from===0)&&(V.to-last>=MARGIN/4||V.to=="
    "=V.n))return;\n"
    "  from=Math.max(0,first-MARGIN);to=Math.min(V.n,last+MARGIN)}\n"
    " if(!force&&from===V.from&&to===V.to)return;\n"
    " V.from=from;V.to=to;const rows=[];if(from)rows.push(pad(from));\n"
    " for(let r=from;r<to;r++)rows.push(row(V.ks?V.ks[r]:r+1));\n"
    " if(to<V.n)rows.push(pad(V.n-to));\n"
    " V.tb.innerHTML=rows.join('');\n"
    " const one=V.tb.querySelector('tr[id]'),rh=one?one.getBoundingClientRect().height:0;\n"
    " if(rh>0&&Math.abs(rh-V.rh)>0.01){V.rh=rh;paint(true)}\n"
    "}\n"
    "addEventListener('scroll',()=>paint(false),{passive:true});\n"
    "addEventListener('resize',()=>paint(false));\n"
    "function rowOf(k){if(!V.ks)return k>=1&&k<=V.n?k-1:-1;let lo=0,hi=V.n;while(lo<hi){const m"
    "=(lo+hi)>>1;if(V.ks[m]<k)lo=m+1;else hi=m}return lo<V.n&&V.ks[lo]===k?lo:-1}\n"
    "function mark(k){\n"
    " const r=rowOf(k);if(r<0)return;const old=document.getElementById('L'+cur);if(old)old.clas"
    "sList.remove('cur');\n"
    " cur=k;const t=V.tb.parentNode;scrollTo(0,Math.max(0,t.getBoundingClientRect().top+scrollY"
    "+r*V.rh-innerHeight/2+V.rh/2));paint(true);\n"
    " const e=document.getElementById('L'+k);if(e)e.classList.add('cur');\n"
    "}\n"
    "M.addEventListener('click',e=>{const td=e.target.closest?e.target.closest('td.cnt'):null,o"
    "ld=document.getElementById('who');if(old)old.remove();if(!td||!td.title||!td.parentNode.da"
    "taset.tests)return;const d=document.createElement('div');d.id='who';d.innerHTML='<b>Line '"
    "+td.parentNode.dataset.line+'</b><br>'+esc(td.title).replace(/\\n/g,'<br>');document.body."
    "appendChild(d)});\n"
    "function file_keys(i){for(const th of M.querySelectorAll('th[data-fk]'))th.onclick=()=>{fd"
    "ir=fkey===th.dataset.fk?-fdir:1;fkey=th.dataset.fk;document.getElementById('functions').ou"
    "terHTML=funcs(i);file_keys(i)}}\n"
    "function go(step){if(!V)return;const miss=V.miss;if(!miss.length)return;\n"
    " let to=step>0?miss.find(l=>l>cur):miss.slice().reverse().find(l=>l<cur);\n"
    " if(to===undefined)to=step>0?miss[0]:miss[miss.length-1];\n"
    " mark(to);const q=params();\n"
    " history.replaceState(null,'',(q.file!==undefined?'#file='+encodeURIComponent(q.file)+'&li"
    "ne='+cur:'#f='+V.i+'&l='+cur)+(q.test!==undefined?'&test='+encodeURIComponent(q.test):''))"
    "}\n"
    "document.addEventListener('keydown',e=>{if(e.target.tagName==='INPUT'||e.ctrlKey||e.metaKe"
    "y||e.altKey)return;if(e.key==='n'||e.key==='j')go(1);else if(e.key==='p'||e.key==='k')go(-"
    "1)});\n"
    "function params(){const q={};for(const kv of location.hash.slice(1).split('&')){const e=kv"
    ".indexOf('=');if(e>0){try{q[kv.slice(0,e)]=decodeURIComponent(kv.slice(e+1))}catch(x){}}}r"
    "eturn q}\n"
    "function find(p){p=p.replace(/^\\.\\//,'');for(let i=0;i<D.files.length;i++)if(D.files[i]."
    "p===p)return i;\n"
    " let at=-1;for(let i=0;i<D.files.length;i++)if(D.files[i].p.endsWith('/'+p)){if(at>=0)retu"
    "rn -1;at=i}return at}\n"
    "function route(){const q=params();catf=q.cat&&CATS[q.cat]?q.cat:'';onlyName=q.test||'';onl"
    "y=q.test===undefined?-1:T&&T.indexOf(q.test)>=0?T.indexOf(q.test):-2;\n"
    "const i=q.file!==undefined?find(q.file):q.f!==undefined&&/^\\d+$/.test(q.f)?+q.f:-1,ln=+(q"
    ".line||q.l||0);\n"
    " if(i>=0&&i<D.files.length)load(i,()=>{scrollTo(0,0);file(i);if(ln>0)mark(ln)});else summa"
    "ry()}\n"
    "window.onhashchange=route;route();\n";

/* A file's totals, as the summary shows them: lines hit and found,
 * functions, branches, MC/DC conditions, excluded lines and branches. */
static void put_totals(struct out *o, const struct cov_file *c) {
  uint64_t t[10] = {0};
  for (size_t k = 0; k < c->n_lines; k++)
    t[0] += c->lines[k].count > 0;
  t[1] = c->n_lines;
  for (size_t k = 0; k < c->n_funcs; k++)
    t[2] += c->funcs[k].count > 0;
  t[3] = c->n_funcs;
  for (size_t k = 0; k < c->n_branches; k++)
    t[4] += c->branches[k].executed && c->branches[k].taken > 0;
  t[5] = c->n_branches;
  for (size_t k = 0; k < c->n_mcdc; k++)
    t[6] += c->mcdc[k].taken > 0;
  t[7] = c->n_mcdc;
  t[8] = c->n_excl_lines;
  t[9] = c->excl_branches;
  o_str(o, ", \"t\": [");
  for (int k = 0; k < 10; k++) {
    if (k)
      o_put(o, ",", 1);
    o_u64(o, t[k]);
  }
  o_put(o, "]", 1);
}

/* The page's index: each file's path and totals (and its differential
 * categories' counts), all the summary needs. */
static void put_index(struct out *o, const struct cov_model *m, const struct cov_diff *diff) {
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    o_str(o, i ? ",\n{\"p\": " : "\n{\"p\": ");
    const char *shown = cov_display(m, c->path);
    put_js_string(o, shown, strlen(shown));
    put_totals(o, c);
    if (diff && i < diff->n_files && diff->files[i].n) {
      const struct cov_diff_file *d = &diff->files[i];
      o_str(o, ", \"dc\": \"");
      for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
        if (d->counts[cat]) {
          o_str(o, cov_category_name[cat]);
          o_put(o, " ", 1);
          o_u64(o, d->counts[cat]);
          o_put(o, " ", 1);
        }
      o_str(o, "\"");
    }
    o_str(o, "}");
  }
}

/* Branches per line: [line, taken, found, [count or null (not executed), ...]]. */
static void put_branches(struct out *o, const struct cov_file *c) {
  o_str(o, ", \"b\": [");
  for (size_t k = 0, first = 1; k < c->n_branches; first = 0) {
    uint32_t line = c->branches[k].line;
    uint64_t hit = 0, found = 0;
    size_t from = k;
    for (; k < c->n_branches && c->branches[k].line == line; k++) {
      found++;
      hit += c->branches[k].executed && c->branches[k].taken > 0;
    }
    o_str(o, first ? "[" : ",[");
    o_u64(o, line);
    o_put(o, ",", 1);
    o_u64(o, hit);
    o_put(o, ",", 1);
    o_u64(o, found);
    o_str(o, ",[");
    for (size_t j = from; j < k; j++) {
      if (j > from)
        o_put(o, ",", 1);
      if (c->branches[j].executed)
        o_u64(o, c->branches[j].taken);
      else
        o_str(o, "null");
    }
    o_str(o, "]]");
  }
  o_str(o, "]");
}

/* (Long: one file's view data, member by member: lines, functions, branches, MC/DC, categories,
 * exclusions, source.) */
static void put_file(struct out *o, const struct cov_model *m, size_t i,
                     const struct cov_diff *diff, const struct html_extra *x, size_t *w) {
  const struct cov_file *c = m->files[i];
  /* lines: line, count, line, count, ... (flat: 250,000 of them parse and
   * sit in the browser as one array) */
  o_str(o, "{\"l\": [");
  for (size_t k = 0; k < c->n_lines; k++) {
    if (k)
      o_put(o, ",", 1);
    o_u64(o, c->lines[k].line);
    o_put(o, ",", 1);
    o_u64(o, c->lines[k].count);
  }
  o_str(o, "], \"f\": [");
  for (size_t k = 0; k < c->n_funcs; k++) {
    o_str(o, k ? ",[" : "[");
    put_js_string(o, c->funcs[k].name, strlen(c->funcs[k].name));
    o_put(o, ",", 1);
    o_u64(o, c->funcs[k].line);
    o_put(o, ",", 1);
    o_u64(o, c->funcs[k].count);
    o_put(o, "]", 1);
  }
  o_str(o, "]");
  put_branches(o, c);
  /* MC/DC conditions per line: [line, shown, found]. */
  if (c->n_mcdc) {
    o_str(o, ", \"m\": [");
    for (size_t k = 0, first = 1; k < c->n_mcdc; first = 0) {
      uint32_t line = c->mcdc[k].line;
      uint64_t hit = 0, found = 0;
      for (; k < c->n_mcdc && c->mcdc[k].line == line; k++) {
        found++;
        hit += c->mcdc[k].taken > 0;
      }
      o_tuple(o, !first, line, hit, &found);
    }
    o_str(o, "]");
  }
  if (diff && i < diff->n_files && diff->files[i].n) {
    const struct cov_diff_file *d = &diff->files[i];
    o_str(o, ", \"d\": [");
    for (size_t k = 0; k < d->n; k++) {
      o_str(o, k ? ",[" : "[");
      o_u64(o, d->lines[k].line);
      o_str(o, ",\"");
      o_str(o, cov_category_name[d->lines[k].category]);
      o_str(o, "\"]");
    }
    o_str(o, "]");
  }
  if (c->n_excl_lines) {
    o_str(o, ", \"x\": [");
    for (size_t k = 0; k < c->n_excl_lines; k++) {
      if (k)
        o_put(o, ",", 1);
      o_u64(o, c->excl_lines[k]);
    }
    o_str(o, "]");
  }
  /* the tests of each line (the store's): line, n, then n test, count pairs */
  if (x && *w < x->n_who && x->who[*w].file == i) {
    o_str(o, ", \"w\": [");
    for (int first = 1; *w < x->n_who && x->who[*w].file == i; first = 0) {
      uint32_t line = x->who[*w].line;
      size_t e = *w;
      while (e < x->n_who && x->who[e].file == i && x->who[e].line == line)
        e++;
      if (!first)
        o_put(o, ",", 1);
      o_u64(o, line);
      o_put(o, ",", 1);
      o_u64(o, e - *w);
      for (; *w < e; ++*w) {
        o_put(o, ",", 1);
        o_u64(o, x->who[*w].test);
        o_put(o, ",", 1);
        o_u64(o, x->who[*w].count);
      }
    }
    o_str(o, "]");
  }
  o_str(o, ", \"s\": ");
  char buf[8192];
  put_source(o, cov_source_path(m, c->path, buf, sizeof(buf)));
  o_str(o, "}");
}

/* A percentage of found, and as ucov history prints it. */
static double pc_of(uint64_t hit, uint64_t found) {
  return found ? 100.0 * (double)hit / (double)found : 0.0;
}

static void percent(char *out, size_t n, uint64_t hit, uint64_t found) {
  snprintf(out, n, "%.2f", pc_of(hit, found));
}

/* The chart's frame: its size and margins, where build i and a percentage go. */
static const double chart_w = 720, chart_h = 160, chart_left = 40, chart_top = 10, chart_right = 10,
                    chart_bottom = 20;

static double chart_y(double pc) {
  return chart_top + (chart_h - chart_top - chart_bottom) * (100 - pc) / 100.0;
}

/* Coverage per build, oldest first: an inline SVG, a group per build
 * (data-build, data-percent: its line coverage as ucov history gives it)
 * holding a point per measure, its revision and time in its hover. */
static void put_chart(FILE *f, const struct html_extra *x) {
  static const char *const kind[3] = {"lines", "functions", "branches"};
  size_t n = x->n_builds;
  double step = n > 1 ? (chart_w - chart_left - chart_right) / (double)(n - 1) : 0;
  fprintf(f,
          "<div id=\"history\"><svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
          "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">",
          chart_w, chart_h, chart_w, chart_h);
  for (int p = 0; p <= 100; p += 50)
    fprintf(f,
            "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\"/>"
            "<text class=\"axis\" x=\"%.0f\" y=\"%.1f\">%d%%</text>",
            chart_left, chart_w - chart_right, chart_y(p), chart_y(p), chart_left - 4,
            chart_y(p) + 4, p);
  for (int k = 0; k < 3; k++) {
    fprintf(f, "<polyline class=\"s%d\" points=\"", k);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%s%.1f,%.1f", i ? " " : "", chart_left + step * (double)i,
              chart_y(pc_of(x->builds[i].hit[k], x->builds[i].found[k])));
    fputs("\"/>", f);
  }
  for (size_t i = 0; i < n; i++) {
    const struct html_build *b = &x->builds[i];
    char when[32], pcs[3][32];
    time_t t = (time_t)b->created;
    struct tm tm;
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    for (int k = 0; k < 3; k++)
      percent(pcs[k], sizeof(pcs[k]), b->hit[k], b->found[k]);
    fprintf(f,
            "<g class=\"build\" data-build=\"%" PRId64
            "\" data-percent=\"%s\"><title>build %" PRId64 " ",
            b->id, pcs[0], b->id);
    put_html(f, b->revision && *b->revision ? b->revision : "-");
    fprintf(f, " %s\nlines %s%%, functions %s%%, branches %s%%</title>", when, pcs[0], pcs[1],
            pcs[2]);
    for (int k = 0; k < 3; k++)
      fprintf(f,
              "<circle class=\"s%d\" data-kind=\"%s\" data-pc=\"%s\" cx=\"%.1f\" "
              "cy=\"%.1f\" r=\"3.5\"/>",
              k, kind[k], pcs[k], chart_left + step * (double)i,
              chart_y(pc_of(b->hit[k], b->found[k])));
    fputs("</g>", f);
  }
  fputs("</svg><div class=\"legend\"><span class=\"s0\">&#9679; lines</span> <span "
        "class=\"s1\">&#9679; functions</span> <span class=\"s2\">&#9679; branches</span> "
        "per build, oldest first</div></div>\n",
        f);
}

/* One file's data as files/N.js in the directory files (a descriptor): 0
 * or -1, said. */
static int put_file_js(int files, const struct cov_model *m, size_t i, const struct cov_diff *diff,
                       const struct html_extra *x, size_t *w) {
  char name[32];
  snprintf(name, sizeof(name), "%zu.js", i);
  int fd = openat(files, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    diag_at(DIAG_ERROR, name, 0, "%s", strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  static struct out o; /* (64 KiB: not on the stack) */
  o.f = f;
  o.n = 0;
  snprintf(name, sizeof(name), "ucovFile(%zu, ", i);
  o_str(&o, name);
  put_file(&o, m, i, diff, x, w);
  o_str(&o, ");\n");
  o_flush(&o);
  if (fclose(f)) {
    diag_at(DIAG_ERROR, name, 0, "write error");
    return -1;
  }
  return 0;
}

/* (Long: the page's parts in the order they are written, over one set of totals.)
 * The page into f; files (a directory's descriptor, -1: none): each file's
 * data there as files/N.js rather than in the page. */
static int page(const struct cov_model *m, FILE *f, const char *title, const struct cov_diff *diff,
                const struct html_extra *x, int files) {
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
          "%s &middot; %s &middot; ucov</div></header>\n",
          m->n_files, all.lines_hit, all.lines_found, all.funcs_hit, all.funcs_found,
          all.branches_hit, all.branches_found, mcdc, when);
  if (x && x->n_builds)
    put_chart(f, x);
  fprintf(f,
          "<main></main>\n<script type=\"application/json\" id=\"data\">{\"dir\": %s, "
          "\"diff\": %s, \"mcdc\": %s, \"excl\": %s, ",
          files >= 0 ? "true" : "false", diff ? "true" : "false", all.mcdc_found ? "true" : "false",
          all.lines_excluded || all.branches_excluded ? "true" : "false");
  static struct out o; /* (64 KiB: not on the stack) */
  o.f = f;
  o.n = 0;
  if (x && x->n_tests) {
    o_str(&o, "\"tests\": [");
    for (size_t k = 0; k < x->n_tests; k++) {
      if (k)
        o_put(&o, ",", 1);
      const char *t = x->tests[k] && *x->tests[k] ? x->tests[k] : "(no test name)";
      put_js_string(&o, t, strlen(t));
    }
    o_str(&o, "], ");
  }
  o_str(&o, "\"files\": [");
  put_index(&o, m, diff);
  o_str(&o, "\n]}</script>\n");
  /* Each file's view data in a script of its own, parsed only when the
   * file is opened: the page opens at once whatever the tree's size. */
  size_t w = 0;
  int err = 0;
  for (size_t i = 0; i < m->n_files; i++) {
    if (files >= 0) {
      err |= put_file_js(files, m, i, diff, x, &w);
      continue;
    }
    char head[64];
    snprintf(head, sizeof(head), "<script type=\"application/json\" id=\"f%zu\">", i);
    o_str(&o, head);
    put_file(&o, m, i, diff, x, &w);
    o_str(&o, "</script>\n");
  }
  o_flush(&o);
  fprintf(f, "<script>%s</script>\n</body></html>\n", script);
  return err || ferror(f) ? -1 : 0;
}

int html_write(const struct cov_model *m, FILE *f, const char *title, const struct cov_diff *diff,
               const struct html_extra *x) {
  return page(m, f, title, diff, x, -1);
}

int html_write_dir(const struct cov_model *m, const char *dir, const char *title,
                   const struct cov_diff *diff, const struct html_extra *x) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return diag_at(DIAG_ERROR, dir, 0, "%s", strerror(errno)), -1;
  int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0)
    return diag_at(DIAG_ERROR, dir, 0, "%s", strerror(errno)), -1;
  /* (the names in it are ours: nothing is written through a link there) */
  int files = mkdirat(d, "files", 0777) && errno != EEXIST
                  ? -1
                  : openat(d, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int fd = openat(d, "index.html", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 && files >= 0 ? fdopen(fd, "w") : NULL;
  int err = -1;
  if (!f) {
    diag_at(DIAG_ERROR, dir, 0, "%s: %s", files < 0 ? "files" : "index.html", strerror(errno));
    if (fd >= 0)
      close(fd);
  } else {
    err = page(m, f, title, diff, x, files);
    if (fclose(f) && !err) {
      diag_at(DIAG_ERROR, dir, 0, "index.html: write error");
      err = -1;
    }
  }
  if (files >= 0)
    close(files);
  close(d);
  return err;
}
