/* SPDX-License-Identifier: MIT */
/* lcov tracefiles, read (see readers.h; written: src/writers/lcov_write.c). */
#include "base/diag.h"
#include "readers.h"
#include "base/util.h"

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

/* A function of the record being read: FN/FNDA name it (lcov 1.x, 2.0),
 * FNL/FNA number it (lcov 2.2: FNL:<index>,<start>[,<end>] then
 * FNA:<index>,<count>,<name> for each of its names). */
struct fn {
  char *name; /* NULL: an FNL location not named yet */
  uint32_t index, line, end;
  uint64_t count;
  int has_line, numbered;
};

struct rec {
  struct fn *fns;
  size_t n, cap;
};

static struct fn *fn_named(struct rec *r, const char *name) {
  for (size_t i = 0; i < r->n; i++)
    if (!r->fns[i].numbered && strcmp(r->fns[i].name, name) == 0)
      return &r->fns[i];
  char *c = strdup(name);
  if (!c || UCOV_GROW(r->fns, r->cap, r->n, 16)) {
    free(c);
    return NULL;
  }
  r->fns[r->n] = (struct fn){.name = c};
  return &r->fns[r->n++];
}

/* The record's functions into the file; FNA whose index no FNL gave: -1 each. */
static int rec_flush(struct rec *r, struct cov_file *cur) {
  int bad = 0;
  for (size_t i = 0; i < r->n; i++) {
    struct fn *f = &r->fns[i];
    if (f->numbered && f->name) {
      const struct fn *loc = NULL;
      for (size_t k = 0; k < r->n && !loc; k++)
        if (r->fns[k].numbered && !r->fns[k].name && r->fns[k].index == f->index)
          loc = &r->fns[k];
      if (!loc)
        bad++;
      else if (cur)
        cov_add_func_end(cur, f->name, loc->line, loc->end, f->count);
    } else if (!f->numbered && cur) {
      cov_add_func_end(cur, f->name, f->line, f->end, f->count);
    }
    free(f->name);
  }
  r->n = 0;
  return bad;
}

static int parse_fn(struct rec *r, const char *p) {
  int da = p[2] == 'D';
  p += da ? 5 : 3;
  uint64_t a, b = 0;
  int ok = field_u64(&p, &a) == 0;
  /* lcov 2.0: FN:<start>,<end>,<name> */
  int has_end = ok && !da && *p >= '0' && *p <= '9' && strchr(p, ',');
  if (has_end)
    ok = field_u64(&p, &b) == 0 && b <= UINT32_MAX;
  if (!ok || !*p || (!da && a > UINT32_MAX))
    return -1;
  struct fn *f = fn_named(r, p);
  if (!f)
    return 0; /* out of memory: this function's record is left out */
  if (da) {
    f->count = cov_sum(f->count, a);
  } else if (!f->has_line) {
    f->line = (uint32_t)a;
    f->end = (uint32_t)b;
    f->has_line = 1;
  }
  return 0;
}

/* FNL:<index>,<start>[,<end>] or FNA:<index>,<count>,<name> */
static int parse_fnl_fna(struct rec *r, const char *p) {
  int fna = p[2] == 'A';
  uint32_t idx, line = 0, end = 0;
  uint64_t count = 0;
  p += 4;
  if (field_u32(&p, &idx))
    return -1;
  if (fna ? field_u64(&p, &count) || !*p
          : field_u32(&p, &line) || (*p && (field_u32(&p, &end) || *p)))
    return -1;
  if (UCOV_GROW(r->fns, r->cap, r->n, 16))
    return 0;
  char *name = fna ? strdup(p) : NULL;
  if (fna && !name)
    return 0;
  r->fns[r->n++] = (struct fn){name, idx, line, end, count, 1, 1};
  return 0;
}

/* BRDA:<line>,[e]<block>,<branch>,<taken or -> */
static int parse_brda(struct cov_file *cur, const char *p) {
  uint32_t ln, block, br;
  uint64_t taken = 0;
  p += 5;
  if (field_u32(&p, &ln))
    return -1;
  int exception = *p == 'e';
  p += exception;
  if (field_u32(&p, &block) || field_u32(&p, &br))
    return -1;
  int executed = strcmp(p, "-") != 0;
  if (executed && (field_u64(&p, &taken) || *p))
    return -1;
  cov_add_branch_e(cur, ln, block, br, executed, taken, exception);
  return 0;
}

/* MCDC:<line>,<group size>,<t|f>,<taken>,<index>,<expression> */
static int parse_mcdc(struct cov_file *cur, const char *p) {
  uint32_t ln, group, idx;
  uint64_t taken;
  p += 5;
  if (field_u32(&p, &ln) || field_u32(&p, &group) || (p[0] != 't' && p[0] != 'f') || p[1] != ',')
    return -1;
  int sense = p[0] == 't';
  p += 2;
  if (field_u64(&p, &taken) || field_u32(&p, &idx) || p[-1] != ',')
    return -1;
  cov_add_mcdc(cur, ln, group, sense, taken, idx, p);
  return 0;
}

static int starts(const char *p, const char *prefix) {
  return strncmp(p, prefix, strlen(prefix)) == 0;
}

int lcov_read(struct cov_model *m, const char *path) {
  return lcov_read_test(m, path, NULL);
}

/* (Long: one case per tracefile record kind.) */
int lcov_read_test(struct cov_model *m, const char *path, const char *only) {
  FILE *f = ucov_fopen_regular(path);
  if (!f) {
    diag_at(DIAG_ERROR, path, 0, "%s", ucov_strerror(errno));
    return -1;
  }
  char *line = NULL, *test = NULL;
  size_t cap = 0;
  ssize_t n;
  unsigned long lineno = 0;
  int bad = 0, skipping = 0;
  struct cov_file *cur = NULL;
  struct rec rec = {0};
  while ((n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = 0;
    const char *p = line;
    int ok = 1;
    if (starts(p, "TN:")) {
      free(test); /* the name of the records that follow */
      test = strdup(p + 3);
    } else if (starts(p, "SF:")) {
      cur = only && strcmp(only, test ? test : "") ? NULL : cov_file(m, p + 3, NULL);
      skipping = cur == NULL; /* another test's, filtered out (or no memory) */
      if (cur)
        cov_set_test(cur, test);
    } else if (strcmp(p, "end_of_record") == 0) {
      ok = rec_flush(&rec, cur) == 0;
      cur = NULL;
      skipping = 0;
    } else if (skipping || !*p || p[0] == '#') {
      /* nothing: a filtered file, a blank line, a comment */
    } else if (!cur && (starts(p, "DA:") || starts(p, "FN") || starts(p, "BRDA:") ||
                        starts(p, "MCDC:") || starts(p, "VER:"))) {
      ok = 0; /* a record outside SF: ... end_of_record */
    } else if (starts(p, "DA:")) {
      uint32_t ln;
      /* DA:<line>,<count>[,<checksum>] */
      const char *q = p + 3;
      ok = field_u32(&q, &ln) == 0;
      if (ok) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(q, &end, 10);
        ok = end != q && (*end == 0 || *end == ',') && *q != '-';
        if (ok)
          cov_add_line(cur, ln, errno == ERANGE ? UINT64_MAX : x);
      }
    } else if (starts(p, "FN:") || starts(p, "FNDA:")) {
      ok = parse_fn(&rec, p) == 0;
    } else if (starts(p, "FNL:") || starts(p, "FNA:")) {
      ok = parse_fnl_fna(&rec, p) == 0;
    } else if (starts(p, "BRDA:")) {
      ok = parse_brda(cur, p) == 0;
    } else if (starts(p, "MCDC:")) {
      ok = parse_mcdc(cur, p) == 0;
    } else if (starts(p, "VER:")) {
      cov_set_version(cur, p + 4);
    } else if (!starts(p, "FNF:") && !starts(p, "FNH:") && !starts(p, "BRF:") &&
               !starts(p, "BRH:") && !starts(p, "LF:") && !starts(p, "LH:") && !starts(p, "MCF:") &&
               !starts(p, "MCH:")) {
      ok = 0; /* (the summaries are recomputed) */
    }
    if (!ok) {
      if (bad < 5)
        diag_at(DIAG_ERROR, path, lineno, "not an lcov record: %.60s", line);
      bad++;
    }
  }
  bad += rec_flush(&rec, cur);
  if (cur) {
    diag_at(DIAG_WARNING, path, 0, "the last record has no end_of_record (read anyway)");
    bad++;
  }
  free(rec.fns);
  free(test);
  free(line);
  fclose(f);
  if (bad > 5)
    diag_at(DIAG_ERROR, path, 0, "%d records not read", bad);
  return bad;
}

int lcov_tests(const char *path, char ***names, size_t *n) {
  *names = NULL;
  *n = 0;
  FILE *f = ucov_fopen_regular(path);
  if (!f)
    return -1;
  char *line = NULL;
  size_t cap = 0, have = 0;
  ssize_t len;
  int err = 0;
  while (!err && (len = getline(&line, &cap, f)) >= 0) {
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    if (!starts(line, "TN:"))
      continue;
    size_t i = 0;
    while (i < *n && strcmp((*names)[i], line + 3))
      i++;
    if (i < *n)
      continue;
    if (UCOV_GROW(*names, have, *n, 8) || !((*names)[*n] = strdup(line + 3)))
      err = -1;
    else
      (*n)++;
  }
  free(line);
  fclose(f);
  return err;
}

/* The file's TN (lcov writes one record per test; summed records of several
 * tests get the first name, and a warning). */
