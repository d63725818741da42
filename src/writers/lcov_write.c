/* SPDX-License-Identifier: MIT */
/* lcov tracefiles written, 1.x and 2.x (writers.h). */
#include "writers.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const char *test_of(const struct cov_file *c) {
  if (c->mixed_tests)
    diag_at(DIAG_ERROR, c->path, 0, "records of several test names summed under TN:%s", c->test);
  return c->test ? c->test : "";
}

static void put_brda(FILE *f, const struct cov_branch *b, int v2) {
  fprintf(f, "BRDA:%" PRIu32 ",%s%" PRIu32 ",%" PRIu32 ",", b->line, v2 && b->exception ? "e" : "",
          b->block, b->branch);
  if (b->executed)
    fprintf(f, "%" PRIu64 "\n", b->taken);
  else
    fputs("-\n", f);
}

int lcov_write(const struct cov_model *m, FILE *f) {
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    struct cov_summary s;
    cov_file_summary(c, &s);
    fprintf(f, "TN:%s\nSF:%s\n", test_of(c), cov_display(m, c->path));
    for (size_t k = 0; k < c->n_funcs; k++)
      fprintf(f, "FN:%" PRIu32 ",%s\n", c->funcs[k].line, c->funcs[k].name);
    for (size_t k = 0; k < c->n_funcs; k++)
      fprintf(f, "FNDA:%" PRIu64 ",%s\n", c->funcs[k].count, c->funcs[k].name);
    fprintf(f, "FNF:%" PRIu64 "\nFNH:%" PRIu64 "\n", s.funcs_found, s.funcs_hit);
    for (size_t k = 0; k < c->n_branches; k++)
      put_brda(f, &c->branches[k], 0);
    fprintf(f, "BRF:%" PRIu64 "\nBRH:%" PRIu64 "\n", s.branches_found, s.branches_hit);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", c->lines[k].line, c->lines[k].count);
    fprintf(f, "LF:%" PRIu64 "\nLH:%" PRIu64 "\nend_of_record\n", s.lines_found, s.lines_hit);
  }
  return ferror(f) ? -1 : 0;
}

/* A location of functions: the model's functions [first, end). */
struct group {
  size_t first, end;
};

static const struct cov_func *group_funcs;

/* a < b as lcov 2 (Perl's cmp) orders numbers: as text */
static int text_lt(uint32_t a, uint32_t b) {
  char x[16], y[16];
  snprintf(x, sizeof(x), "%" PRIu32, a);
  snprintf(y, sizeof(y), "%" PRIu32, b);
  return strcmp(x, y) < 0;
}

/* lcov 2 writes locations ordered by start line compared as text, then name. */
static int cmp_group(const void *a, const void *b) {
  const struct cov_func *x = &group_funcs[((const struct group *)a)->first],
                        *y = &group_funcs[((const struct group *)b)->first];
  if (x->line != y->line)
    return text_lt(x->line, y->line) ? -1 : 1;
  return strcmp(x->name, y->name);
}

/*
 * lcov 2.x: VER after SF; functions as FNL (one per location: start and end
 * lines; the functions of one location are its aliases) each followed by
 * its FNA (one per name), FNF/FNH counting locations; BRDA with "e" before
 * an exception edge's block; MCDC records with MCF/MCH; a summary only for
 * what the file has, as lcov 2 writes it.
 */
int lcov_write2(const struct cov_model *m, FILE *f) {
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    struct cov_summary s;
    cov_file_summary(c, &s);
    fprintf(f, "TN:%s\nSF:%s\n", test_of(c), cov_display(m, c->path));
    if (c->version)
      fprintf(f, "VER:%s\n", c->version);
    /* locations: the model's functions are in line order, a location's names adjacent */
    struct group *g = malloc((c->n_funcs + 1) * sizeof(*g));
    size_t ng = 0;
    for (size_t k = 0; g && k < c->n_funcs; ng++) {
      g[ng].first = k;
      while (k < c->n_funcs && c->funcs[k].line == c->funcs[g[ng].first].line &&
             c->funcs[k].end_line == c->funcs[g[ng].first].end_line)
        k++;
      g[ng].end = k;
    }
    if (ng > 1) {
      group_funcs = c->funcs;
      qsort(g, ng, sizeof(*g), cmp_group);
    }
    uint64_t locs_hit = 0;
    for (size_t n = 0; n < ng; n++) {
      const struct cov_func *fn = &c->funcs[g[n].first];
      int hit = 0;
      fprintf(f, "FNL:%zu,%" PRIu32, n, fn->line);
      if (fn->end_line)
        fprintf(f, ",%" PRIu32, fn->end_line);
      fputc('\n', f);
      for (size_t k = g[n].first; k < g[n].end; k++) {
        fprintf(f, "FNA:%zu,%" PRIu64 ",%s\n", n, c->funcs[k].count, c->funcs[k].name);
        hit |= c->funcs[k].count > 0;
      }
      locs_hit += hit;
    }
    free(g);
    if (ng)
      fprintf(f, "FNF:%zu\nFNH:%" PRIu64 "\n", ng, locs_hit);
    /* a line's blocks in lcov 2's order: their numbers compared as text
     * (the model has them in numeric order; a block's branches adjacent) */
    for (size_t k = 0; k < c->n_branches;) {
      size_t e = k;
      while (e < c->n_branches && c->branches[e].line == c->branches[k].line)
        e++;
      size_t last = SIZE_MAX; /* the block written last, by its first branch */
      for (;;) {
        size_t best = SIZE_MAX;
        for (size_t j = k; j < e; j++)
          if ((j == k || c->branches[j].block != c->branches[j - 1].block) &&
              (last == SIZE_MAX || text_lt(c->branches[last].block, c->branches[j].block)) &&
              (best == SIZE_MAX || text_lt(c->branches[j].block, c->branches[best].block)))
            best = j;
        if (best == SIZE_MAX)
          break;
        for (size_t j = best; j < e && c->branches[j].block == c->branches[best].block; j++)
          put_brda(f, &c->branches[j], 1);
        last = best;
      }
      k = e;
    }
    if (s.branches_found)
      fprintf(f, "BRF:%" PRIu64 "\nBRH:%" PRIu64 "\n", s.branches_found, s.branches_hit);
    for (size_t k = 0; k < c->n_mcdc; k++) {
      const struct cov_mcdc *d = &c->mcdc[k];
      fprintf(f, "MCDC:%" PRIu32 ",%" PRIu32 ",%c,%" PRIu64 ",%" PRIu32 ",%s\n", d->line,
              d->group_size, d->sense ? 't' : 'f', d->taken, d->index, d->expr);
    }
    if (s.mcdc_found)
      fprintf(f, "MCF:%" PRIu64 "\nMCH:%" PRIu64 "\n", s.mcdc_found, s.mcdc_hit);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", c->lines[k].line, c->lines[k].count);
    fprintf(f, "LF:%" PRIu64 "\nLH:%" PRIu64 "\nend_of_record\n", s.lines_found, s.lines_hit);
  }
  return ferror(f) ? -1 : 0;
}
