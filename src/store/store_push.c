/* SPDX-License-Identifier: MIT */
/* Pushing into the store: a model staged, then merged by the engine
 * with saturating upserts, in one transaction (see store.h, store_int.h). */
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
#include "writers/writers.h"
#include "base/md5.h"
#include "base/util.h"

/* ---- pushing ---- */

static int stage_tables(struct store *s) {
  if (s->staged)
    return 0;
  /* PostgreSQL empties them at commit; SQLite's are emptied by each push. */
  const char *tail = s->pg ? " ON COMMIT DELETE ROWS" : "";
  char sql[1024];
  snprintf(sql, sizeof(sql),
           "CREATE TEMP TABLE IF NOT EXISTS stage_src (idx BIGINT, path TEXT, hash TEXT,"
           " arcs INTEGER)%s;"
           "CREATE TEMP TABLE IF NOT EXISTS stage_lines (idx BIGINT, line BIGINT, count BIGINT)%s;"
           "CREATE TEMP TABLE IF NOT EXISTS stage_funcs (idx BIGINT, name TEXT, line BIGINT,"
           " count BIGINT)%s;"
           "CREATE TEMP TABLE IF NOT EXISTS stage_branches (idx BIGINT, line BIGINT, block BIGINT,"
           " branch BIGINT, executed INTEGER, taken BIGINT)%s;"
           "CREATE TEMP TABLE IF NOT EXISTS stage_arcs (unit BIGINT, ident BIGINT, idx BIGINT,"
           " count BIGINT)%s",
           tail, tail, tail, tail, tail);
  if (s->db->ops->exec(s->db, sql))
    return store_fail(s, "staging tables");
  s->staged = 1;
  return 0;
}

/* A source's content hash (MD5 of its bytes), "" when it is not here (not
 * there, not readable by us, not a file). -1 when reading it failed (an I/O
 * error): a push then fails rather than file the counts under another
 * content. */
static int source_hash(const char *path, const char *root, char out[33]) {
  char *full = NULL;
  if (path[0] != '/' && root && asprintf(&full, "%s/%s", root, path) < 0)
    full = NULL;
  int r = 0;
  if (md5_file(full ? full : path, out, NULL)) {
    out[0] = 0;
    r = errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == EPERM ||
                errno == ENAMETOOLONG || errno == ELOOP || errno == EINVAL
            ? 0
            : -1;
  }
  free(full);
  return r;
}

/* The push's key: MD5 of its identity, or of its metadata, its run stamp
 * and its model as ucov JSON. */
static ssize_t md5_write(void *cookie, const char *buf, size_t n) {
  md5_update(cookie, buf, n);
  return (ssize_t)n;
}

static int push_hash(const struct cov_model *m, const struct store_push *p, char out[33]) {
  struct md5 c;
  md5_init(&c);
  if (p->identity) { /* the same whatever the test, shard or host says */
    md5_update(&c, "identity", 9);
    md5_update(&c, p->identity, strlen(p->identity) + 1);
    md5_hex(&c, out);
    return 0;
  }
  /* (the last, the configuration, "" as in stores written before it: their keys stay) */
  const char *meta[] = {p->test, p->shard, p->host, p->revision, p->build_ids, p->config};
  for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++) {
    const char *v = meta[i] ? meta[i] : "";
    md5_update(&c, v, strlen(v) + 1);
  }
  if (p->run) { /* (absent in keys made before it: they stay) */
    md5_update(&c, "run", 4);
    md5_update(&c, p->run, strlen(p->run) + 1);
  }
  cookie_io_functions_t io = {.write = md5_write};
  FILE *f = fopencookie(&c, "w", io);
  if (!f)
    return -1;
  int err = ucov_json_write(m, f, NULL);
  if (fclose(f) || err)
    return -1;
  md5_hex(&c, out);
  return 0;
}

static int64_t clamp(uint64_t v) {
  return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Rows staged so far, for the progress callback (every 8192 rows). */
struct tally {
  const struct store_push *p;
  uint64_t done, total;
};

static void tick(struct tally *t) {
  if (++t->done % 8192 == 0 && t->p->progress)
    t->p->progress(t->p->progress_arg, t->done, t->total);
}

/* The sources staged: each file's index, path, content hash and whether its
 * lines derive from stored counters. 0 or -1 (said). */
static int stage_sources(struct store *s, const struct cov_model *m, const struct store_push *p) {
  const struct db_ops *o = s->db->ops;
  if (o->copy_begin(s->db, "stage_src", 4))
    return store_fail(s, "staging sources");
  for (size_t i = 0; i < m->n_files; i++) {
    char a[24], hash[33];
    if (source_hash(m->files[i]->path, p->root, hash)) {
      o->copy_end(s->db);
      diag_at(DIAG_ERROR, m->files[i]->path, 0, "%s: not pushed", strerror(errno));
      return -1;
    }
    snprintf(a, sizeof(a), "%zu", i);
    /* (its lines derive from stored counters: every count from a stored unit) */
    int arcs = p->units && m->files[i]->from_units && !m->files[i]->from_other;
    const char *row[] = {a, m->files[i]->path, hash, arcs ? "1" : "0"};
    if (o->copy_row(s->db, row, 4)) {
      o->copy_end(s->db);
      return store_fail(s, "staging sources");
    }
  }
  return o->copy_end(s->db) ? store_fail(s, "staging sources") : 0;
}

/* One staging table's rows: how many a file has; row k of file f (its
 * columns after the file's index) into row[1...], numbers printed in num. */
struct stage_kind {
  const char *table, *what;
  int columns;
  size_t (*count)(const struct cov_file *f);
  void (*fill)(const struct cov_file *f, size_t k, char num[4][24], const char **row);
};

static size_t n_lines(const struct cov_file *f) {
  return f->n_lines;
}
static void line_row(const struct cov_file *f, size_t k, char num[4][24], const char **row) {
  snprintf(num[0], 24, "%" PRIu32, f->lines[k].line);
  snprintf(num[1], 24, "%" PRId64, clamp(f->lines[k].count));
  row[1] = num[0], row[2] = num[1];
}
static size_t n_funcs(const struct cov_file *f) {
  return f->n_funcs;
}
static void func_row(const struct cov_file *f, size_t k, char num[4][24], const char **row) {
  snprintf(num[0], 24, "%" PRIu32, f->funcs[k].line);
  snprintf(num[1], 24, "%" PRId64, clamp(f->funcs[k].count));
  row[1] = f->funcs[k].name, row[2] = num[0], row[3] = num[1];
}
static size_t n_branches(const struct cov_file *f) {
  return f->n_branches;
}
static void branch_row(const struct cov_file *f, size_t k, char num[4][24], const char **row) {
  const struct cov_branch *x = &f->branches[k];
  snprintf(num[0], 24, "%" PRIu32, x->line);
  snprintf(num[1], 24, "%" PRIu32, x->block);
  snprintf(num[2], 24, "%" PRIu32, x->branch);
  snprintf(num[3], 24, "%" PRId64, clamp(x->taken));
  row[1] = num[0], row[2] = num[1], row[3] = num[2], row[4] = x->executed ? "1" : "0";
  row[5] = num[3];
}

static const struct stage_kind stage_kinds[] = {
    {"stage_lines", "staging lines", 3, n_lines, line_row},
    {"stage_funcs", "staging functions", 4, n_funcs, func_row},
    {"stage_branches", "staging branches", 6, n_branches, branch_row},
};

static int stage_rows(struct store *s, const struct cov_model *m, const struct stage_kind *sk,
                      struct tally *t) {
  const struct db_ops *o = s->db->ops;
  if (o->copy_begin(s->db, sk->table, sk->columns))
    return store_fail(s, sk->what);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *f = m->files[i];
    char file[24], num[4][24];
    snprintf(file, sizeof(file), "%zu", i);
    for (size_t k = 0; k < sk->count(f); k++) {
      const char *row[6] = {file};
      sk->fill(f, k, num, row);
      if (o->copy_row(s->db, row, sk->columns)) {
        o->copy_end(s->db);
        return store_fail(s, sk->what);
      }
      tick(t);
    }
  }
  return o->copy_end(s->db) ? store_fail(s, sk->what) : 0;
}

/* The model into the staging tables, in order, in the caller's transaction. */
static int stage_model(struct store *s, const struct cov_model *m, const struct store_push *p) {
  const struct db_ops *o = s->db->ops;
  struct tally t = {p, 0, 0};
  for (size_t i = 0; i < m->n_files; i++)
    t.total += m->files[i]->n_lines + m->files[i]->n_funcs + m->files[i]->n_branches;
  if (!s->pg && o->exec(s->db, "DELETE FROM stage_src; DELETE FROM stage_lines;"
                               "DELETE FROM stage_funcs; DELETE FROM stage_branches;"
                               "DELETE FROM stage_arcs"))
    return store_fail(s, "staging");
  if (stage_sources(s, m, p))
    return -1;
  for (size_t k = 0; k < sizeof(stage_kinds) / sizeof(stage_kinds[0]); k++)
    if (stage_rows(s, m, &stage_kinds[k], &t))
      return -1;
  if (p->progress)
    p->progress(p->progress_arg, t.total, t.total);
  return 0;
}

/* Staged rows into the count tables: sources first, then each table in key
 * order (concurrent pushers take row locks in one order: no deadlock). */
static int merge_staged(struct store *s, int64_t build, int64_t ctx, int64_t now) {
  char sql[1280], upd[256];
  const int64_t line_ids[] = {build, ctx, now};
  if (store_run(
          s,
          "INSERT INTO sources (path, hash) SELECT DISTINCT path, hash FROM stage_src WHERE true "
          "ORDER BY path, hash ON CONFLICT (path, hash) DO NOTHING",
          NULL, 0, NULL, 0))
    return store_fail(s, "sources");
  snprintf(upd, sizeof(upd), store_sat, "line_counts", "count");
  /* first_at: the earliest push that counted the line (as pushes come in any
   * order, the least) */
  snprintf(
      sql, sizeof(sql),
      "INSERT INTO line_counts (build_id, context_id, source_id, line, count, arcs, "
      "first_at) SELECT $1, $2, s.id, l.line, l.count, t.arcs, CASE WHEN l.count > 0 THEN CAST("
      "$3 AS BIGINT) END FROM stage_lines l JOIN stage_src t ON "
      "t.idx = l.idx JOIN sources s ON s.path = t.path AND s.hash = t.hash WHERE true "
      "ORDER BY s.id, l.line ON CONFLICT (build_id, context_id, source_id, line) DO UPDATE "
      "SET count = %s, arcs = CASE WHEN line_counts.arcs < excluded.arcs THEN "
      "line_counts.arcs ELSE excluded.arcs END, %s",
      upd, STORE_FIRST_AT);
  if (store_run(s, sql, NULL, 0, line_ids, 3))
    return store_fail(s, "line counts");
  snprintf(upd, sizeof(upd), store_sat, "func_counts", "count");
  snprintf(sql, sizeof(sql),
           "INSERT INTO func_counts (build_id, context_id, source_id, name, line, count, "
           "first_at) SELECT $1, $2, s.id, f.name, f.line, f.count, CASE WHEN f.count > 0 THEN "
           "CAST($3 AS BIGINT) END FROM stage_funcs f JOIN stage_src t ON "
           "t.idx = f.idx JOIN sources s ON s.path = t.path AND s.hash = t.hash WHERE true "
           "ORDER BY s.id, f.name ON CONFLICT (build_id, context_id, source_id, name) DO UPDATE "
           "SET count = %s, %s",
           upd, STORE_FIRST_AT_OF("func_counts"));
  if (store_run(s, sql, NULL, 0, line_ids, 3))
    return store_fail(s, "function counts");
  snprintf(upd, sizeof(upd), store_sat, "branch_counts", "taken");
  snprintf(sql, sizeof(sql),
           "INSERT INTO branch_counts (build_id, context_id, source_id, line, block, branch, "
           "executed, taken, first_at) SELECT $1, $2, s.id, b.line, b.block, b.branch, "
           "b.executed, b.taken, CASE WHEN b.taken > 0 THEN CAST($3 AS BIGINT) END "
           "FROM stage_branches b JOIN stage_src t ON t.idx = b.idx JOIN sources s ON s.path = "
           "t.path AND s.hash = t.hash WHERE true ORDER BY s.id, b.line, b.block, b.branch "
           "ON CONFLICT (build_id, context_id, source_id, line, block, branch) DO UPDATE "
           "SET executed = CASE WHEN branch_counts.executed > excluded.executed THEN "
           "branch_counts.executed ELSE excluded.executed END, taken = %s, %s",
           upd, STORE_FIRST_AT_OF("branch_counts"));
  if (store_run(s, sql, NULL, 0, line_ids, 3))
    return store_fail(s, "branch counts");
  return 0;
}

/* Every count of build `from` summed into build `to` (whose partitions
 * exist), its pushes too; build `from` is left with none (its PostgreSQL
 * partitions dropped). */
int store_move_counts(struct store *s, int64_t from, int64_t to) {
  static const struct {
    const char *table, *cols, *key, *upd;
  } t[] = {
      {.table = "line_counts",
       .cols = "context_id, source_id, line, count, first_at",
       .key = "context_id, source_id, line",
       .upd = "count = %s, " STORE_FIRST_AT},
      {.table = "func_counts",
       .cols = "context_id, source_id, name, line, count, first_at",
       .key = "context_id, source_id, name",
       .upd = "count = %s, " STORE_FIRST_AT_OF("func_counts")},
      {.table = "branch_counts",
       .cols = "context_id, source_id, line, block, branch, executed, taken, first_at",
       .key = "context_id, source_id, line, block, branch",
       .upd = "executed = CASE WHEN branch_counts.executed > excluded.executed THEN "
              "branch_counts.executed ELSE excluded.executed END, taken = %s, " STORE_FIRST_AT_OF(
                  "branch_counts")},
  };
  const int64_t ids[] = {to, from};
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    char sat_sql[256], upd[768], sql[1792];
    snprintf(sat_sql, sizeof(sat_sql), store_sat, t[i].table, i == 2 ? "taken" : "count");
    snprintf(upd, sizeof(upd), t[i].upd, sat_sql);
    snprintf(sql, sizeof(sql),
             "INSERT INTO %1$s (build_id, %2$s) SELECT $1, %2$s FROM %1$s WHERE build_id = $2 "
             "ORDER BY %3$s ON CONFLICT (build_id, %3$s) DO UPDATE SET %4$s",
             t[i].table, t[i].cols, t[i].key, upd);
    if (store_run(s, sql, NULL, 0, ids, 2))
      return -1;
    snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE build_id = $1", t[i].table);
    if (store_run(s, sql, NULL, 0, &from, 1))
      return -1;
    if (s->pg) {
      snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s_b%" PRId64, t[i].table, from);
      if (s->db->ops->exec(s->db, sql))
        return -1;
    }
  }
  return store_run(s, "UPDATE pushes SET build_id = $1 WHERE build_id = $2", NULL, 0, ids, 2);
}

/*
 * PostgreSQL: the count tables are partitioned by build, one partition per
 * build and table (line_counts_b42, ...), so a report of one build reads
 * only its own and a build is dropped whole (docs/store.md, retention).
 * Made before the push's transaction, once per build: creating a partition
 * locks its parent, so creators take turns under an advisory lock and a
 * partition that exists is never created again.
 */
static int build_partitions(struct store *s, int64_t build) {
  static const char *const tables[] = {"line_counts", "func_counts", "branch_counts", "unit_runs",
                                       "unit_counts"};
  const struct db_ops *o = s->db->ops;
  char sql[512];
  int64_t have = 0, parted = 0;
  /* the partitioned count tables (a store whose tables were made
   * unpartitioned is left so), and this build's partitions of them */
  snprintf(sql, sizeof(sql),
           "SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM pg_class p WHERE "
           "p.relname = c.relname || '_b%" PRId64 "' AND p.relispartition)) FROM pg_class c "
           "WHERE c.relname IN ('line_counts', 'func_counts', 'branch_counts', 'unit_runs', "
           "'unit_counts') AND c.relkind = 'p' AND c.relnamespace = 'public'::regnamespace",
           build);
  struct db_stmt *st = o->prepare(s->db, sql);
  int r = st ? o->step(st) : -1;
  if (r == 1) {
    parted = o->col_int(st, 0);
    have = o->col_int(st, 1);
  }
  if (st)
    o->finalize(st);
  if (r != 1)
    return store_fail(s, "partitions");
  if (have == parted)
    return 0;
  if (o->exec(s->db, "BEGIN; SELECT pg_advisory_xact_lock(7271002)"))
    return store_fail(s, "partitions");
  for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
    snprintf(sql, sizeof(sql),
             "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_class WHERE relname = '%1$s' AND relkind = "
             "'p' AND relnamespace = 'public'::regnamespace) THEN CREATE TABLE IF NOT EXISTS "
             "%1$s_b%2$" PRId64 " PARTITION OF %1$s FOR VALUES IN (%2$" PRId64 "); END IF; END $$",
             tables[i], build);
    if (o->exec(s->db, sql)) {
      store_fail(s, "partitions");
      o->exec(s->db, "ROLLBACK");
      return -1;
    }
  }
  if (o->exec(s->db, "COMMIT"))
    return store_fail(s, "partitions");
  return 0;
}

/* The build (revision, config) made if new: its id. 0 or -1. */
static int push_build(struct store *s, const char *const bt[2], int64_t now, int64_t *build) {
  int64_t when[] = {now};
  return store_run(s,
                   "INSERT INTO builds (revision, config, created) VALUES ($1, $2, $3) "
                   "ON CONFLICT (revision, config) DO NOTHING",
                   bt, 2, when, 1) ||
                 store_q1(s, "SELECT id FROM builds WHERE revision = $1 AND config = $2", bt, 2,
                          NULL, 0, build) != 1
             ? -1
             : 0;
}

/* The context (test, shard, host, the hour) made if new: its id. 0 or -1. */
static int push_context(struct store *s, const char *const ct[3], int64_t now, int64_t *ctx) {
  int64_t period[] = {now - now % 3600};
  return store_run(s,
                   "INSERT INTO contexts (test, shard, host, period) VALUES ($1, $2, $3, $4) "
                   "ON CONFLICT (test, shard, host, period) DO NOTHING",
                   ct, 3, period, 1) ||
                 store_q1(s,
                          "SELECT id FROM contexts WHERE test = $1 AND shard = $2 AND host = $3 "
                          "AND period = $4",
                          ct, 3, period, 1, ctx) != 1
             ? -1
             : 0;
}

/* The programs pushed for the build (a comma-separated list of build-ids,
 * each once). 0 or -1 (said). */
static int push_binaries(struct store *s, const char *list, int64_t build) {
  char *ids = strdup(list ? list : "");
  int bad = !ids;
  for (char *save = NULL, *id = ids ? strtok_r(ids, ",", &save) : NULL; !bad && id;
       id = strtok_r(NULL, ",", &save)) {
    const char *t[] = {id};
    bad = store_run(s,
                    "INSERT INTO build_binaries (build_id, module_id) VALUES ($2, $1) ON CONFLICT "
                    "(build_id, module_id) DO NOTHING",
                    t, 1, &build, 1);
  }
  free(ids);
  return bad ? store_fail(s, "build binaries") : 0;
}

int store_push(struct store *s, const struct cov_model *m, const struct store_push *p) {
  const struct db_ops *o = s->db->ops;
  if (store_ready(s) || stage_tables(s))
    return -1;
  char hash[33], host[256] = "";
  if (!p->host)
    gethostname(host, sizeof(host) - 1);
  struct store_push q = *p;
  q.host = p->host ? p->host : host;
  if (push_hash(m, &q, hash))
    return SAY("out of memory");
  int64_t now = p->when ? p->when : (int64_t)time(NULL);
  const char *test = q.test ? q.test : "", *shard = q.shard ? q.shard : "",
             *rev = q.revision ? q.revision : "", *cfg = q.config ? q.config : "";
  const char *bt[] = {rev, cfg}, *ct[] = {test, shard, q.host}, *ht[] = {hash};
  int64_t build = -1, ctx = -1;
  int r = -1;
  if (s->pg) { /* the build and its partitions first, committed on their own */
    if (push_build(s, bt, now, &build))
      return store_fail(s, "build");
    if (build_partitions(s, build))
      return -1;
  }
  if (o->exec(s->db, s->pg ? "BEGIN" : "BEGIN IMMEDIATE"))
    return store_fail(s, "begin");
  if (push_build(s, bt, now, &build) || push_context(s, ct, now, &ctx)) {
    store_fail(s, "build and context");
    goto out;
  }
  /* the push itself: its hash seen before means it is in already */
  int64_t pi[] = {build, ctx, now};
  int fresh =
      store_q1(s,
               "INSERT INTO pushes (hash, build_id, context_id, at) VALUES ($1, $2, $3, $4) "
               "ON CONFLICT (hash) DO NOTHING RETURNING at",
               ht, 1, pi, 3, NULL);
  if (fresh < 0) {
    store_fail(s, "push");
    goto out;
  }
  if (!fresh) {
    r = 1;
    goto out;
  }
  if (push_binaries(s, q.build_ids, build))
    goto out;
  if (stage_model(s, m, p) || merge_staged(s, build, ctx, now) ||
      (p->units && units_push(s, p->units, build, ctx)))
    goto out;
  if (o->exec(s->db, "COMMIT")) {
    store_fail(s, "commit");
    o->exec(s->db, "ROLLBACK");
    return -1;
  }
  return 0;
out:
  o->exec(s->db, "ROLLBACK");
  return r;
}
