/* SPDX-License-Identifier: MIT */
/*
 * One self-contained HTML report: the coverage and the sources as JSON in the
 * page, rendered by a small script (no network, no external assets). The
 * page holds an index (script#data: each file's path and totals, all the
 * summary needs) and each file's view data in a script of its own
 * (script#f<N>: lines as a flat line, count list, functions, branches,
 * MC/DC, categories, exclusions, the source's line count and chunks),
 * parsed only when that file is opened, and its source in chunks of whole
 * lines (script#s<N>_<K>, read only when on screen). The summary is a
 * sortable, filterable table of files; a file's view shows its source with
 * counts, coloured, and its functions, rendering only the rows on screen and
 * a margin, so that a 500,000-line file opens at once, at any line.
 *
 * Addresses: #f=N or #file=PATH (the path shown, or a unique ending of it)
 * opens a file; &l=N or &line=N scrolls to line N and marks it (tr.cur).
 *
 * DOM the tests rely on: table#summary (tr[data-path] rows: all of them up
 * to 2,000, else those on screen and a margin; span#count says how many the
 * search keeps), table#source
 * (tr#L<line> rows with class hit/miss/none/excl and td.cnt holding the
 * count; td.br a line's branches: + taken, - not taken, # not executed, each
 * listed in its title), table#functions (a row per function, inside
 * details#fdet, rendered when opened past 200 functions), the keys n/j
 * and p/k (tr.cur: the uncovered line gone to), body[data-scheme] (light or
 * dark, from the system's setting).
 */
#include "html.h"
#include "html_chart.h"
#include "html_data.h"
#include "html_view.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void html_put_text(FILE *f, const char *s) {
  for (; *s; s++)
    if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '&')
      fputs("&amp;", f);
    else
      putc(*s, f);
}

/* A file's totals, as the summary shows them: lines hit and found,
 * functions, branches, MC/DC conditions, excluded lines and branches,
 * LLVM code regions. */
static void put_totals(struct hout *o, const struct cov_file *c) {
  struct cov_summary s;
  cov_file_summary(c, &s);
  const uint64_t t[12] = {s.lines_hit,      s.lines_found,       s.funcs_hit,   s.funcs_found,
                          s.branches_hit,   s.branches_found,    s.mcdc_hit,    s.mcdc_found,
                          s.lines_excluded, s.branches_excluded, s.regions_hit, s.regions_found};
  hout_str(o, ", \"t\": [");
  for (int k = 0; k < 12; k++) {
    if (k)
      hout_put(o, ",", 1);
    hout_u64(o, t[k]);
  }
  hout_put(o, "]", 1);
}

static int has_line(const struct cov_file *c, uint32_t line) {
  size_t lo = 0, hi = c->n_lines;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->lines[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->n_lines && c->lines[lo].line == line;
}

/* File i's lines each test ran (of the lines it counts), from the store's
 * tests per line: "tl": [test, lines, test, lines, ...]; per: a counter
 * per test. */
static void put_test_lines(struct hout *o, const struct cov_file *c, size_t i,
                           const struct html_extra *x, size_t *w, uint64_t *per) {
  memset(per, 0, x->n_tests * sizeof(*per));
  for (; *w < x->n_who && x->who[*w].file < i; ++*w)
    ;
  for (; *w < x->n_who && x->who[*w].file == i; ++*w)
    if (x->who[*w].count && x->who[*w].test < x->n_tests && has_line(c, x->who[*w].line))
      per[x->who[*w].test]++;
  hout_str(o, ", \"tl\": [");
  for (size_t t = 0, first = 1; t < x->n_tests; t++)
    if (per[t]) {
      if (!first)
        hout_put(o, ",", 1);
      first = 0;
      hout_u64(o, t);
      hout_put(o, ",", 1);
      hout_u64(o, per[t]);
    }
  hout_str(o, "]");
}

/* The page's index: each file's path and totals (and its differential
 * categories' counts; with the store's tests per line, the lines each test
 * ran), all the summary needs. per: x's n_tests counters. */
static void put_index(struct hout *o, const struct cov_model *m, const struct cov_diff *diff,
                      const struct html_extra *x, uint64_t *per) {
  size_t w = 0;
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    hout_str(o, i ? ",\n{\"p\": " : "\n{\"p\": ");
    const char *shown = cov_display(m, c->path);
    hout_js_string(o, shown, strlen(shown));
    put_totals(o, c);
    if (diff && i < diff->n_files && diff->files[i].n) {
      const struct cov_diff_file *d = &diff->files[i];
      hout_str(o, ", \"dc\": \"");
      for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
        if (d->counts[cat]) {
          hout_str(o, cov_category_name[cat]);
          hout_put(o, " ", 1);
          hout_u64(o, d->counts[cat]);
          hout_put(o, " ", 1);
        }
      hout_str(o, "\"");
    }
    if (per)
      put_test_lines(o, c, i, x, &w, per);
    hout_str(o, "}");
  }
}

/* Branches per line: [line, taken, found, [count or null (not executed), ...]]. */
static void put_branches(struct hout *o, const struct cov_file *c) {
  hout_str(o, ", \"b\": [");
  for (size_t k = 0, first = 1; k < c->n_branches; first = 0) {
    uint32_t line = c->branches[k].line;
    uint64_t hit = 0, found = 0;
    size_t from = k;
    for (; k < c->n_branches && c->branches[k].line == line; k++) {
      found++;
      hit += c->branches[k].executed && c->branches[k].taken > 0;
    }
    hout_str(o, first ? "[" : ",[");
    hout_u64(o, line);
    hout_put(o, ",", 1);
    hout_u64(o, hit);
    hout_put(o, ",", 1);
    hout_u64(o, found);
    hout_str(o, ",[");
    for (size_t j = from; j < k; j++) {
      if (j > from)
        hout_put(o, ",", 1);
      if (c->branches[j].executed)
        hout_u64(o, c->branches[j].taken);
      else
        hout_str(o, "null");
    }
    hout_str(o, "]]");
  }
  hout_str(o, "]");
}

/* MC/DC conditions per line: [line, shown, found]. */
static void put_mcdc(struct hout *o, const struct cov_file *c) {
  if (!c->n_mcdc)
    return;
  hout_str(o, ", \"m\": [");
  for (size_t k = 0, first = 1; k < c->n_mcdc; first = 0) {
    uint32_t line = c->mcdc[k].line;
    uint64_t hit = 0, found = 0;
    for (; k < c->n_mcdc && c->mcdc[k].line == line; k++) {
      found++;
      hit += c->mcdc[k].taken > 0;
    }
    hout_tuple(o, !first, line, hit, &found);
  }
  hout_str(o, "]");
}

/* The tests of each line of file i (the store's, from x->who[*w] on):
 * line, n, then n test, count pairs. */
static void put_who(struct hout *o, const struct html_extra *x, size_t i, size_t *w) {
  if (*w >= x->n_who || x->who[*w].file != i)
    return;
  hout_str(o, ", \"w\": [");
  for (int first = 1; *w < x->n_who && x->who[*w].file == i; first = 0) {
    uint32_t line = x->who[*w].line;
    size_t e = *w;
    while (e < x->n_who && x->who[e].file == i && x->who[e].line == line)
      e++;
    if (!first)
      hout_put(o, ",", 1);
    hout_u64(o, line);
    hout_put(o, ",", 1);
    hout_u64(o, e - *w);
    for (; *w < e; ++*w) {
      hout_put(o, ",", 1);
      hout_u64(o, x->who[*w].test);
      hout_put(o, ",", 1);
      hout_u64(o, x->who[*w].count);
    }
  }
  hout_str(o, "]");
}

/* One file's view data: lines, functions, branches, MC/DC, categories,
 * exclusions, the tests of its lines, its source. */
static void put_file(struct hout *o, const struct cov_model *m, size_t i,
                     const struct cov_diff *diff, const struct html_extra *x, size_t *w,
                     const struct html_source *src, int inline_chunks) {
  const struct cov_file *c = m->files[i];
  /* lines: line, count, line, count, ... (flat: 250,000 of them parse and
   * sit in the browser as one array) */
  hout_str(o, "{\"l\": [");
  for (size_t k = 0; k < c->n_lines; k++) {
    if (k)
      hout_put(o, ",", 1);
    hout_u64(o, c->lines[k].line);
    hout_put(o, ",", 1);
    hout_u64(o, c->lines[k].count);
  }
  hout_str(o, "], \"f\": [");
  for (size_t k = 0; k < c->n_funcs; k++) {
    hout_str(o, k ? ",[" : "[");
    hout_js_string(o, c->funcs[k].name, strlen(c->funcs[k].name));
    hout_put(o, ",", 1);
    hout_u64(o, c->funcs[k].line);
    hout_put(o, ",", 1);
    hout_u64(o, c->funcs[k].count);
    hout_put(o, "]", 1);
  }
  hout_str(o, "]");
  put_branches(o, c);
  put_mcdc(o, c);
  if (diff && i < diff->n_files && diff->files[i].n) {
    const struct cov_diff_file *d = &diff->files[i];
    hout_str(o, ", \"d\": [");
    for (size_t k = 0; k < d->n; k++) {
      hout_str(o, k ? ",[" : "[");
      hout_u64(o, d->lines[k].line);
      hout_str(o, ",\"");
      hout_str(o, cov_category_name[d->lines[k].category]);
      hout_str(o, "\"]");
    }
    hout_str(o, "]");
  }
  if (c->n_excl_lines) {
    hout_str(o, ", \"x\": [");
    for (size_t k = 0; k < c->n_excl_lines; k++) {
      if (k)
        hout_put(o, ",", 1);
      hout_u64(o, c->excl_lines[k]);
    }
    hout_str(o, "]");
  }
  if (x)
    put_who(o, x, i, w);
  html_source_put(o, src, inline_chunks);
  hout_str(o, "}");
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
  static struct hout o; /* (64 KiB: not on the stack) */
  o.f = f;
  o.n = 0;
  snprintf(name, sizeof(name), "ucovFile(%zu, ", i);
  hout_str(&o, name);
  struct html_source src;
  char buf[8192];
  html_source_load(&src, cov_source_path(m, m->files[i]->path, buf, sizeof(buf)));
  put_file(&o, m, i, diff, x, w, &src, 1);
  html_source_free(&src);
  hout_str(&o, ");\n");
  hout_flush(&o);
  if (fclose(f)) {
    diag_at(DIAG_ERROR, name, 0, "write error");
    return -1;
  }
  return 0;
}

/* The header's totals after lines, functions and branches: MC/DC, regions,
 * what was excluded (into buf, "" when none). */
static void header_extra(char *buf, size_t len, const struct cov_summary *all) {
  size_t ml = 0;
  buf[0] = 0;
  if (all->mcdc_found)
    snprintf(buf, len, " &middot; MC/DC %" PRIu64 "/%" PRIu64, all->mcdc_hit, all->mcdc_found);
  ml = strlen(buf);
  if (all->regions_found)
    snprintf(buf + ml, len - ml, " &middot; regions %" PRIu64 "/%" PRIu64, all->regions_hit,
             all->regions_found);
  ml = strlen(buf);
  if (all->lines_excluded || all->branches_excluded || all->funcs_excluded)
    snprintf(buf + ml, len - ml,
             " &middot; excluded %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches",
             all->lines_excluded, all->funcs_excluded, all->branches_excluded);
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
  char mcdc[240];
  header_extra(mcdc, sizeof(mcdc), &all);
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width\"><title>",
        f);
  html_put_text(f, title);
  fprintf(f, "</title><style>%s</style></head><body><header><h1>", html_style);
  html_put_text(f, title);
  fprintf(f,
          "</h1><div class=\"t\">%zu files &middot; lines %" PRIu64 "/%" PRIu64
          " &middot; functions %" PRIu64 "/%" PRIu64 " &middot; branches %" PRIu64 "/%" PRIu64
          "%s &middot; %s &middot; ucov</div></header>\n",
          m->n_files, all.lines_hit, all.lines_found, all.funcs_hit, all.funcs_found,
          all.branches_hit, all.branches_found, mcdc, when);
  if (x)
    html_put_charts(f, x);
  fprintf(f,
          "<main></main>\n<script type=\"application/json\" id=\"data\">{\"dir\": %s, "
          "\"diff\": %s, \"mcdc\": %s, \"reg\": %s, \"excl\": %s, ",
          files >= 0 ? "true" : "false", diff ? "true" : "false", all.mcdc_found ? "true" : "false",
          all.regions_found ? "true" : "false",
          all.lines_excluded || all.branches_excluded ? "true" : "false");
  static struct hout o; /* (64 KiB: not on the stack) */
  o.f = f;
  o.n = 0;
  if (x && x->n_tests) {
    hout_str(&o, "\"tests\": [");
    for (size_t k = 0; k < x->n_tests; k++) {
      if (k)
        hout_put(&o, ",", 1);
      const char *t = x->tests[k] && *x->tests[k] ? x->tests[k] : "(no test name)";
      hout_js_string(&o, t, strlen(t));
    }
    hout_str(&o, "], ");
  }
  hout_str(&o, "\"files\": [");
  uint64_t *per = x && x->n_tests && x->n_who ? calloc(x->n_tests, sizeof(*per)) : NULL;
  put_index(&o, m, diff, x, per);
  free(per);
  hout_str(&o, "\n]}</script>\n");
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
    hout_str(&o, head);
    struct html_source src;
    char buf[8192];
    html_source_load(&src, cov_source_path(m, m->files[i]->path, buf, sizeof(buf)));
    put_file(&o, m, i, diff, x, &w, &src, 0);
    hout_str(&o, "</script>\n");
    html_chunks_put(&o, i, &src);
    html_source_free(&src);
  }
  hout_flush(&o);
  fprintf(f, "<script>%s</script>\n</body></html>\n", html_script);
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
