/* SPDX-License-Identifier: MIT */
/*
 * SonarQube's generic test coverage XML (sonar-generic-coverage.xsd; see
 * writers.h).
 */
#define _GNU_SOURCE
#include "writers.h"
#include "base/util.h"

#include <inttypes.h>

int sonarqube_write(const struct cov_model *m, FILE *f) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    fputs("  <file path=\"", f);
    xml_attr(f, cov_display(m, c->path));
    fputs("\">\n", f);
    size_t bk = 0;
    for (size_t k = 0; k < c->n_lines; k++) {
      if (!c->lines[k].line)
        continue; /* (lineNumber is a positive integer) */
      uint64_t bf, bh;
      cov_line_branches(c, &bk, c->lines[k].line, &bf, &bh);
      fprintf(f, "    <lineToCover lineNumber=\"%" PRIu32 "\" covered=\"%s\"", c->lines[k].line,
              c->lines[k].count ? "true" : "false");
      if (bf)
        fprintf(f, " branchesToCover=\"%" PRIu64 "\" coveredBranches=\"%" PRIu64 "\"", bf, bh);
      fputs("/>\n", f);
    }
    fputs("  </file>\n", f);
  }
  fputs("</coverage>\n", f);
  return ferror(f) ? -1 : 0;
}
