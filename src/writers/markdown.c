/* SPDX-License-Identifier: MIT */
/*
 * A Markdown table for a pull-request comment: a row per file, its missing
 * lines linked, patch coverage (see writers.h).
 */
#define _GNU_SOURCE
#include "writers.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Text in a cell: Markdown's own characters escaped; a control character
 * (a CR or a newline would end the table's row) shown as \r, \n, \t or
 * \xNN, rendered so (its backslash escaped too). */
static void md_text(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) {
      const char *named = c == '\n' ? "n" : c == '\r' ? "r" : c == '\t' ? "t" : NULL;
      if (named)
        fprintf(f, "\\\\%s", named);
      else
        fprintf(f, "\\\\x%02x", c);
      continue;
    }
    if (strchr("|\\`*_[]<>", c))
      putc('\\', f);
    putc(c, f);
  }
}

/* s percent-encoded for a link's address: what a Markdown link or a URL
 * could take for its own (spaces, parentheses, brackets, '#', '&', '%', ...)
 * escaped; keep: more characters left as they are (":?=" in a base URL). */
static void md_url(FILE *f, const char *s, const char *keep) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("-._~/", c) || (c > ' ' && c < 0x7f && strchr(keep, c)))
      putc(c, f);
    else
      fprintf(f, "%%%02X", c);
  }
}

/* A file's path, as a link to its view (at line; 0: the top) when there is
 * a page to link to. */
static void md_file(FILE *f, const char *url, const char *path, uint32_t line, const char *text) {
  if (!url) {
    md_text(f, text);
    return;
  }
  putc('[', f);
  md_text(f, text);
  fputs("](", f);
  md_url(f, url, ":?=&#@!$'*+,;%");
  fputs(strchr(url, '#') ? "&file=" : "#file=", f);
  md_url(f, path, "");
  if (line)
    fprintf(f, "&line=%" PRIu32, line);
  putc(')', f);
}

static void md_cell(FILE *f, uint64_t hit, uint64_t found) {
  if (!found)
    fputs(" - |", f);
  else
    fprintf(f, " %.1f%% (%" PRIu64 "/%" PRIu64 ") |", 100.0 * (double)hit / (double)found, hit,
            found);
}

struct ranked {
  size_t file;
  double pct;
  uint64_t missed;
};

static int by_coverage(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if (x->pct != y->pct)
    return x->pct < y->pct ? -1 : 1;
  if (x->missed != y->missed)
    return x->missed > y->missed ? -1 : 1;
  return x->file < y->file ? -1 : x->file > y->file;
}

/* (Long: the summary's parts in the order they are written, over one set of totals.) */
/* The totals table (and the patch's coverage, the exclusions). */
static void md_totals(FILE *f, const struct cov_summary *sp, const struct cov_diff *diff) {
  struct cov_summary s = *sp;
  fputs("\n\n| | Coverage | Covered | Total |\n|---|---:|---:|---:|\n", f);
  const char *what[] = {"Lines", "Functions", "Branches", "MC/DC conditions", "Regions"};
  uint64_t hit[] = {s.lines_hit, s.funcs_hit, s.branches_hit, s.mcdc_hit, s.regions_hit},
           found[] = {s.lines_found, s.funcs_found, s.branches_found, s.mcdc_found,
                      s.regions_found};
  for (int k = 0; k < 5; k++) {
    if (k >= 3 && !found[k])
      continue;
    if (found[k])
      fprintf(f, "| %s | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n", what[k],
              100.0 * (double)hit[k] / (double)found[k], hit[k], found[k]);
    else
      fprintf(f, "| %s | - | 0 | 0 |\n", what[k]);
  }
  if (diff && diff->have_patch) {
    if (diff->patch_found)
      fprintf(f, "| Patch | %.1f%% | %" PRIu64 " | %" PRIu64 " |\n",
              100.0 * (double)diff->patch_hit / (double)diff->patch_found, diff->patch_hit,
              diff->patch_found);
    else
      fputs("| Patch | - | 0 | 0 |\n", f);
  }
  if (s.lines_excluded || s.branches_excluded || s.funcs_excluded)
    fprintf(f, "\nExcluded: %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64 " branches.\n",
            s.lines_excluded, s.funcs_excluded, s.branches_excluded);
}

/* The changed files' categories and uncovered new lines. */
static void md_changed(const struct cov_model *m, FILE *f, const char *url,
                       const struct cov_diff *diff) {
  int any = 0;
  for (size_t i = 0; i < diff->n_files && i < m->n_files; i++) {
    const struct cov_diff_file *d = &diff->files[i];
    uint64_t changed = 0;
    for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
      if (c != COV_CBC && c != COV_UBC)
        changed += d->counts[c];
    if (!changed)
      continue;
    if (!any++) {
      fputs("\n### Changed files\n\n| File |", f);
      for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
        fprintf(f, " %s |", cov_category_name[c]);
      fputs(" Uncovered new lines |\n|---|", f);
      for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
        fputs("---:|", f);
      fputs("---|\n", f);
    }
    const char *shown = cov_display(m, m->files[i]->path);
    fputs("| ", f);
    md_file(f, url, shown, 0, shown);
    fputs(" |", f);
    for (int c = 1; c < COV_DIFF_CATEGORIES; c++)
      fprintf(f, " %" PRIu64 " |", d->counts[c]);
    int listed = 0;
    for (size_t k = 0; k < d->n; k++)
      if (d->lines[k].category == COV_UNC || d->lines[k].category == COV_LBC) {
        if (listed < 20) {
          char num[16];
          snprintf(num, sizeof(num), "%" PRIu32, d->lines[k].line);
          fputs(listed ? ", " : " ", f);
          md_file(f, url, shown, d->lines[k].line, num);
        }
        listed++;
      }
    if (listed > 20)
      fprintf(f, " and %d more", listed - 20);
    fputs(" |\n", f);
  }
  if (!any)
    fputs("\nNo changed lines with code.\n", f);
}

/* The `lowest` least covered files. 0, or -1 (out of memory). */
static int md_lowest(const struct cov_model *m, FILE *f, const char *url, size_t lowest,
                     int regions) {
  struct ranked *r = calloc(m->n_files, sizeof(*r));
  if (!r)
    return -1;
  size_t n = 0;
  for (size_t i = 0; i < m->n_files; i++) {
    struct cov_summary fs;
    cov_file_summary(m->files[i], &fs);
    if (!fs.lines_found)
      continue;
    r[n].file = i;
    r[n].pct = (double)fs.lines_hit / (double)fs.lines_found;
    r[n].missed = fs.lines_found - fs.lines_hit;
    n++;
  }
  qsort(r, n, sizeof(*r), by_coverage);
  if (n && r[0].pct < 1.0) {
    fprintf(f,
            "\n### Lowest-covered files\n\n| File | Lines | Functions | Branches |%s\n"
            "|---|---:|---:|---:|%s\n",
            regions ? " Regions |" : "", regions ? "---:|" : "");
    for (size_t k = 0; k < n && k < lowest && r[k].pct < 1.0; k++) {
      struct cov_summary fs;
      cov_file_summary(m->files[r[k].file], &fs);
      const char *shown = cov_display(m, m->files[r[k].file]->path);
      fputs("| ", f);
      md_file(f, url, shown, 0, shown);
      fputs(" |", f);
      md_cell(f, fs.lines_hit, fs.lines_found);
      md_cell(f, fs.funcs_hit, fs.funcs_found);
      md_cell(f, fs.branches_hit, fs.branches_found);
      if (regions)
        md_cell(f, fs.regions_hit, fs.regions_found);
      fputs("\n", f);
    }
  }
  free(r);
  return 0;
}

int markdown_write(const struct cov_model *m, FILE *f, const char *title, const char *url,
                   const struct cov_diff *diff, size_t lowest) {
  struct cov_summary s;
  cov_summary(m, &s);
  fputs("## ", f);
  md_text(f, title);
  md_totals(f, &s, diff);
  if (diff)
    md_changed(m, f, url, diff);
  if (lowest && m->n_files && md_lowest(m, f, url, lowest, s.regions_found > 0))
    return -1;
  return ferror(f) ? -1 : 0;
}
