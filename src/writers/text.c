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

static void row(FILE *f, int w, const char *name, uint64_t lh, uint64_t lf, uint64_t fh,
                uint64_t ff, uint64_t bh, uint64_t bf) {
  char a[16], b[16], c[16], la[48], fa[48], ba[48];
  snprintf(la, sizeof(la), "%s %" PRIu64 "/%" PRIu64, pct(a, sizeof(a), lh, lf), lh, lf);
  snprintf(fa, sizeof(fa), "%s %" PRIu64 "/%" PRIu64, pct(b, sizeof(b), fh, ff), fh, ff);
  snprintf(ba, sizeof(ba), "%s %" PRIu64 "/%" PRIu64, pct(c, sizeof(c), bh, bf), bh, bf);
  fprintf(f, "%-*s  %20s  %17s  %20s", w, name, la, fa, ba);
}

int text_write(const struct cov_model *m, FILE *f, const struct cov_diff *d) {
  int w = 4;
  for (size_t i = 0; i < m->n_files; i++) {
    int l = (int)strlen(cov_display(m, m->files[i]->path));
    if (l > w)
      w = l < 60 ? l : 60;
  }
  fprintf(f, "%-*s  %20s  %17s  %20s  %s\n", w, "File", "Lines", "Functions", "Branches",
          "Missing");
  struct cov_summary t = {0};
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    struct cov_summary s;
    cov_file_summary(c, &s);
    row(f, w, cov_display(m, c->path), s.lines_hit, s.lines_found, s.funcs_hit, s.funcs_found,
        s.branches_hit, s.branches_found);
    if (s.lines_hit < s.lines_found) {
      fputs("  ", f);
      missing(c, f);
    }
    fputc('\n', f);
    t.lines_hit += s.lines_hit, t.lines_found += s.lines_found;
    t.funcs_hit += s.funcs_hit, t.funcs_found += s.funcs_found;
    t.branches_hit += s.branches_hit, t.branches_found += s.branches_found;
  }
  row(f, w, "TOTAL", t.lines_hit, t.lines_found, t.funcs_hit, t.funcs_found, t.branches_hit,
      t.branches_found);
  fputc('\n', f);
  if (d && d->have_patch) {
    char a[16];
    fprintf(f, "patch: %s (%" PRIu64 " of %" PRIu64 " changed lines with code covered)\n",
            d->patch_found ? pct(a, sizeof(a), d->patch_hit, d->patch_found) : "no changed code",
            d->patch_hit, d->patch_found);
  }
  return ferror(f) ? -1 : 0;
}
