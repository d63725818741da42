/* SPDX-License-Identifier: MIT */
/* Cobertura XML (coverage-04.dtd), written (see writers.h). */
#include "writers.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void xml_attr(FILE *f, const char *s) {
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
void cov_line_branches(const struct cov_file *c, size_t *k, uint32_t line, uint64_t *found,
                       uint64_t *hit) {
  *found = *hit = 0;
  while (*k < c->n_branches && c->branches[*k].line < line)
    (*k)++;
  for (size_t j = *k; j < c->n_branches && c->branches[j].line == line; j++) {
    (*found)++;
    *hit += c->branches[j].executed && c->branches[j].taken > 0;
  }
}

size_t cov_dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) : 0;
}

/* Lines and branches of the files [from, to). */
static void add_files(const struct cov_model *m, size_t from, size_t to, struct cov_summary *t) {
  memset(t, 0, sizeof(*t));
  for (size_t j = from; j < to; j++) {
    struct cov_summary s;
    cov_file_summary(m->files[j], &s);
    t->lines_found += s.lines_found;
    t->lines_hit += s.lines_hit;
    t->branches_found += s.branches_found;
    t->branches_hit += s.branches_hit;
  }
}

/* The files [from, to) of one directory: a package. */
static void package(const struct cov_model *m, FILE *f, size_t from, size_t to) {
  const char *first = cov_display(m, m->files[from]->path);
  size_t dl = cov_dir_len(first);
  struct cov_summary pkg;
  add_files(m, from, to, &pkg);
  char name[4096];
  snprintf(name, sizeof(name), "%.*s", (int)dl, first);
  for (char *p = name; *p; p++)
    if (*p == '/')
      *p = '.';
  fputs("    <package name=\"", f);
  xml_attr(f, name[0] == '.' ? name + 1 : name);
  fprintf(f, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0.0\">\n      <classes>\n",
          rate(pkg.lines_hit, pkg.lines_found), rate(pkg.branches_hit, pkg.branches_found));
  for (size_t i = from; i < to; i++) {
    const struct cov_file *c = m->files[i];
    const char *path = cov_display(m, c->path);
    struct cov_summary s;
    cov_file_summary(c, &s);
    const char *base = path + dl + (dl || path[0] == '/' ? 1 : 0);
    fputs("        <class name=\"", f);
    xml_attr(f, base);
    fputs("\" filename=\"", f);
    xml_attr(f, path[0] == '/' && !m->root ? path + 1 : path);
    fprintf(f, "\" line-rate=\"%.4f\" branch-rate=\"%.4f\" complexity=\"0.0\">\n",
            rate(s.lines_hit, s.lines_found), rate(s.branches_hit, s.branches_found));
    fputs("          <methods>\n", f);
    for (size_t k = 0; k < c->n_funcs; k++) {
      const struct cov_func *fn = &c->funcs[k];
      fputs("            <method name=\"", f);
      xml_attr(f, fn->name);
      fprintf(f,
              "\" signature=\"\" line-rate=\"%s\" branch-rate=\"1.0\" complexity=\"0.0\">\n"
              "              <lines>\n                <line number=\"%" PRIu32 "\" hits=\"%" PRIu64
              "\" branch=\"false\"/>\n              </lines>\n"
              "            </method>\n",
              fn->count ? "1.0" : "0.0", fn->line, fn->count);
    }
    fputs("          </methods>\n          <lines>\n", f);
    size_t bk = 0;
    for (size_t k = 0; k < c->n_lines; k++) {
      uint64_t bf, bh;
      cov_line_branches(c, &bk, c->lines[k].line, &bf, &bh);
      fprintf(f, "            <line number=\"%" PRIu32 "\" hits=\"%" PRIu64 "\"", c->lines[k].line,
              c->lines[k].count);
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

/* The end of the package that starts at file i (files are sorted by path). */
static size_t package_end(const struct cov_model *m, size_t i) {
  const char *first = cov_display(m, m->files[i]->path);
  size_t dl = cov_dir_len(first), j = i + 1;
  while (j < m->n_files) {
    const char *p = cov_display(m, m->files[j]->path);
    if (cov_dir_len(p) != dl || strncmp(p, first, dl) != 0)
      break;
    j++;
  }
  return j;
}

/* The document of packages [from, to) (all files: 0, n_files). */
static int document(const struct cov_model *m, FILE *f, size_t from, size_t to) {
  struct cov_summary all;
  add_files(m, from, to, &all);
  fprintf(
      f,
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n"
      "<coverage line-rate=\"%.4f\" branch-rate=\"%.4f\" lines-covered=\"%" PRIu64
      "\" lines-valid=\"%" PRIu64 "\" branches-covered=\"%" PRIu64 "\" branches-valid=\"%" PRIu64
      "\" complexity=\"0.0\" version=\"ucov\" timestamp=\"%lld\">\n"
      "  <sources>\n    <source>",
      rate(all.lines_hit, all.lines_found), rate(all.branches_hit, all.branches_found),
      all.lines_hit, all.lines_found, all.branches_hit, all.branches_found, (long long)time(NULL));
  xml_attr(f, m->root ? m->root : "/");
  fputs("</source>\n  </sources>\n  <packages>\n", f);
  for (size_t i = from; i < to;) {
    size_t j = package_end(m, i);
    package(m, f, i, j);
    i = j;
  }
  fputs("  </packages>\n</coverage>\n", f);
  return ferror(f) ? -1 : 0;
}

int cobertura_write(const struct cov_model *m, FILE *f) {
  return document(m, f, 0, m->n_files);
}

int cobertura_write_split(const struct cov_model *m, const char *dir) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return diag_at(DIAG_ERROR, dir, 0, "%s", strerror(errno)), -1;
  size_t n = 0;
  for (size_t i = 0; i < m->n_files; n++) {
    size_t j = package_end(m, i);
    /* coverage-N.xml, N the package's place: names a service globs for */
    char path[4096];
    snprintf(path, sizeof(path), "%s/coverage-%zu.xml", dir, n + 1);
    FILE *f = fopen(path, "w");
    if (!f)
      return diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno)), -1;
    int err = document(m, f, i, j);
    if (fclose(f) || err)
      return diag_at(DIAG_ERROR, path, 0, "write error"), -1;
    i = j;
  }
  return 0;
}
