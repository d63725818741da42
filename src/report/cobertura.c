/* SPDX-License-Identifier: MIT */
/* Cobertura XML (coverage-04.dtd), written (see formats.h). */
#include "formats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void xml_attr(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", f);
      break;
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    default:
      if ((unsigned char)*s >= 0x20 || *s == '\t')
        putc(*s, f);
    }
  }
}

static double rate(uint64_t hit, uint64_t found) {
  return found ? (double)hit / (double)found : 1.0;
}

/* Branches of one line: found and taken. */
static void line_branches(const struct cov_file *c, size_t *k, uint32_t line, uint64_t *found,
                          uint64_t *hit) {
  *found = *hit = 0;
  while (*k < c->n_branches && c->branches[*k].line < line)
    (*k)++;
  for (size_t j = *k; j < c->n_branches && c->branches[j].line == line; j++) {
    (*found)++;
    *hit += c->branches[j].executed && c->branches[j].taken > 0;
  }
}

static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) : 0;
}

int cobertura_write(const struct cov_model *m, FILE *f) {
  struct cov_summary all;
  cov_summary(m, &all);
  fprintf(
      f,
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n"
      "<coverage line-rate=\"%.4f\" branch-rate=\"%.4f\" lines-covered=\"%" PRIu64
      "\" lines-valid=\"%" PRIu64 "\" branches-covered=\"%" PRIu64 "\" branches-valid=\"%" PRIu64
      "\" complexity=\"0.0\" version=\"ucov\" timestamp=\"%lld\">\n"
      "  <sources>\n    <source>/</source>\n  </sources>\n  <packages>\n",
      rate(all.lines_hit, all.lines_found), rate(all.branches_hit, all.branches_found),
      all.lines_hit, all.lines_found, all.branches_hit, all.branches_found, (long long)time(NULL));
  /* Files are sorted by path: a package is a run of files in one directory. */
  for (size_t i = 0; i < m->n_files;) {
    size_t dl = dir_len(m->files[i]->path), j = i;
    struct cov_summary pkg = {0};
    while (j < m->n_files && dir_len(m->files[j]->path) == dl &&
           strncmp(m->files[j]->path, m->files[i]->path, dl) == 0) {
      struct cov_summary s;
      cov_file_summary(m->files[j], &s);
      pkg.lines_found += s.lines_found;
      pkg.lines_hit += s.lines_hit;
      pkg.branches_found += s.branches_found;
      pkg.branches_hit += s.branches_hit;
      j++;
    }
    char name[4096];
    snprintf(name, sizeof(name), "%.*s", (int)dl, m->files[i]->path);
    for (char *p = name; *p; p++)
      if (*p == '/')
        *p = '.';
    fputs("    <package name=\"", f);
    xml_attr(f, name[0] == '.' ? name + 1 : name);
    fprintf(f, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0.0\">\n      <classes>\n",
            rate(pkg.lines_hit, pkg.lines_found), rate(pkg.branches_hit, pkg.branches_found));
    for (; i < j; i++) {
      const struct cov_file *c = m->files[i];
      struct cov_summary s;
      cov_file_summary(c, &s);
      const char *base = c->path + dl + (dl || c->path[0] == '/' ? 1 : 0);
      fputs("        <class name=\"", f);
      xml_attr(f, base);
      fputs("\" filename=\"", f);
      xml_attr(f, c->path[0] == '/' ? c->path + 1 : c->path);
      fprintf(f, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0.0\">\n",
              rate(s.lines_hit, s.lines_found), rate(s.branches_hit, s.branches_found));
      fputs("          <methods>\n", f);
      for (size_t k = 0; k < c->n_funcs; k++) {
        const struct cov_func *fn = &c->funcs[k];
        fputs("            <method name=\"", f);
        xml_attr(f, fn->name);
        fprintf(f,
                "\" signature=\"\" line-rate=\"%s\" branch-rate=\"1.0\" complexity=\"0.0\">\n"
                "              <lines>\n                <line number=\"%" PRIu32
                "\" hits=\"%" PRIu64 "\" branch=\"false\"/>\n              </lines>\n"
                "            </method>\n",
                fn->count ? "1.0" : "0.0", fn->line, fn->count);
      }
      fputs("          </methods>\n          <lines>\n", f);
      size_t bk = 0;
      for (size_t k = 0; k < c->n_lines; k++) {
        uint64_t bf, bh;
        line_branches(c, &bk, c->lines[k].line, &bf, &bh);
        fprintf(f, "            <line number=\"%" PRIu32 "\" hits=\"%" PRIu64 "\"",
                c->lines[k].line, c->lines[k].count);
        if (bf)
          fprintf(f, " branch=\"true\" condition-coverage=\"%d%% (%" PRIu64 "/%" PRIu64 ")\"/>\n",
                  (int)(100 * bh / bf), bh, bf);
        else
          fputs(" branch=\"false\"/>\n", f);
      }
      fputs("          </lines>\n        </class>\n", f);
    }
    fputs("      </classes>\n    </package>\n", f);
  }
  fputs("  </packages>\n</coverage>\n", f);
  return ferror(f) ? -1 : 0;
}
