/* SPDX-License-Identifier: MIT */
/*
 * JaCoCo's XML report (report.dtd), as CI services read it (see writers.h).
 */
#define _GNU_SOURCE
#include "writers.h"
#include "base/util.h"

#include <inttypes.h>
#include <string.h>

struct counts {
  uint64_t lm, lc, bm, bc, fm, fc; /* lines, branches, methods: missed, covered */
};

static void count_file(const struct cov_file *c, struct counts *n) {
  struct cov_summary s;
  cov_file_summary(c, &s);
  n->lc += s.lines_hit;
  n->lm += s.lines_found - s.lines_hit;
  n->bc += s.branches_hit;
  n->bm += s.branches_found - s.branches_hit;
  n->fc += s.funcs_hit;
  n->fm += s.funcs_found - s.funcs_hit;
}

/* C has no bytecode: an INSTRUCTION is a line, as each line is one unit here. */
static void counters(FILE *f, const char *indent, const struct counts *n) {
  static const char *const type[] = {"INSTRUCTION", "LINE", "BRANCH", "METHOD"};
  const uint64_t v[][2] = {{n->lm, n->lc}, {n->lm, n->lc}, {n->bm, n->bc}, {n->fm, n->fc}};
  for (int t = 0; t < 4; t++)
    fprintf(f, "%s<counter type=\"%s\" missed=\"%" PRIu64 "\" covered=\"%" PRIu64 "\"/>\n", indent,
            type[t], v[t][0], v[t][1]);
}

int jacoco_write(const struct cov_model *m, FILE *f, const char *title) {
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!DOCTYPE report PUBLIC \"-//JACOCO//DTD Report 1.1//EN\" \"report.dtd\">\n"
        "<report name=\"",
        f);
  xml_attr(f, title);
  fputs("\">\n", f);
  struct counts all = {0};
  for (size_t i = 0; i < m->n_files;) {
    const char *first = cov_display(m, m->files[i]->path);
    size_t dl = cov_dir_len(first), j = i;
    struct counts pkg = {0};
    char name[4096];
    snprintf(name, sizeof(name), "%.*s", (int)dl, first);
    fputs("  <package name=\"", f);
    xml_attr(f, name[0] == '/' ? name + 1 : name);
    fputs("\">\n", f);
    for (; j < m->n_files; j++) {
      const struct cov_file *c = m->files[j];
      const char *p = cov_display(m, c->path);
      if (cov_dir_len(p) != dl || strncmp(p, first, dl))
        break;
      const char *base = p + dl + (p[dl] == '/');
      struct counts n = {0};
      count_file(c, &n);
      /* the functions as methods of a class named after the file */
      fputs("    <class name=\"", f);
      xml_attr(f, p[0] == '/' ? p + 1 : p);
      fputs("\" sourcefilename=\"", f);
      xml_attr(f, base);
      fputs("\">\n", f);
      for (size_t k = 0; k < c->n_funcs; k++) {
        fputs("      <method name=\"", f);
        xml_attr(f, c->funcs[k].name);
        fprintf(
            f,
            "\" desc=\"()\" line=\"%" PRIu32 "\">\n"
            "        <counter type=\"METHOD\" missed=\"%d\" covered=\"%d\"/>\n      </method>\n",
            c->funcs[k].line, c->funcs[k].count == 0, c->funcs[k].count > 0);
      }
      fprintf(f,
              "      <counter type=\"METHOD\" missed=\"%" PRIu64 "\" covered=\"%" PRIu64 "\"/>\n",
              n.fm, n.fc);
      fputs("    </class>\n    <sourcefile name=\"", f);
      xml_attr(f, base);
      fputs("\">\n", f);
      size_t bk = 0;
      for (size_t k = 0; k < c->n_lines; k++) {
        uint64_t bf, bh;
        cov_line_branches(c, &bk, c->lines[k].line, &bf, &bh);
        fprintf(f,
                "      <line nr=\"%" PRIu32 "\" mi=\"%d\" ci=\"%d\" mb=\"%" PRIu64
                "\" cb=\"%" PRIu64 "\"/>\n",
                c->lines[k].line, c->lines[k].count == 0, c->lines[k].count > 0, bf - bh, bh);
      }
      counters(f, "      ", &n);
      fputs("    </sourcefile>\n", f);
      pkg.lm += n.lm, pkg.lc += n.lc, pkg.bm += n.bm, pkg.bc += n.bc, pkg.fm += n.fm,
          pkg.fc += n.fc;
    }
    counters(f, "    ", &pkg);
    fputs("  </package>\n", f);
    all.lm += pkg.lm, all.lc += pkg.lc, all.bm += pkg.bm, all.bc += pkg.bc, all.fm += pkg.fm,
        all.fc += pkg.fc;
    i = j;
  }
  counters(f, "  ", &all);
  fputs("</report>\n", f);
  return ferror(f) ? -1 : 0;
}
