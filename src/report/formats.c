/* SPDX-License-Identifier: MIT */
/* Report formats: lcov and ucov JSON in and out, gcov JSON in, Cobertura out (see formats.h). */
#include "formats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- lcov tracefiles ---- */

/* Parse an unsigned decimal field ending at ',' or the end; advances *p. */
static int field_u64(const char **p, uint64_t *v) {
  const char *s = *p;
  if (*s < '0' || *s > '9')
    return -1;
  errno = 0;
  char *end;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno == ERANGE)
    x = UINT64_MAX; /* a count too large for 64 bits: saturated */
  if (*end != ',' && *end != 0)
    return -1;
  *v = x;
  *p = *end == ',' ? end + 1 : end;
  return 0;
}

static int field_u32(const char **p, uint32_t *v) {
  uint64_t x;
  if (field_u64(p, &x) || x > UINT32_MAX)
    return -1;
  *v = (uint32_t)x;
  return 0;
}

int lcov_read(struct cov_model *m, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
    return -1;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  unsigned long lineno = 0;
  int bad = 0, skipping = 0;
  struct cov_file *cur = NULL;
  /* FN gives a function's line, FNDA its count: kept apart until the record ends. */
  struct fn {
    char *name;
    uint32_t line;
    uint64_t count;
    int has_line;
  } *fns = NULL;
  size_t n_fns = 0, cap_fns = 0;
  while ((n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = 0;
    const char *p = line;
    int ok = 1;
    if (strncmp(p, "SF:", 3) == 0) {
      cur = cov_file(m, p + 3, NULL);
      skipping = cur == NULL; /* filtered out (or no memory) */
    } else if (strcmp(p, "end_of_record") == 0) {
      for (size_t i = 0; i < n_fns; i++) {
        if (cur)
          cov_add_func(cur, fns[i].name, fns[i].line, fns[i].count);
        free(fns[i].name);
      }
      n_fns = 0;
      cur = NULL;
      skipping = 0;
    } else if (skipping || strncmp(p, "TN:", 3) == 0 || !*p) {
      /* nothing */
    } else if (!cur && (strncmp(p, "DA:", 3) == 0 || strncmp(p, "FN", 2) == 0 ||
                        strncmp(p, "BRDA:", 5) == 0)) {
      ok = 0; /* a record outside SF: ... end_of_record */
    } else if (strncmp(p, "DA:", 3) == 0) {
      uint32_t ln;
      uint64_t c;
      p += 3;
      /* DA:<line>,<count>[,<checksum>] */
      const char *q = p;
      ok = field_u32(&q, &ln) == 0;
      if (ok) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(q, &end, 10);
        ok = end != q && (*end == 0 || *end == ',') && *q != '-';
        c = errno == ERANGE ? UINT64_MAX : x;
        if (ok)
          cov_add_line(cur, ln, c);
      }
    } else if (strncmp(p, "FN:", 3) == 0 || strncmp(p, "FNDA:", 5) == 0) {
      int da = p[2] == 'D';
      p += da ? 5 : 3;
      uint64_t a, b = 0;
      ok = field_u64(&p, &a) == 0;
      /* lcov 2: FN:<start>,<end>,<name> */
      if (ok && !da && *p >= '0' && *p <= '9' && strchr(p, ','))
        ok = field_u64(&p, &b) == 0;
      ok = ok && *p && (da || a <= UINT32_MAX);
      if (ok) {
        size_t i = 0;
        while (i < n_fns && strcmp(fns[i].name, p) != 0)
          i++;
        if (i == n_fns) {
          if (UCOV_GROW(fns, cap_fns, n_fns, 16))
            continue; /* out of memory: this function's record is left out */
          fns[n_fns++] = (struct fn){strdup(p), 0, 0, 0};
        }
        if (da) {
          fns[i].count = cov_sum(fns[i].count, a);
        } else if (!fns[i].has_line) {
          fns[i].line = (uint32_t)a;
          fns[i].has_line = 1;
        }
      }
    } else if (strncmp(p, "BRDA:", 5) == 0) {
      uint32_t ln, block, br;
      uint64_t taken = 0;
      p += 5;
      ok = field_u32(&p, &ln) == 0 && field_u32(&p, &block) == 0 && field_u32(&p, &br) == 0;
      int executed = ok && strcmp(p, "-") != 0;
      if (ok && executed)
        ok = field_u64(&p, &taken) == 0 && !*p;
      if (ok)
        cov_add_branch(cur, ln, block, br, executed, taken);
    }
    /* FNF, FNH, BRF, BRH, LF, LH are recomputed; VER, FNL, FNA, ... skipped. */
    if (!ok) {
      if (bad < 5)
        fprintf(stderr, "ucov: %s:%lu: not an lcov record: %.60s\n", path, lineno, line);
      bad++;
    }
  }
  for (size_t i = 0; i < n_fns; i++) {
    if (cur)
      cov_add_func(cur, fns[i].name, fns[i].line, fns[i].count);
    free(fns[i].name);
  }
  if (cur) {
    fprintf(stderr, "ucov: %s: the last record has no end_of_record (read anyway)\n", path);
    bad++;
  }
  free(fns);
  free(line);
  fclose(f);
  if (bad > 5)
    fprintf(stderr, "ucov: %s: %d records not read\n", path, bad);
  return bad;
}

int lcov_write(const struct cov_model *m, FILE *f) {
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    struct cov_summary s;
    cov_file_summary(c, &s);
    fprintf(f, "TN:\nSF:%s\n", c->path);
    for (size_t k = 0; k < c->n_funcs; k++)
      fprintf(f, "FN:%" PRIu32 ",%s\n", c->funcs[k].line, c->funcs[k].name);
    for (size_t k = 0; k < c->n_funcs; k++)
      fprintf(f, "FNDA:%" PRIu64 ",%s\n", c->funcs[k].count, c->funcs[k].name);
    fprintf(f, "FNF:%" PRIu64 "\nFNH:%" PRIu64 "\n", s.funcs_found, s.funcs_hit);
    for (size_t k = 0; k < c->n_branches; k++) {
      const struct cov_branch *b = &c->branches[k];
      if (b->executed)
        fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n", b->line, b->block,
                b->branch, b->taken);
      else
        fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",-\n", b->line, b->block, b->branch);
    }
    fprintf(f, "BRF:%" PRIu64 "\nBRH:%" PRIu64 "\n", s.branches_found, s.branches_hit);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", c->lines[k].line, c->lines[k].count);
    fprintf(f, "LF:%" PRIu64 "\nLH:%" PRIu64 "\nend_of_record\n", s.lines_found, s.lines_hit);
  }
  return ferror(f) ? -1 : 0;
}

/* ---- ucov JSON ---- */

#define SAY(...) (snprintf(msg, len, __VA_ARGS__), -1)

static int number(const struct json *v, uint64_t max, uint64_t *out) {
  if (!v || v->type != JSON_NUMBER || !v->is_u64 || v->u64 > max)
    return -1;
  *out = v->u64;
  return 0;
}

int ucov_json_read(struct cov_model *m, const struct json *root, char *msg, size_t len) {
  const char *fmt = json_str(json_get(root, "format"));
  if (!fmt || strcmp(fmt, "ucov-coverage") != 0)
    return SAY("not ucov JSON (no \"format\": \"ucov-coverage\")");
  if (json_u64(json_get(root, "version")) != 1)
    return SAY("ucov JSON version %" PRIu64 " is not 1", json_u64(json_get(root, "version")));
  const struct json *files = json_get(root, "files");
  if (!files || files->type != JSON_ARRAY)
    return SAY("no \"files\" array");
  size_t idx = 0;
  for (const struct json *fj = files->first; fj; fj = fj->next, idx++) {
    const char *path = json_str(json_get(fj, "path"));
    if (!path)
      return SAY("files[%zu]: no \"path\"", idx);
    struct cov_file *f = cov_file(m, path, NULL);
    if (!f)
      continue;
    const struct json *a = json_get(fj, "lines");
    for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
      uint64_t ln, c;
      if (e->type != JSON_ARRAY || e->len != 2 || number(e->first, UINT32_MAX, &ln) ||
          number(e->first->next, UINT64_MAX, &c))
        return SAY("files[%zu] (%s): a line is not [line, count]", idx, path);
      cov_add_line(f, (uint32_t)ln, c);
    }
    a = json_get(fj, "functions");
    for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
      uint64_t ln, c;
      if (e->type != JSON_ARRAY || e->len != 3 || !json_str(e->first) ||
          number(e->first->next, UINT32_MAX, &ln) || number(e->first->next->next, UINT64_MAX, &c))
        return SAY("files[%zu] (%s): a function is not [name, line, count]", idx, path);
      cov_add_func(f, json_str(e->first), (uint32_t)ln, c);
    }
    a = json_get(fj, "branches");
    for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
      uint64_t ln, blk, br, taken = 0;
      const struct json *t = e->type == JSON_ARRAY && e->len == 4 ? e->first->next->next->next : 0;
      if (!t || number(e->first, UINT32_MAX, &ln) || number(e->first->next, UINT32_MAX, &blk) ||
          number(e->first->next->next, UINT32_MAX, &br) ||
          (t->type != JSON_NULL && number(t, UINT64_MAX, &taken)))
        return SAY("files[%zu] (%s): a branch is not [line, block, branch, taken or null]", idx,
                   path);
      cov_add_branch(f, (uint32_t)ln, (uint32_t)blk, (uint32_t)br, t->type != JSON_NULL, taken);
    }
  }
  return 0;
}

int ucov_json_write(const struct cov_model *m, FILE *f, const struct cov_diff *diff) {
  fputs("{\"format\": \"ucov-coverage\", \"version\": 1, \"files\": [", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
    json_put_string(f, c->path);
    fputs(", \"lines\": [", f);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "%s[%" PRIu32 ", %" PRIu64 "]", k ? ", " : "", c->lines[k].line,
              c->lines[k].count);
    fputs("], \"functions\": [", f);
    for (size_t k = 0; k < c->n_funcs; k++) {
      fputs(k ? ", [" : "[", f);
      json_put_string(f, c->funcs[k].name);
      fprintf(f, ", %" PRIu32 ", %" PRIu64 "]", c->funcs[k].line, c->funcs[k].count);
    }
    fputs("], \"branches\": [", f);
    for (size_t k = 0; k < c->n_branches; k++) {
      const struct cov_branch *b = &c->branches[k];
      fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", ", k ? ", " : "", b->line, b->block,
              b->branch);
      if (b->executed)
        fprintf(f, "%" PRIu64 "]", b->taken);
      else
        fputs("null]", f);
    }
    fputs("]", f);
    if (diff && i < diff->n_files) {
      fputs(", \"diff\": {", f);
      int first = 1;
      for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++) {
        if (!diff->files[i].counts[cat])
          continue;
        fprintf(f, "%s\"%s\": [", first ? "" : ", ", cov_category_name[cat]);
        first = 0;
        int any = 0;
        for (size_t k = 0; k < diff->files[i].n; k++)
          if (diff->files[i].lines[k].category == cat)
            fprintf(f, "%s%" PRIu32, any++ ? ", " : "", diff->files[i].lines[k].line);
        fputs("]", f);
      }
      fputs("}", f);
    }
    fputs("}", f);
  }
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}

/* ---- gcov --json-format ---- */

int gcov_json_read(struct cov_model *m, const struct json *root, char *msg, size_t len) {
  const struct json *files = json_get(root, "files");
  if (!files || files->type != JSON_ARRAY || !json_get(root, "gcc_version"))
    return SAY("not gcov JSON (no \"gcc_version\" and \"files\")");
  const char *cwd = json_str(json_get(root, "current_working_directory"));
  for (const struct json *fj = files->first; fj; fj = fj->next) {
    const char *path = json_str(json_get(fj, "file"));
    if (!path)
      return SAY("a file without \"file\"");
    struct cov_file *f = cov_file(m, path, cwd);
    if (!f)
      continue;
    const struct json *fns = json_get(fj, "functions");
    for (const struct json *fn = fns && fns->type == JSON_ARRAY ? fns->first : NULL; fn;
         fn = fn->next) {
      const char *name = json_str(json_get(fn, "name"));
      if (name)
        cov_add_func(f, name, (uint32_t)json_u64(json_get(fn, "start_line")),
                     json_u64(json_get(fn, "execution_count")));
    }
    const struct json *lines = json_get(fj, "lines");
    for (const struct json *l = lines && lines->type == JSON_ARRAY ? lines->first : NULL; l;
         l = l->next) {
      uint32_t ln = (uint32_t)json_u64(json_get(l, "line_number"));
      uint64_t count = json_u64(json_get(l, "count"));
      if (!ln)
        continue;
      cov_add_line(f, ln, count);
      const struct json *brs = json_get(l, "branches");
      uint32_t k = 0;
      for (const struct json *b = brs && brs->type == JSON_ARRAY ? brs->first : NULL; b;
           b = b->next) {
        const struct json *thr = json_get(b, "throw");
        if (thr && thr->type == JSON_BOOL && thr->boolean)
          continue; /* exception edges: lcov leaves them out too */
        cov_add_branch(f, ln, 0, k++, count > 0, json_u64(json_get(b, "count")));
      }
    }
  }
  return 0;
}

/* ---- Cobertura XML ---- */

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
