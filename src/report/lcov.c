/* SPDX-License-Identifier: MIT */
/* lcov tracefiles, read and written (see formats.h). */
#include "formats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
