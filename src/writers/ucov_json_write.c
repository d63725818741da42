/* SPDX-License-Identifier: MIT */
/* ucov JSON written (writers.h; the format: docs/formats.md). */
#include "writers.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"

/* A file's differential categories: "diff": {CATEGORY: [lines], ...} (DCB
 * and DUB: the baseline's lines that are gone, by its numbers). */
static void put_diff(FILE *f, const struct cov_diff_file *df) {
  fputs(", \"diff\": {", f);
  int first = 1;
  for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++) {
    if (!df->counts[cat])
      continue;
    fprintf(f, "%s\"%s\": [", first ? "" : ", ", cov_category_name[cat]);
    first = 0;
    int any = 0;
    int gone = cat == COV_DCB || cat == COV_DUB;
    for (size_t k = 0; k < (gone ? df->n_gone : df->n); k++) {
      const struct cov_diff_line *l = gone ? &df->gone[k] : &df->lines[k];
      if (l->category == cat)
        fprintf(f, "%s%" PRIu32, any++ ? ", " : "", l->line);
    }
    fputs("]", f);
  }
  fputs("}", f);
}

int ucov_json_write(const struct cov_model *m, FILE *f, const struct cov_diff *diff) {
  fputs("{\"format\": \"ucov-coverage\", \"version\": 1, \"files\": [", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
    json_put_string(f, cov_display(m, c->path));
    fputs(", \"lines\": [", f);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "%s[%" PRIu32 ", %" PRIu64 "]", k ? ", " : "", c->lines[k].line,
              c->lines[k].count);
    fputs("], \"functions\": [", f);
    for (size_t k = 0; k < c->n_funcs; k++) {
      fputs(k ? ", [" : "[", f);
      json_put_string(f, c->funcs[k].name);
      fprintf(f, ", %" PRIu32 ", %" PRIu64, c->funcs[k].line, c->funcs[k].count);
      if (c->funcs[k].end_line)
        fprintf(f, ", %" PRIu32, c->funcs[k].end_line);
      fputs("]", f);
    }
    fputs("], \"branches\": [", f);
    for (size_t k = 0; k < c->n_branches; k++) {
      const struct cov_branch *b = &c->branches[k];
      fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", ", k ? ", " : "", b->line, b->block,
              b->branch);
      if (b->executed)
        fprintf(f, "%" PRIu64, b->taken);
      else
        fputs("null", f);
      fputs(b->exception ? ", true]" : "]", f);
    }
    fputs("]", f);
    if (c->n_mcdc) {
      fputs(", \"mcdc\": [", f);
      for (size_t k = 0; k < c->n_mcdc; k++) {
        const struct cov_mcdc *d = &c->mcdc[k];
        fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", \"%c\", %" PRIu64 ", %" PRIu32 ", ", k ? ", " : "",
                d->line, d->group_size, d->sense ? 't' : 'f', d->taken, d->index);
        json_put_string(f, d->expr);
        fputs("]", f);
      }
      fputs("]", f);
    }
    if (c->n_regions) {
      fputs(", \"regions\": [", f);
      for (size_t k = 0; k < c->n_regions; k++) {
        const struct cov_region *r = &c->regions[k];
        fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu64 "]",
                k ? ", " : "", r->line, r->col, r->inst, r->index, r->count);
      }
      fputs("]", f);
    }
    if (c->test && *c->test) {
      fputs(", \"test\": ", f);
      json_put_string(f, c->test);
    }
    if (c->version) {
      fputs(", \"version\": ", f);
      json_put_string(f, c->version);
    }
    if (c->n_excl_lines || c->excl_branches || c->excl_funcs) {
      fputs(", \"excluded\": {\"lines\": [", f);
      for (size_t k = 0; k < c->n_excl_lines; k++)
        fprintf(f, "%s%" PRIu32, k ? ", " : "", c->excl_lines[k]);
      fprintf(f, "], \"branches\": %" PRIu64 ", \"functions\": %" PRIu64 "}", c->excl_branches,
              c->excl_funcs);
    }
    if (diff && i < diff->n_files)
      put_diff(f, &diff->files[i]);
    fputs("}", f);
  }
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}
