/* SPDX-License-Identifier: MIT */
/* Differential coverage: each line of the model against a baseline (see diff.h). */
#include "diff.h"

#include <stdlib.h>
#include <string.h>

const char *const cov_category_name[COV_DIFF_CATEGORIES] = {"",    "GNC", "UNC", "GBC", "LBC",
                                                            "CBC", "UBC", "DCB", "DUB"};

/* The file of a finished model by path (binary search), or NULL. */
static const struct cov_file *find(const struct cov_model *m, const char *path) {
  size_t lo = 0, hi = m->n_files;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(m->files[mid]->path, path);
    if (!c)
      return m->files[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

int cov_diff_compute(struct cov_diff *d, const struct cov_model *cur,
                     const struct cov_model *base) {
  memset(d, 0, sizeof(*d));
  d->files = calloc(cur->n_files ? cur->n_files : 1, sizeof(*d->files));
  if (!d->files)
    return -1;
  d->n_files = cur->n_files;
  for (size_t i = 0; i < cur->n_files; i++) {
    const struct cov_file *c = cur->files[i], *b = find(base, c->path);
    struct cov_diff_file *df = &d->files[i];
    df->lines = malloc((c->n_lines ? c->n_lines : 1) * sizeof(*df->lines));
    if (!df->lines)
      return -1;
    size_t k = 0; /* walk both sorted line lists */
    for (size_t j = 0; j < c->n_lines; j++) {
      const struct cov_line *l = &c->lines[j];
      while (b && k < b->n_lines && b->lines[k].line < l->line) {
        df->counts[b->lines[k].count ? COV_DCB : COV_DUB]++;
        k++;
      }
      int cat;
      if (b && k < b->n_lines && b->lines[k].line == l->line) {
        int was = b->lines[k].count > 0, is = l->count > 0;
        cat = was && is ? COV_CBC : was ? COV_LBC : is ? COV_GBC : COV_UBC;
        k++;
      } else {
        cat = l->count ? COV_GNC : COV_UNC;
      }
      df->lines[df->n++] = (struct cov_diff_line){l->line, (uint8_t)cat};
      df->counts[cat]++;
    }
    for (; b && k < b->n_lines; k++)
      df->counts[b->lines[k].count ? COV_DCB : COV_DUB]++;
    for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
      d->totals[cat] += df->counts[cat];
  }
  /* Files of the baseline that are gone: all their lines deleted. */
  for (size_t i = 0; i < base->n_files; i++)
    if (!find(cur, base->files[i]->path))
      for (size_t k = 0; k < base->files[i]->n_lines; k++)
        d->totals[base->files[i]->lines[k].count ? COV_DCB : COV_DUB]++;
  return 0;
}

void cov_diff_free(struct cov_diff *d) {
  for (size_t i = 0; i < d->n_files; i++)
    free(d->files[i].lines);
  free(d->files);
  memset(d, 0, sizeof(*d));
}
