/* SPDX-License-Identifier: MIT */
/*
 * gcovr's JSON summary: its keys, plus what was excluded (see writers.h).
 */
#define _GNU_SOURCE
#include "writers.h"
#include "base/json.h"
#include "base/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

/* gcovr's percentage: one decimal, 100.0 only when all are covered, no data -> dflt. */
static void percent(FILE *f, uint64_t hit, uint64_t found, const char *dflt) {
  if (!found)
    fputs(dflt, f);
  else if (hit == found)
    fputs("100.0", f);
  else {
    double p = 100.0 * (double)hit / (double)found;
    char s[32];
    snprintf(s, sizeof(s), "%.1f", p);
    fputs(strtod(s, NULL) > 99.9 ? "99.9" : s, f);
  }
}

static void summary_keys(FILE *f, const struct cov_summary *s, const char *dflt) {
  fprintf(f, "\"line_total\": %" PRIu64 ", \"line_covered\": %" PRIu64 ", \"line_percent\": ",
          s->lines_found, s->lines_hit);
  percent(f, s->lines_hit, s->lines_found, dflt);
  fprintf(f,
          ", \"function_total\": %" PRIu64 ", \"function_covered\": %" PRIu64
          ", \"function_percent\": ",
          s->funcs_found, s->funcs_hit);
  percent(f, s->funcs_hit, s->funcs_found, dflt);
  fprintf(f,
          ", \"branch_total\": %" PRIu64 ", \"branch_covered\": %" PRIu64 ", \"branch_percent\": ",
          s->branches_found, s->branches_hit);
  percent(f, s->branches_hit, s->branches_found, dflt);
  if (s->mcdc_found) {
    fprintf(f, ", \"mcdc_total\": %" PRIu64 ", \"mcdc_covered\": %" PRIu64 ", \"mcdc_percent\": ",
            s->mcdc_found, s->mcdc_hit);
    percent(f, s->mcdc_hit, s->mcdc_found, dflt);
  }
  if (s->regions_found) { /* (llvm-cov's code regions; gcovr has none) */
    fprintf(
        f, ", \"region_total\": %" PRIu64 ", \"region_covered\": %" PRIu64 ", \"region_percent\": ",
        s->regions_found, s->regions_hit);
    percent(f, s->regions_hit, s->regions_found, dflt);
  }
  fprintf(f,
          ", \"line_excluded\": %" PRIu64 ", \"function_excluded\": %" PRIu64
          ", \"branch_excluded\": %" PRIu64,
          s->lines_excluded, s->funcs_excluded, s->branches_excluded);
}

int json_summary_write(const struct cov_model *m, FILE *f, const struct cov_diff *d) {
  fputs("{\"root\": ", f);
  char *cwd = m->root ? NULL : getcwd(NULL, 0);
  json_put_string(f, m->root ? m->root : cwd ? cwd : ".");
  free(cwd);
  fputs(", \"gcovr/summary_format_version\": \"0.5\", \"files\": [", f);
  for (size_t i = 0; i < m->n_files; i++) {
    struct cov_summary s;
    cov_file_summary(m->files[i], &s);
    fputs(i ? ",\n  {\"filename\": " : "\n  {\"filename\": ", f);
    json_put_string(f, cov_display(m, m->files[i]->path));
    fputs(", ", f);
    summary_keys(f, &s, "null");
    fputs("}", f);
  }
  struct cov_summary all;
  cov_summary(m, &all);
  fputs("\n], ", f);
  summary_keys(f, &all, "0.0");
  if (d && d->have_patch) { /* (diff-cover's "total_percent_covered" of the changed lines) */
    fprintf(f,
            ", \"patch_covered\": %" PRIu64 ", \"patch_total\": %" PRIu64 ", \"patch_percent\": ",
            d->patch_hit, d->patch_found);
    if (d->patch_found)
      fprintf(f, "%.1f", 100.0 * (double)d->patch_hit / (double)d->patch_found);
    else
      fputs("null", f);
  }
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}
