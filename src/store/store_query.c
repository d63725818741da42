/* SPDX-License-Identifier: MIT */
/* Reading the store: reports, who ran a line, history, tests for files (see store.h, store_int.h).
 */
#define _GNU_SOURCE
#include "store.h"
#include "db.h"
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "readers/readers.h"
#include "base/md5.h"
#include "base/util.h"

/* ---- reading ---- */

/* The WHERE clause of a filter over count table alias `t` joined with
 * contexts c; its parameters from $first on. */
static int filter_sql(struct store *s, const struct store_filter *f, const char *t, int first,
                      char *out, size_t n, int64_t *build) {
  int k = first, w = snprintf(out, n, "WHERE true");
  *build = -1;
  if (f->build) {
    const char *const v[] = {f->build};
    int found = 0;
    char *end;
    long long num = strtoll(f->build, &end, 10);
    if (*f->build && !*end)
      found =
          store_q1(s, "SELECT id FROM builds WHERE id = $1", NULL, 0, (int64_t[]){num}, 1, build);
    if (found != 1)
      found =
          store_q1(s,
                   "SELECT id FROM builds WHERE revision = $1 OR revision || '/' || config = $1 OR "
                   "id IN (SELECT build_id FROM build_binaries WHERE module_id LIKE $1 || '%') "
                   "ORDER BY CASE WHEN (revision = $1 AND config = '') OR revision || '/' || "
                   "config = $1 THEN 0 WHEN revision = $1 THEN 1 ELSE 2 END, created DESC, id DESC "
                   "LIMIT 1",
                   v, 1, NULL, 0, build);
    if (found != 1)
      return SAY("no build '%s' in the store", f->build);
    w += snprintf(out + w, n - (size_t)w, " AND %s.build_id = $%d", t, k++);
  }
  if (f->n_tests > 12)
    return SAY("at most 12 --test names at once");
  if (f->n_tests) {
    w += snprintf(out + w, n - (size_t)w, " AND c.test IN (");
    for (int i = 0; i < f->n_tests; i++)
      w += snprintf(out + w, n - (size_t)w, i ? ", $%d" : "$%d", k++);
    w += snprintf(out + w, n - (size_t)w, ")");
  }
  if (f->since)
    w += snprintf(out + w, n - (size_t)w, " AND c.period >= $%d", k++);
  for (int i = 0; i < f->n_tests; i++) { /* a name that is not there: a typo, not 0% */
    const char *const v[] = {f->tests[i]};
    int there = store_q1(s, "SELECT 1 FROM contexts WHERE test = $1 LIMIT 1", v, 1, NULL, 0, NULL);
    if (there < 0)
      return store_fail(s, "tests");
    if (!there)
      return SAY("no test '%s' in the store", f->tests[i]);
  }
  return 0;
}

static void bind_filter(struct store *s, struct db_stmt *st, const struct store_filter *f,
                        int first, int64_t build) {
  const struct db_ops *o = s->db->ops;
  int k = first;
  if (f->build)
    o->bind_int(st, k++, build);
  for (int i = 0; i < f->n_tests; i++)
    o->bind_text(st, k++, f->tests[i]);
  if (f->since)
    o->bind_int(st, k++, f->since - f->since % 3600);
}

void store_bind_filter(struct store *s, struct db_stmt *st, const struct store_filter *f, int first,
                       int64_t build) {
  bind_filter(s, st, f, first, build);
}

struct chosen {
  int64_t id;
  struct cov_file *file;
  int arcs; /* every count of it in the selection came from stored units */
};

static int cmp_chosen(const void *a, const void *b) {
  int64_t x = ((const struct chosen *)a)->id, y = ((const struct chosen *)b)->id;
  return x < y ? -1 : x > y;
}

static struct cov_file *file_of(const struct chosen *c, size_t n, int64_t id) {
  struct chosen key = {.id = id};
  struct chosen *hit = bsearch(&key, c, n, sizeof(*c), cmp_chosen);
  return hit ? hit->file : NULL;
}

/* The WHERE clause of a filter over l and c, and the build it names. */
struct filtered {
  char where[512];
  int64_t build;
};

/* A statement of sql_fmt (printf's: one %s, the filter's WHERE, its
 * parameters from $1) prepared and bound, the schema made ready first (the
 * clause in *w); NULL, said (what: the failure's context). */
static struct db_stmt *prepare_filtered(struct store *s, const struct store_filter *f,
                                        const char *sql_fmt, const char *what, struct filtered *w) {
  static const struct store_filter all;
  if (!f)
    f = &all;
  char sql[2048];
  if (store_ready(s) || filter_sql(s, f, "l", 1, w->where, sizeof(w->where), &w->build))
    return NULL;
  snprintf(sql, sizeof(sql), sql_fmt, w->where);
  struct db_stmt *st = s->db->ops->prepare(s->db, sql);
  if (!st) {
    store_fail(s, what);
    return NULL;
  }
  bind_filter(s, st, f, 1, w->build);
  return st;
}

/* The files whose counts all came from gcov units: solved from the units'
 * summed counters (a file they do not give keeps its rows, which the caller
 * reads; the others' ch[i].file become NULL). 0 or -1 (said). */
static int read_unit_files(struct store *s, const char *where, const struct store_filter *f,
                           int64_t build, struct cov_model *m, struct chosen *ch, size_t n) {
  size_t n_take = 0;
  for (size_t i = 0; i < n; i++)
    n_take += ch[i].arcs;
  if (!n_take)
    return 0;
  struct cov_file **take = malloc(n_take * sizeof(*take));
  int *filled = malloc(n_take * sizeof(*filled));
  size_t k = 0;
  for (size_t i = 0; take && i < n; i++)
    if (ch[i].arcs)
      take[k++] = ch[i].file;
  int r = !take || !filled ? SAY("out of memory")
                           : units_read(s, where, f, build, m, take, filled, n_take);
  for (size_t i = 0; r == 0 && i < n; i++) {
    struct cov_file **hit =
        ch[i].arcs ? bsearch(&ch[i].file, take, n_take, sizeof(*take), store_cmp_ptr) : NULL;
    if (hit && filled[hit - take])
      ch[i].file = NULL; /* (its rows are not read) */
  }
  free(take);
  free(filled);
  return r ? -1 : 0;
}

/* Lines, functions, branches of the chosen contents (sorted), summed by the
 * engine, into their files. 0, or the engine's failure (negative). */
static int read_rows(struct store *s, const char *where, const struct store_filter *f,
                     int64_t build, const struct chosen *ch, size_t n) {
  const struct db_ops *o = s->db->ops;
  static const char *const q[] = {
      "SELECT l.source_id, l.line, SUMSAT(l.count) FROM line_counts l JOIN contexts c ON c.id = "
      "l.context_id %s GROUP BY l.source_id, l.line",
      "SELECT l.source_id, l.name, MIN(l.line), SUMSAT(l.count) FROM func_counts l JOIN contexts "
      "c ON c.id = l.context_id %s GROUP BY l.source_id, l.name",
      "SELECT l.source_id, l.line, l.block, l.branch, MAX(l.executed), SUMSAT(l.taken) FROM "
      "branch_counts l JOIN contexts c ON c.id = l.context_id %s GROUP BY l.source_id, l.line, "
      "l.block, l.branch"};
  char sql[2048];
  int r = 0;
  for (int k = 0; k < 3 && r == 0; k++) {
    struct db_stmt *st;
    snprintf(sql, sizeof(sql), q[k], where);
    if (!(st = o->prepare(s->db, sql)))
      return -1;
    bind_filter(s, st, f, 1, build);
    while ((r = o->step(st)) == 1) {
      struct cov_file *cf = file_of(ch, n, o->col_int(st, 0));
      if (!cf)
        continue;
      int64_t v;
      if (k == 0) {
        v = o->col_int(st, 2);
        cov_add_line(cf, (uint32_t)o->col_int(st, 1), v < 0 ? 0 : (uint64_t)v);
      } else if (k == 1) {
        v = o->col_int(st, 3);
        const char *name = o->col_text(st, 1);
        if (name)
          cov_add_func(cf, name, (uint32_t)o->col_int(st, 2), v < 0 ? 0 : (uint64_t)v);
      } else {
        v = o->col_int(st, 5);
        cov_add_branch(cf, (uint32_t)o->col_int(st, 1), (uint32_t)o->col_int(st, 2),
                       (uint32_t)o->col_int(st, 3), o->col_int(st, 4) != 0,
                       v < 0 ? 0 : (uint64_t)v);
      }
    }
    o->finalize(st);
  }
  return r;
}

int store_read(struct store *s, const struct store_filter *f, struct cov_model *m) {
  const struct db_ops *o = s->db->ops;
  /* one content per path: the newest (the highest id) */
  struct filtered fw;
  struct db_stmt *st = prepare_filtered(
      s, f,
      "SELECT s.path, MAX(s.id), COUNT(DISTINCT s.id), MIN(l.arcs) FROM line_counts l JOIN "
      "sources s ON s.id = l.source_id JOIN contexts c ON c.id = l.context_id %s GROUP BY "
      "s.path ORDER BY s.path",
      "read", &fw);
  if (!st)
    return -1;
  struct chosen *ch = NULL;
  size_t n = 0, cap = 0, older = 0;
  int r;
  while ((r = o->step(st)) == 1) {
    const char *path = o->col_text(st, 0);
    if (n == cap) {
      struct chosen *g = realloc(ch, (cap = cap ? 2 * cap : 64) * sizeof(*ch));
      if (!g) {
        r = -2;
        break;
      }
      ch = g;
    }
    struct cov_file *cf = path ? cov_file(m, path, NULL) : NULL;
    if (!cf)
      continue; /* left out by --include/--exclude */
    ch[n].id = o->col_int(st, 1);
    ch[n].file = cf;
    ch[n].arcs = o->col_int(st, 3) == 1;
    n++;
    older += (size_t)(o->col_int(st, 2) - 1);
  }
  o->finalize(st);
  if (r != 0) {
    free(ch);
    return r == -2 ? SAY("out of memory") : store_fail(s, "read");
  }
  if (read_unit_files(s, fw.where, f, fw.build, m, ch, n)) {
    free(ch);
    return -1;
  }
  qsort(ch, n, sizeof(*ch), cmp_chosen);
  r = read_rows(s, fw.where, f, fw.build, ch, n);
  free(ch);
  if (r != 0)
    return store_fail(s, "read");
  if (older)
    diag_at(DIAG_NOTE, NULL, 0,
            "%zu older contents of the files (other revisions) left out: each path's newest "
            "is reported",
            older);
  cov_finish(m);
  return 0;
}

/* LIKE's wildcards in s taken literally (with ESCAPE '\'). */
static char *like_suffix(const char *s) {
  char *o = malloc(2 * strlen(s) + 3), *w = o;
  if (!o)
    return NULL;
  *w++ = '%';
  *w++ = '/';
  for (; *s; s++) {
    if (*s == '%' || *s == '_' || *s == '\\')
      *w++ = '\\';
    *w++ = *s;
  }
  *w = 0;
  return o;
}

int store_who(struct store *s, const struct store_filter *f, const char *file, uint32_t line,
              void (*cb)(void *arg, const char *path, const char *test, uint64_t count,
                         int64_t first),
              void *arg) {
  const struct db_ops *o = s->db->ops;
  static const struct store_filter all;
  if (!f)
    f = &all;
  if (store_ready(s))
    return -1;
  char where[512], sql[1024];
  int64_t build;
  if (filter_sql(s, f, "l", 4, where, sizeof(where), &build))
    return -1;
  snprintf(sql, sizeof(sql),
           "SELECT s.path, c.test, SUMSAT(l.count), MIN(l.first_at) FROM line_counts l JOIN "
           "sources s ON s.id = "
           "l.source_id JOIN contexts c ON c.id = l.context_id %s AND (s.path = $1 OR s.path LIKE "
           "$2 ESCAPE '\\') AND l.line = $3 AND l.count > 0 GROUP BY s.path, c.test ORDER BY 3 "
           "DESC, 2, 1",
           where);
  char *like = like_suffix(file);
  struct db_stmt *st = like ? o->prepare(s->db, sql) : NULL;
  if (!st) {
    free(like);
    return like ? store_fail(s, "who") : SAY("out of memory");
  }
  o->bind_text(st, 1, file);
  o->bind_text(st, 2, like);
  o->bind_int(st, 3, line);
  bind_filter(s, st, f, 4, build);
  int r;
  while ((r = o->step(st)) == 1) {
    int64_t v = o->col_int(st, 2), first = o->col_int(st, 3); /* (NULL: 0) */
    cb(arg, o->col_text(st, 0), o->col_text(st, 1), v < 0 ? 0 : (uint64_t)v, first < 0 ? 0 : first);
  }
  o->finalize(st);
  free(like);
  return r ? store_fail(s, "who") : 0;
}

int store_paths(struct store *s, void (*cb)(void *arg, const char *path), void *arg) {
  const struct db_ops *o = s->db->ops;
  if (store_ready(s))
    return -1;
  struct db_stmt *st = o->prepare(s->db, "SELECT DISTINCT path FROM sources ORDER BY path");
  if (!st)
    return store_fail(s, "paths");
  int r;
  while ((r = o->step(st)) == 1)
    if (o->col_text(st, 0))
      cb(arg, o->col_text(st, 0));
  o->finalize(st);
  return r ? store_fail(s, "paths") : 0;
}

int store_line_tests(struct store *s, const struct store_filter *f,
                     void (*cb)(void *arg, const char *path, uint32_t line, const char *test,
                                uint64_t count),
                     void *arg) {
  const struct db_ops *o = s->db->ops;
  /* (who's grouping and order, every line at once) */
  struct filtered fw;
  struct db_stmt *st = prepare_filtered(
      s, f,
      "SELECT s.path, l.line, c.test, SUMSAT(l.count) FROM line_counts l JOIN sources s ON "
      "s.id = l.source_id JOIN contexts c ON c.id = l.context_id %s AND l.count > 0 GROUP BY "
      "s.path, l.line, c.test ORDER BY 1, 2, 4 DESC, 3",
      "tests per line", &fw);
  if (!st)
    return -1;
  int r;
  while ((r = o->step(st)) == 1) {
    int64_t line = o->col_int(st, 1), v = o->col_int(st, 3);
    if (line > 0 && line <= UINT32_MAX)
      cb(arg, o->col_text(st, 0), (uint32_t)line, o->col_text(st, 2), v < 0 ? 0 : (uint64_t)v);
  }
  o->finalize(st);
  return r ? store_fail(s, "tests per line") : 0;
}

static int by_time(const void *a, const void *b) {
  const struct store_reach_point *x = a, *y = b;
  return x->at < y->at ? -1 : x->at > y->at;
}

int store_reach(struct store *s, const char *test,
                void (*cb)(void *arg, const struct store_reach_point *p), void *arg) {
  /* each line, function and branch once (its key), at its least first_at */
  static const char *const sql[3] = {
      "SELECT f, COUNT(*) FROM (SELECT l.source_id, l.line, MIN(l.first_at) AS f FROM "
      "line_counts l JOIN contexts c ON c.id = l.context_id WHERE c.test = $1 AND "
      "l.first_at IS NOT NULL GROUP BY l.source_id, l.line) t GROUP BY f ORDER BY f",
      "SELECT f, COUNT(*) FROM (SELECT l.source_id, l.name, MIN(l.first_at) AS f FROM "
      "func_counts l JOIN contexts c ON c.id = l.context_id WHERE c.test = $1 AND "
      "l.first_at IS NOT NULL GROUP BY l.source_id, l.name) t GROUP BY f ORDER BY f",
      "SELECT f, COUNT(*) FROM (SELECT l.source_id, l.line, l.block, l.branch, MIN(l.first_at) "
      "AS f FROM branch_counts l JOIN contexts c ON c.id = l.context_id WHERE c.test = $1 AND "
      "l.first_at IS NOT NULL GROUP BY l.source_id, l.line, l.block, l.branch) t GROUP BY f "
      "ORDER BY f"};
  const struct db_ops *o = s->db->ops;
  const char *const v[] = {test};
  if (store_ready(s))
    return -1;
  int there = store_q1(s, "SELECT 1 FROM contexts WHERE test = $1 LIMIT 1", v, 1, NULL, 0, NULL);
  if (there <= 0)
    return there < 0 ? store_fail(s, "tests") : SAY("no test '%s' in the store", test);
  struct store_reach_point *pts = NULL;
  size_t n = 0, cap = 0;
  int r = 0;
  for (int k = 0; k < 3 && !r; k++) {
    struct db_stmt *st = o->prepare(s->db, sql[k]);
    if (!st) {
      r = -1;
      break;
    }
    o->bind_text(st, 1, test);
    while ((r = o->step(st)) == 1) {
      if (n == cap) {
        size_t c = cap ? 2 * cap : 64;
        struct store_reach_point *p = realloc(pts, c * sizeof(*p));
        if (!p) {
          r = -2;
          break;
        }
        pts = p, cap = c;
      }
      int64_t count = o->col_int(st, 1);
      pts[n] = (struct store_reach_point){.at = o->col_int(st, 0)};
      pts[n++].n[k] = count > 0 ? (uint64_t)count : 0;
    }
    o->finalize(st);
  }
  if (r) {
    free(pts);
    return r == -2 ? SAY("out of memory") : store_fail(s, "reach");
  }
  /* one point per time, the kinds summed (oldest first) */
  qsort(pts, n, sizeof(*pts), by_time);
  for (size_t i = 0; i < n;) {
    struct store_reach_point p = pts[i];
    for (i++; i < n && pts[i].at == p.at; i++)
      for (int k = 0; k < 3; k++)
        p.n[k] += pts[i].n[k];
    cb(arg, &p);
  }
  free(pts);
  return 0;
}

int store_history(struct store *s, const char *path,
                  void (*cb)(void *arg, int64_t build, const char *revision, int64_t created,
                             uint64_t found, uint64_t hit),
                  void *arg) {
  const struct db_ops *o = s->db->ops;
  if (store_ready(s))
    return -1;
  char sql[1024];
  snprintf(sql, sizeof(sql),
           "SELECT b.id, b.revision || CASE WHEN b.config <> '' THEN '/' || b.config ELSE '' "
           "END, b.created, COUNT(*), SUM(CASE WHEN t.c > 0 THEN 1 ELSE 0 END) FROM (SELECT "
           "l.build_id AS bid, l.source_id, l.line, SUMSAT(l.count) AS c FROM line_counts l JOIN "
           "sources s ON s.id = l.source_id %s GROUP BY l.build_id, l.source_id, l.line) t JOIN "
           "builds b ON b.id = t.bid GROUP BY b.id, b.revision, b.config, b.created ORDER BY "
           "b.created, b.id",
           path ? "WHERE s.path LIKE $1 ESCAPE '\\'" : "");
  struct db_stmt *st = o->prepare(s->db, sql);
  if (!st)
    return store_fail(s, "history");
  char *like = NULL;
  if (path) {
    like = like_suffix(path);
    if (!like) {
      o->finalize(st);
      return SAY("out of memory");
    }
    like[1] = '%'; /* "%%...": anywhere in the path */
    size_t l = strlen(like);
    char *g = realloc(like, l + 2);
    if (g) {
      like = g;
      strcat(like, "%");
    }
    o->bind_text(st, 1, like + 1);
  }
  int r;
  while ((r = o->step(st)) == 1)
    cb(arg, o->col_int(st, 0), o->col_text(st, 1), o->col_int(st, 2), (uint64_t)o->col_int(st, 3),
       (uint64_t)o->col_int(st, 4));
  o->finalize(st);
  free(like);
  return r ? store_fail(s, "history") : 0;
}

/* The ids of every content path had (its sources) into *ids. 0 or -1. */
static int path_sources(struct store *s, struct db_stmt *st, const char *path, int64_t **ids,
                        size_t *n_ids, size_t *cap) {
  const struct db_ops *o = s->db->ops;
  char *like = like_suffix(path);
  int r = like ? 0 : -1;
  *n_ids = 0;
  o->reset(st);
  o->bind_text(st, 1, path);
  o->bind_text(st, 2, like);
  while (like && (r = o->step(st)) == 1) {
    if (*n_ids == *cap) {
      int64_t *g = realloc(*ids, (*cap = *cap ? 2 * *cap : 16) * sizeof(**ids));
      if (!g) {
        r = -1;
        break;
      }
      *ids = g;
    }
    (*ids)[(*n_ids)++] = o->col_int(st, 0);
  }
  free(like);
  return r < 0 ? -1 : 0;
}

/* Each path's sources (every content it had), then its lines against them,
 * copied into stage_q. 0 or -1. */
static int stage_lines(struct store *s, const char *const *paths, const uint32_t *lines, size_t n) {
  const struct db_ops *o = s->db->ops;
  struct db_stmt *st =
      o->prepare(s->db, "SELECT id FROM sources WHERE path = $1 OR path LIKE $2 ESCAPE '\\'");
  int err = !st || o->copy_begin(s->db, "stage_q", 2) ? -1 : 0;
  const char *prev = NULL;
  int64_t *ids = NULL;
  size_t n_ids = 0, cap = 0;
  for (size_t i = 0; !err && i < n; i++) {
    /* (COPY is one statement: the ids are looked up between copies) */
    if ((!prev || strcmp(prev, paths[i])) &&
        (o->copy_end(s->db) || path_sources(s, st, paths[i], &ids, &n_ids, &cap) ||
         o->copy_begin(s->db, "stage_q", 2))) {
      err = -1;
      break;
    }
    prev = paths[i];
    for (size_t k = 0; k < n_ids; k++) {
      char a[24], b[24];
      snprintf(a, sizeof(a), "%" PRId64, ids[k]);
      snprintf(b, sizeof(b), "%" PRIu32, lines[i]);
      const char *row[] = {a, b};
      if (o->copy_row(s->db, row, 2))
        err = -1;
    }
  }
  if (!err && o->copy_end(s->db))
    err = -1;
  o->finalize(st);
  free(ids);
  return err;
}

int store_tests_for(struct store *s, const struct store_filter *f, const char *const *paths,
                    const uint32_t *lines, size_t n,
                    void (*cb)(void *arg, const char *test, uint64_t lines, uint64_t hits),
                    void *arg) {
  const struct db_ops *o = s->db->ops;
  if (store_ready(s))
    return -1;
  const char *tail = s->pg ? " ON COMMIT DELETE ROWS" : "";
  char sql[1024], where[512];
  snprintf(sql, sizeof(sql),
           "CREATE TEMP TABLE IF NOT EXISTS stage_q (source_id BIGINT, line BIGINT)%s", tail);
  if (o->exec(s->db, sql) || o->exec(s->db, "BEGIN") ||
      (!s->pg && o->exec(s->db, "DELETE FROM stage_q")))
    return store_fail(s, "tests-for");
  int err = stage_lines(s, paths, lines, n);
  int64_t build;
  if (!err && filter_sql(s, f, "l", 1, where, sizeof(where), &build)) {
    o->exec(s->db, "ROLLBACK");
    return -1;
  }
  if (!err) {
    snprintf(sql, sizeof(sql),
             "SELECT c.test, COUNT(DISTINCT l.source_id * 4294967296 + l.line), SUMSAT(l.count) "
             "FROM line_counts l JOIN (SELECT DISTINCT source_id, line FROM stage_q) q ON "
             "q.source_id = l.source_id AND q.line = l.line JOIN contexts c ON c.id = "
             "l.context_id %s AND l.count > 0 GROUP BY c.test ORDER BY 2 DESC, 1",
             where);
    struct db_stmt *st = o->prepare(s->db, sql);
    if (!st) {
      err = -1;
    } else {
      bind_filter(s, st, f, 1, build);
      int r;
      while ((r = o->step(st)) == 1)
        cb(arg, o->col_text(st, 0), (uint64_t)o->col_int(st, 1), (uint64_t)o->col_int(st, 2));
      err = r < 0 ? -1 : 0;
      o->finalize(st);
    }
  }
  if (err) {
    int r = store_fail(s, "tests-for");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  o->exec(s->db, "COMMIT");
  return 0;
}
