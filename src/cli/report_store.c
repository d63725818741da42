/* SPDX-License-Identifier: MIT */
/*
 * What the store adds to an HTML page (ucov report --store URL --html): the
 * tests that ran each line, as ucov who gives them, and the coverage of
 * every build, oldest first (lines as ucov history counts them; functions
 * and branches from the build's own report); for a report of one test, its
 * reach over time (ucov history --test) of the report's totals.
 */
#define _GNU_SOURCE
#include "report_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* A file of the model and its index there. */
struct placed {
  const struct cov_file *f;
  size_t i;
};

struct gather {
  struct cov_model *m;
  struct html_extra *x;
  struct html_line_test *who;
  size_t cap_who;
  char **tests; /* names, in order of first sight */
  size_t cap_tests;
  uint32_t *slots; /* an open-addressing set of test indexes + 1 */
  size_t n_slots;
  struct placed *by_ptr; /* the model's files, by address, with their indexes */
  char *last_path;       /* the path looked up last, and its file (SIZE_MAX: none) */
  size_t last_file;
  int oom;
};

static int by_address(const void *a, const void *b) {
  const struct cov_file *x = ((const struct placed *)a)->f, *y = ((const struct placed *)b)->f;
  return x < y ? -1 : x > y;
}

/* The model's index of the file of path, or SIZE_MAX. */
static size_t file_index(struct gather *g, const char *path) {
  if (g->last_path && !strcmp(g->last_path, path))
    return g->last_file;
  free(g->last_path);
  g->last_path = strdup(path);
  g->last_file = SIZE_MAX;
  struct placed key = {.f = cov_file_there(g->m, path)};
  const struct placed *at =
      key.f ? bsearch(&key, g->by_ptr, g->m->n_files, sizeof(*g->by_ptr), by_address) : NULL;
  if (at)
    g->last_file = at->i;
  return g->last_file;
}

/* The index of test name (added if new), or -1 without memory. */
static long test_index(struct gather *g, const char *name) {
  if (g->x->n_tests * 2 >= g->n_slots) {
    size_t n = g->n_slots ? 2 * g->n_slots : 64;
    uint32_t *s = calloc(n, sizeof(*s));
    if (!s)
      return -1;
    for (size_t i = 0; i < g->x->n_tests; i++) {
      size_t h = ucov_hash_str(g->tests[i]) & (n - 1);
      while (s[h])
        h = (h + 1) & (n - 1);
      s[h] = (uint32_t)i + 1;
    }
    free(g->slots);
    g->slots = s;
    g->n_slots = n;
  }
  size_t h = ucov_hash_str(name) & (g->n_slots - 1);
  for (; g->slots[h]; h = (h + 1) & (g->n_slots - 1))
    if (!strcmp(g->tests[g->slots[h] - 1], name))
      return (long)g->slots[h] - 1;
  char *copy = strdup(name);
  if (!copy || UCOV_GROW(g->tests, g->cap_tests, g->x->n_tests, 64)) {
    free(copy);
    return -1;
  }
  g->tests[g->x->n_tests] = copy;
  g->slots[h] = (uint32_t)++g->x->n_tests;
  return (long)g->x->n_tests - 1;
}

static void line_test(void *arg, const char *path, uint32_t line, const char *test,
                      uint64_t count) {
  struct gather *g = arg;
  size_t file = path && !g->oom ? file_index(g, path) : SIZE_MAX;
  if (file == SIZE_MAX)
    return;
  long t = test_index(g, test ? test : "");
  if (t < 0 || UCOV_GROW(g->who, g->cap_who, g->x->n_who, 1024)) {
    g->oom = 1;
    return;
  }
  g->who[g->x->n_who++] = (struct html_line_test){file, line, (uint32_t)t, count};
}

/* A row and where the store gave it. */
struct keyed {
  struct html_line_test t;
  size_t seq;
};

/* By file, then line; within a line the store's order (most hits first). */
static int by_line(const void *a, const void *b) {
  const struct keyed *x = a, *y = b;
  if (x->t.file != y->t.file)
    return x->t.file < y->t.file ? -1 : 1;
  if (x->t.line != y->t.line)
    return x->t.line < y->t.line ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* who by file and line (the model's order of files need not be the
 * store's of paths). 0, or -1 without memory. */
static int sort_lines(struct html_line_test *who, size_t n) {
  struct keyed *k = malloc((n ? n : 1) * sizeof(*k));
  if (!k)
    return -1;
  for (size_t i = 0; i < n; i++)
    k[i] = (struct keyed){who[i], i};
  qsort(k, n, sizeof(*k), by_line);
  for (size_t i = 0; i < n; i++)
    who[i] = k[i].t;
  free(k);
  return 0;
}

struct builds {
  struct html_build *v;
  size_t n, cap;
  int oom;
};

static void one_build(void *arg, int64_t build, const char *revision, int64_t created,
                      uint64_t found, uint64_t hit) {
  struct builds *b = arg;
  char *rev = strdup(revision ? revision : "");
  if (!rev || UCOV_GROW(b->v, b->cap, b->n, 16)) {
    free(rev);
    b->oom = 1;
    return;
  }
  b->v[b->n++] = (struct html_build){
      .id = build, .created = created, .revision = rev, .found = {found}, .hit = {hit}};
}

/* A campaign's reach: each point its counts so far; found: the report's. */
struct reach {
  struct html_build *v;
  size_t n, cap;
  uint64_t sum[3], found[3];
  int oom;
};

static void one_reach(void *arg, const struct store_reach_point *p) {
  struct reach *r = arg;
  if (UCOV_GROW(r->v, r->cap, r->n, 16)) {
    r->oom = 1;
    return;
  }
  struct html_build *b = &r->v[r->n++];
  *b = (struct html_build){.id = (int64_t)r->n, .created = p->at};
  for (int k = 0; k < 3; k++) {
    r->sum[k] += p->n[k];
    b->hit[k] = r->sum[k];
    b->found[k] = r->found[k];
  }
}

/* Each build's functions and branches, from its own report. */
static int build_totals(struct store *s, struct builds *b) {
  for (size_t i = 0; i < b->n; i++) {
    char id[32];
    snprintf(id, sizeof(id), "%" PRId64, b->v[i].id);
    struct store_filter f = {.build = id};
    struct cov_model m;
    cov_init(&m);
    /* (its errors said; its notes are the report's, said once there) */
    struct diag_context errors = {.only_errors = 1};
    diag_context_begin(&errors);
    int r = store_read(s, &f, &m);
    diag_context_end(&errors);
    struct cov_summary sum;
    cov_finish(&m);
    cov_summary(&m, &sum);
    cov_free(&m);
    if (r)
      return -1;
    b->v[i].found[1] = sum.funcs_found;
    b->v[i].hit[1] = sum.funcs_hit;
    b->v[i].found[2] = sum.branches_found;
    b->v[i].hit[2] = sum.branches_hit;
  }
  return 0;
}

int report_store_html(const char *url, const struct store_filter *f, struct cov_model *m,
                      struct html_extra *x) {
  memset(x, 0, sizeof(*x));
  struct store *s = store_open_existing(url);
  if (!s)
    return -1;
  struct gather g = {.m = m, .x = x};
  g.by_ptr = malloc((m->n_files ? m->n_files : 1) * sizeof(*g.by_ptr));
  for (size_t i = 0; g.by_ptr && i < m->n_files; i++)
    g.by_ptr[i] = (struct placed){m->files[i], i};
  if (g.by_ptr)
    qsort(g.by_ptr, m->n_files, sizeof(*g.by_ptr), by_address);
  struct builds b = {0};
  int r = g.by_ptr ? store_line_tests(s, f, line_test, &g) : -1;
  if (!r && !g.oom && sort_lines(g.who, x->n_who))
    g.oom = 1;
  if (!r)
    r = store_history(s, NULL, one_build, &b);
  if (!r && !b.oom)
    r = build_totals(s, &b);
  /* one test (a campaign): its reach over time, of this report's totals */
  struct reach rc = {0};
  if (!r && f->n_tests == 1) {
    struct cov_summary sum;
    cov_summary(m, &sum);
    rc.found[0] = sum.lines_found, rc.found[1] = sum.funcs_found;
    rc.found[2] = sum.branches_found;
    r = store_reach(s, f->tests[0], one_reach, &rc);
    if (!r && !rc.oom && !(x->campaign = strdup(f->tests[0])))
      rc.oom = 1;
  }
  if (!r && (g.oom || b.oom || rc.oom)) {
    UCOV_ERR("out of memory");
    r = -1;
  }
  if (store_close(s))
    r = -1;
  free(g.by_ptr);
  free(g.slots);
  free(g.last_path);
  x->tests = (const char *const *)g.tests;
  x->who = g.who;
  x->builds = b.v;
  x->n_builds = b.n;
  x->reach = rc.v;
  x->n_reach = rc.n;
  return r;
}

void report_store_html_free(struct html_extra *x) {
  for (size_t i = 0; i < x->n_tests; i++)
    free((char *)x->tests[i]);
  free((void *)x->tests);
  free((void *)x->who);
  for (size_t i = 0; i < x->n_builds; i++)
    free((char *)x->builds[i].revision);
  free((void *)x->builds);
  free((void *)x->reach);
  free((char *)x->campaign);
  memset(x, 0, sizeof(*x));
}
