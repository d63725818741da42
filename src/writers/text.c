/* SPDX-License-Identifier: MIT */
/* The text table (see writers.h): a row per file, as gcovr prints by default. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "writers.h"

/* "85.71%" of hit/found; "-" without data. */
static const char *pct(char *buf, size_t n, uint64_t hit, uint64_t found) {
  if (!found)
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.2f%%", 100.0 * (double)hit / (double)found);
  return buf;
}

/* The lines never run, as ranges: "3,7-9". A range runs on over lines that
 * have no code, never over a line that ran (as gcovr's Missing column). */
static void missing(const struct cov_file *c, FILE *f) {
  int first = 1;
  for (size_t i = 0; i < c->n_lines;) {
    if (c->lines[i].count) {
      i++;
      continue;
    }
    size_t j = i;
    while (j + 1 < c->n_lines && !c->lines[j + 1].count)
      j++;
    fprintf(f, "%s%" PRIu32, first ? "" : ",", c->lines[i].line);
    if (j > i)
      fprintf(f, "-%" PRIu32, c->lines[j].line);
    first = 0;
    i = j + 1;
  }
}

/* A row's cells: "85.71% 6/7" of lines, functions, branches, and LLVM's
 * code regions (a fourth column only when some file has regions). */
struct cells {
  char v[4][64];
};

static void cells_of(struct cells *c, const struct cov_summary *s) {
  const uint64_t hit[4] = {s->lines_hit, s->funcs_hit, s->branches_hit, s->regions_hit},
                 found[4] = {s->lines_found, s->funcs_found, s->branches_found, s->regions_found};
  for (int k = 0; k < 4; k++) {
    char p[16];
    snprintf(c->v[k], sizeof(c->v[k]), "%s %" PRIu64 "/%" PRIu64,
             pct(p, sizeof(p), hit[k], found[k]), hit[k], found[k]);
  }
}

/* The columns' widths: the file names' (at most 60: a longer name is on a
 * line of its own, its figures under it) and each figure's widest, so that
 * no row shifts the columns after it. */
struct widths {
  int name, col[4], n;
};

static void row(FILE *f, const struct widths *w, const char *name, const struct cells *c) {
  if ((int)strlen(name) > w->name) {
    fprintf(f, "%s\n", name);
    name = "";
  }
  fprintf(f, "%-*s", w->name, name);
  for (int k = 0; k < w->n; k++)
    fprintf(f, "  %*s", w->col[k], c->v[k]);
}

static void widen(struct widths *w, const struct cells *c) {
  for (int k = 0; k < 4; k++)
    if ((int)strlen(c->v[k]) > w->col[k])
      w->col[k] = (int)strlen(c->v[k]);
}

int text_write(const struct cov_model *m, FILE *f, const struct cov_diff *d) {
  struct widths w = {4, {20, 17, 20, 20}, 3};
  struct cov_summary t = {0};
  struct cells c;
  for (size_t i = 0; i < m->n_files; i++) {
    int l = (int)strlen(cov_display(m, m->files[i]->path));
    if (l > w.name)
      w.name = l < 60 ? l : 60;
    struct cov_summary s;
    cov_file_summary(m->files[i], &s);
    cells_of(&c, &s);
    widen(&w, &c);
    t.lines_hit += s.lines_hit, t.lines_found += s.lines_found;
    t.funcs_hit += s.funcs_hit, t.funcs_found += s.funcs_found;
    t.branches_hit += s.branches_hit, t.branches_found += s.branches_found;
    t.regions_hit += s.regions_hit, t.regions_found += s.regions_found;
  }
  if (t.regions_found)
    w.n = 4;
  struct cells total;
  cells_of(&total, &t);
  widen(&w, &total);
  static const char *const head[4] = {"Lines", "Functions", "Branches", "Regions"};
  fprintf(f, "%-*s", w.name, "File");
  for (int k = 0; k < w.n; k++)
    fprintf(f, "  %*s", w.col[k], head[k]);
  fputs("  Missing\n", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *cf = m->files[i];
    struct cov_summary s;
    cov_file_summary(cf, &s);
    cells_of(&c, &s);
    row(f, &w, cov_display(m, cf->path), &c);
    if (s.lines_hit < s.lines_found) {
      fputs("  ", f);
      missing(cf, f);
    }
    fputc('\n', f);
  }
  row(f, &w, "TOTAL", &total);
  fputc('\n', f);
  if (d && d->have_patch) {
    char a[16];
    fprintf(f, "patch: %s (%" PRIu64 " of %" PRIu64 " changed lines with code covered)\n",
            d->patch_found ? pct(a, sizeof(a), d->patch_hit, d->patch_found) : "no changed code",
            d->patch_hit, d->patch_found);
  }
  return ferror(f) ? -1 : 0;
}
