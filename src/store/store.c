/* SPDX-License-Identifier: MIT */
/*
 * The coverage store (see store.h): the schema, pushes staged and merged by
 * the engine with saturating upserts, reads summed by the engine.
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

#include "report/formats.h"
#include "report/md5.h"
#include "report/util.h"

#define SCHEMA_VERSION 3

static int db_fail(struct store *s, char *msg, size_t len, const char *what) {
  return SAY("%s: %s", what, s->db->ops->error(s->db));
}

int store_fail(struct store *s, char *msg, size_t len, const char *what) {
  return db_fail(s, msg, len, what);
}

struct store *store_open(const char *url, char *msg, size_t len) {
  if (!url || !*url)
    url = getenv("UCOV_STORE");
  if (!url || !*url)
    url = "ucov.db";
  struct store *s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(msg, len, "out of memory");
    return NULL;
  }
  if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
    s->pg = 1;
    s->db = db_open_pg(url, msg, len);
  } else {
    s->db = db_open_sqlite(!strncmp(url, "sqlite:", 7) ? url + 7 : url, msg, len);
  }
  if (!s->db) {
    free(s);
    return NULL;
  }
  snprintf(s->url, sizeof(s->url), "%s", url);
  return s;
}

struct store *store_open_existing(const char *url, char *msg, size_t len) {
  if (!url || !*url)
    url = getenv("UCOV_STORE");
  if (!url || !*url)
    url = "ucov.db";
  struct stat st;
  const char *file = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
  int pg = !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
  int err = pg ? 0 : stat(file, &st) ? errno : !S_ISREG(st.st_mode) ? EISDIR : 0;
  if (err) { /* (SQLite would make an empty file) */
    snprintf(msg, len, "%s: no coverage store there (%s; ucov push makes one)", file,
             err == EISDIR ? "not a file" : strerror(err));
    return NULL;
  }
  struct store *s = store_open(url, msg, len);
  if (s)
    s->reader = 1;
  return s;
}

void store_close(struct store *s) {
  if (!s)
    return;
  s->db->ops->close(s->db);
  free(s);
}

const char *store_engine(const struct store *s) {
  return s->db->ops->name;
}

/* ---- the schema ---- */

/* Version 3. Counts are keyed by build (a revision and a configuration,
 * whatever binaries are pushed for it: their build-ids are listed in
 * build_binaries), context and source (a path and its content's hash); the
 * count tables are clustered by that key. The gcov units read natively are
 * kept too (units.c): their notes once (gcov_notes, by content), each unit
 * with where its sources went (gcov_units), and per build and context the
 * units run (unit_runs) and their counters summed (unit_counts); a line row
 * whose counts all came from such units says so (arcs = 1), and a report
 * derives those files' lines from the summed counters. (Version 1 keyed
 * builds by the build-ids of each push's programs: migrate_v1 merges its
 * builds; version 2 had no units: its line rows have arcs = 0.) */
static const char schema_sqlite[] =
    "CREATE TABLE IF NOT EXISTS ucov_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS builds (id INTEGER PRIMARY KEY, revision TEXT NOT NULL,"
    " config TEXT NOT NULL, created BIGINT NOT NULL, UNIQUE (revision, config));"
    "CREATE TABLE IF NOT EXISTS build_binaries (build_id BIGINT NOT NULL, module_id TEXT NOT NULL,"
    " PRIMARY KEY (build_id, module_id)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL,"
    " hash TEXT NOT NULL, UNIQUE (path, hash));"
    "CREATE TABLE IF NOT EXISTS contexts (id INTEGER PRIMARY KEY, test TEXT NOT NULL,"
    " shard TEXT NOT NULL, host TEXT NOT NULL, period BIGINT NOT NULL,"
    " UNIQUE (test, shard, host, period));"
    "CREATE TABLE IF NOT EXISTS pushes (hash TEXT PRIMARY KEY, build_id BIGINT NOT NULL,"
    " context_id BIGINT NOT NULL, at BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS line_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " source_id BIGINT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,"
    " arcs INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (build_id, context_id, source_id, line)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS func_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " source_id BIGINT NOT NULL, name TEXT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,"
    " PRIMARY KEY (build_id, context_id, source_id, name)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS branch_counts (build_id BIGINT NOT NULL,"
    " context_id BIGINT NOT NULL, source_id BIGINT NOT NULL, line BIGINT NOT NULL,"
    " block BIGINT NOT NULL, branch BIGINT NOT NULL, executed INTEGER NOT NULL,"
    " taken BIGINT NOT NULL,"
    " PRIMARY KEY (build_id, context_id, source_id, line, block, branch)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS gcov_notes (hash TEXT PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS gcov_units (id INTEGER PRIMARY KEY, notes_hash TEXT NOT NULL,"
    " gcno TEXT NOT NULL, map_hash TEXT NOT NULL, map TEXT NOT NULL,"
    " UNIQUE (notes_hash, gcno, map_hash));"
    "CREATE TABLE IF NOT EXISTS unit_runs (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " unit_id BIGINT NOT NULL, had_data INTEGER NOT NULL,"
    " PRIMARY KEY (build_id, context_id, unit_id)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS unit_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " unit_id BIGINT NOT NULL, ident BIGINT NOT NULL, idx BIGINT NOT NULL, count BIGINT NOT NULL,"
    " PRIMARY KEY (build_id, context_id, unit_id, ident, idx)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS line_counts_source ON line_counts (source_id, line);";

static const char schema_pg[] =
    "CREATE TABLE IF NOT EXISTS ucov_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS builds (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " revision TEXT NOT NULL, config TEXT NOT NULL, created BIGINT NOT NULL,"
    " UNIQUE (revision, config));"
    "CREATE TABLE IF NOT EXISTS build_binaries (build_id BIGINT NOT NULL, module_id TEXT NOT NULL,"
    " PRIMARY KEY (build_id, module_id));"
    "CREATE TABLE IF NOT EXISTS sources (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " path TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (path, hash));"
    "CREATE TABLE IF NOT EXISTS contexts (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " test TEXT NOT NULL, shard TEXT NOT NULL, host TEXT NOT NULL, period BIGINT NOT NULL,"
    " UNIQUE (test, shard, host, period));"
    "CREATE TABLE IF NOT EXISTS pushes (hash TEXT PRIMARY KEY, build_id BIGINT NOT NULL,"
    " context_id BIGINT NOT NULL, at BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS line_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " source_id BIGINT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,"
    " arcs INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (build_id, context_id, source_id, line)) PARTITION BY LIST (build_id);"
    "CREATE TABLE IF NOT EXISTS func_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " source_id BIGINT NOT NULL, name TEXT NOT NULL, line BIGINT NOT NULL, count BIGINT NOT NULL,"
    " PRIMARY KEY (build_id, context_id, source_id, name)) PARTITION BY LIST (build_id);"
    "CREATE TABLE IF NOT EXISTS branch_counts (build_id BIGINT NOT NULL,"
    " context_id BIGINT NOT NULL, source_id BIGINT NOT NULL, line BIGINT NOT NULL,"
    " block BIGINT NOT NULL, branch BIGINT NOT NULL, executed INTEGER NOT NULL,"
    " taken BIGINT NOT NULL, PRIMARY KEY (build_id, context_id, source_id, line, block, branch))"
    " PARTITION BY LIST (build_id);"
    "CREATE TABLE IF NOT EXISTS gcov_notes (hash TEXT PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS gcov_units (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    " notes_hash TEXT NOT NULL, gcno TEXT NOT NULL, map_hash TEXT NOT NULL, map TEXT NOT NULL,"
    " UNIQUE (notes_hash, gcno, map_hash));"
    "CREATE TABLE IF NOT EXISTS unit_runs (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " unit_id BIGINT NOT NULL, had_data INTEGER NOT NULL,"
    " PRIMARY KEY (build_id, context_id, unit_id)) PARTITION BY LIST (build_id);"
    "CREATE TABLE IF NOT EXISTS unit_counts (build_id BIGINT NOT NULL, context_id BIGINT NOT NULL,"
    " unit_id BIGINT NOT NULL, ident BIGINT NOT NULL, idx BIGINT NOT NULL, count BIGINT NOT NULL,"
    " PRIMARY KEY (build_id, context_id, unit_id, ident, idx)) PARTITION BY LIST (build_id);"
    "CREATE INDEX IF NOT EXISTS line_counts_source ON line_counts (source_id, line);";

/* The schema's version: 0 none, -1 an error. */
static int64_t schema_version(struct store *s) {
  int64_t v = 0;
  struct db_stmt *st = s->db->ops->prepare(
      s->db, s->pg ? "SELECT to_regclass('ucov_meta') IS NOT NULL"
                   : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                     "'ucov_meta'");
  if (!st)
    return -1;
  int r = s->db->ops->step(st);
  int exists = r == 1 && s->db->ops->col_text(st, 0) &&
               (s->db->ops->col_text(st, 0)[0] == 't' || s->db->ops->col_int(st, 0) > 0);
  s->db->ops->finalize(st);
  if (r < 0)
    return -1;
  if (!exists)
    return 0;
  st = s->db->ops->prepare(s->db, "SELECT value FROM ucov_meta WHERE key = 'schema'");
  if (!st)
    return -1;
  if (s->db->ops->step(st) == 1 && s->db->ops->col_text(st, 0))
    v = strtoll(s->db->ops->col_text(st, 0), NULL, 10);
  s->db->ops->finalize(st);
  return v;
}

static int q1(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
              int ni, int64_t *out);
static int run(struct store *s, const char *sql, const char *const *text, int n,
               const int64_t *ints, int ni);
static int move_counts(struct store *s, int64_t from, int64_t to);

/*
 * Schema 1 to 2, in store_init's transaction: version 1 made a build of each
 * push's set of build-ids, so a project with a program per test had a build
 * per program. The builds of one revision become one (the oldest id keeps
 * it): their counts are summed into it, their pushes point at it, their
 * build-ids are its binaries. builds is then made again with its new key.
 */
static int migrate_v1(struct store *s) {
  const struct db_ops *o = s->db->ops;
  if (o->exec(s->db, s->pg ? "CREATE TABLE IF NOT EXISTS build_binaries (build_id BIGINT NOT "
                             "NULL, module_id TEXT NOT NULL, PRIMARY KEY (build_id, module_id))"
                           : "CREATE TABLE IF NOT EXISTS build_binaries (build_id BIGINT NOT "
                             "NULL, module_id TEXT NOT NULL, PRIMARY KEY (build_id, module_id)) "
                             "WITHOUT ROWID"))
    return -1;
  struct db_stmt *st = o->prepare(
      s->db, "SELECT b.id, b.build_ids, (SELECT MIN(k.id) FROM builds k WHERE k.revision = "
             "b.revision) FROM builds b ORDER BY b.id");
  if (!st)
    return -1;
  struct move {
    int64_t from, to;
    char *ids;
  } *mv = NULL;
  size_t n = 0, cap = 0;
  int r, err = 0;
  while ((r = o->step(st)) == 1) {
    if (UCOV_GROW(mv, cap, n, 16)) {
      err = -1;
      break;
    }
    const char *ids = o->col_text(st, 1);
    mv[n] = (struct move){o->col_int(st, 0), o->col_int(st, 2), strdup(ids ? ids : "")};
    err |= !mv[n++].ids;
  }
  o->finalize(st);
  for (size_t i = 0; !err && r == 0 && i < n; i++) {
    for (char *save = NULL, *id = strtok_r(mv[i].ids, ",", &save); !err && id;
         id = strtok_r(NULL, ",", &save)) {
      const char *t[] = {id};
      err = run(s,
                "INSERT INTO build_binaries (build_id, module_id) VALUES ($2, $1) ON CONFLICT "
                "(build_id, module_id) DO NOTHING",
                t, 1, &mv[i].to, 1);
    }
    if (!err && mv[i].from != mv[i].to)
      err = move_counts(s, mv[i].from, mv[i].to);
  }
  for (size_t i = 0; i < n; i++)
    free(mv[i].ids);
  free(mv);
  if (err || r != 0)
    return -1;
  /* builds again, keyed by (revision, config): the keepers' rows */
  static const char rebuild_sqlite[] =
      "CREATE TABLE builds_v2 (id INTEGER PRIMARY KEY, revision TEXT NOT NULL, config TEXT NOT "
      "NULL, created BIGINT NOT NULL, UNIQUE (revision, config));"
      "INSERT INTO builds_v2 (id, revision, config, created) SELECT b.id, b.revision, '', "
      "(SELECT MIN(k.created) FROM builds k WHERE k.revision = b.revision) FROM builds b WHERE "
      "b.id = (SELECT MIN(k.id) FROM builds k WHERE k.revision = b.revision);"
      "DROP TABLE builds; ALTER TABLE builds_v2 RENAME TO builds";
  static const char rebuild_pg[] =
      "CREATE TABLE builds_v2 (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, revision "
      "TEXT NOT NULL, config TEXT NOT NULL, created BIGINT NOT NULL, UNIQUE (revision, config));"
      "INSERT INTO builds_v2 (id, revision, config, created) SELECT b.id, b.revision, '', "
      "(SELECT MIN(k.created) FROM builds k WHERE k.revision = b.revision) FROM builds b WHERE "
      "b.id = (SELECT MIN(k.id) FROM builds k WHERE k.revision = b.revision);"
      "DROP TABLE builds; ALTER TABLE builds_v2 RENAME TO builds;"
      "ALTER TABLE builds RENAME CONSTRAINT builds_v2_pkey TO builds_pkey;"
      "ALTER TABLE builds RENAME CONSTRAINT builds_v2_revision_config_key TO "
      "builds_revision_config_key;"
      "SELECT setval(pg_get_serial_sequence('builds', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 "
      "FROM builds), false)";
  return o->exec(s->db, s->pg ? rebuild_pg : rebuild_sqlite) ? -1 : 0;
}

int store_init(struct store *s, char *msg, size_t len) {
  const struct db_ops *o = s->db->ops;
  /* one creator at a time: SQLite's write lock, PostgreSQL's advisory lock */
  if (o->exec(s->db, s->pg ? "BEGIN; SELECT pg_advisory_xact_lock(7271001)" : "BEGIN IMMEDIATE"))
    return db_fail(s, msg, len, "begin");
  int64_t v = schema_version(s);
  if (v < 0) {
    int r = db_fail(s, msg, len, "schema");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  if (v > SCHEMA_VERSION) {
    o->exec(s->db, "ROLLBACK");
    return SAY("the store's schema is version %" PRId64 ", newer than this ucov's (%d)", v,
               SCHEMA_VERSION);
  }
  if (v == 1 && migrate_v1(s)) {
    int r = db_fail(s, msg, len, "migrating the store from schema 1");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  /* 2 to 3: the units' tables (made below), and the line rows' arcs flag:
   * none of their counts came with stored counters */
  if ((v == 1 || v == 2) &&
      o->exec(s->db, "ALTER TABLE line_counts ADD COLUMN arcs INTEGER NOT NULL DEFAULT 0")) {
    int r = db_fail(s, msg, len, "migrating the store from schema 2");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  if (o->exec(s->db, s->pg ? schema_pg : schema_sqlite) ||
      o->exec(s->db, "INSERT INTO ucov_meta VALUES ('schema', '3') ON CONFLICT (key) DO "
                     "UPDATE SET value = excluded.value")) {
    int r = db_fail(s, msg, len, "schema");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  if (o->exec(s->db, "COMMIT"))
    return db_fail(s, msg, len, "commit");
  return 0;
}

/* A store made by `ucov store init` (or made now: pushes need no setup). */
static int ready(struct store *s, char *msg, size_t len) {
  int64_t v = schema_version(s);
  if (v == SCHEMA_VERSION)
    return 0;
  if (v < 0)
    return db_fail(s, msg, len, "schema");
  if (v == 0 && s->reader)
    return SAY("%s: no coverage store there (nothing pushed; ucov push makes one)", s->url);
  if (v > SCHEMA_VERSION)
    return SAY("the store's schema is version %" PRId64 ", newer than this ucov's (%d)", v,
               SCHEMA_VERSION);
  return store_init(s, msg, len);
}

/* ---- pushing ---- */

static int stage_tables(struct store *s, char *msg, size_t len) {
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
    return db_fail(s, msg, len, "staging tables");
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

/* The push's key: MD5 of its identity, or of its metadata and of its model
 * as ucov JSON. */
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

/* One statement with text then integer parameters: -1 an error, 0 no row,
 * 1 a row (its first column in *out, when out is given). */
static int q1(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
              int ni, int64_t *out) {
  const struct db_ops *o = s->db->ops;
  struct db_stmt *st = o->prepare(s->db, sql);
  if (!st)
    return -1;
  for (int i = 0; i < n; i++)
    o->bind_text(st, i + 1, text[i]);
  for (int i = 0; i < ni; i++)
    o->bind_int(st, n + i + 1, ints[i]);
  int r = o->step(st);
  if (r == 1 && out)
    *out = o->col_int(st, 0);
  o->finalize(st);
  return r;
}

int store_q1(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
             int ni, int64_t *out) {
  return q1(s, sql, text, n, ints, ni, out);
}

/* For a statement's effect: 0 or -1. */
static int run(struct store *s, const char *sql, const char *const *text, int n,
               const int64_t *ints, int ni) {
  return q1(s, sql, text, n, ints, ni, NULL) < 0 ? -1 : 0;
}

const char store_sat[] = "CASE WHEN %1$s.%2$s > 9223372036854775807 - excluded.%2$s THEN "
                         "9223372036854775807 ELSE %1$s.%2$s + excluded.%2$s END";

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

static int stage_model(struct store *s, const struct cov_model *m, const struct store_push *p,
                       char *msg, size_t len) {
  const struct db_ops *o = s->db->ops;
  const char *root = p->root;
  struct tally t = {p, 0, 0};
  for (size_t i = 0; i < m->n_files; i++)
    t.total += m->files[i]->n_lines + m->files[i]->n_funcs + m->files[i]->n_branches;
  char a[24], b[24], c[24], d[24], e[24];
  if (!s->pg && o->exec(s->db, "DELETE FROM stage_src; DELETE FROM stage_lines;"
                               "DELETE FROM stage_funcs; DELETE FROM stage_branches;"
                               "DELETE FROM stage_arcs"))
    return db_fail(s, msg, len, "staging");
  /* sources */
  if (o->copy_begin(s->db, "stage_src", 4))
    return db_fail(s, msg, len, "staging sources");
  for (size_t i = 0; i < m->n_files; i++) {
    char hash[33];
    if (source_hash(m->files[i]->path, root, hash)) {
      o->copy_end(s->db);
      snprintf(msg, len, "%s: %s: not pushed", m->files[i]->path, strerror(errno));
      return -1;
    }
    snprintf(a, sizeof(a), "%zu", i);
    /* (its lines derive from stored counters: every count from a stored unit) */
    int arcs = p->units && m->files[i]->from_units && !m->files[i]->from_other;
    const char *row[] = {a, m->files[i]->path, hash, arcs ? "1" : "0"};
    if (o->copy_row(s->db, row, 4)) {
      o->copy_end(s->db);
      return db_fail(s, msg, len, "staging sources");
    }
  }
  if (o->copy_end(s->db))
    return db_fail(s, msg, len, "staging sources");
  /* lines */
  if (o->copy_begin(s->db, "stage_lines", 3))
    return db_fail(s, msg, len, "staging lines");
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *f = m->files[i];
    snprintf(a, sizeof(a), "%zu", i);
    for (size_t k = 0; k < f->n_lines; k++) {
      snprintf(b, sizeof(b), "%" PRIu32, f->lines[k].line);
      snprintf(c, sizeof(c), "%" PRId64, clamp(f->lines[k].count));
      const char *row[] = {a, b, c};
      if (o->copy_row(s->db, row, 3)) {
        o->copy_end(s->db);
        return db_fail(s, msg, len, "staging lines");
      }
      tick(&t);
    }
  }
  if (o->copy_end(s->db))
    return db_fail(s, msg, len, "staging lines");
  /* functions */
  if (o->copy_begin(s->db, "stage_funcs", 4))
    return db_fail(s, msg, len, "staging functions");
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *f = m->files[i];
    snprintf(a, sizeof(a), "%zu", i);
    for (size_t k = 0; k < f->n_funcs; k++) {
      snprintf(b, sizeof(b), "%" PRIu32, f->funcs[k].line);
      snprintf(c, sizeof(c), "%" PRId64, clamp(f->funcs[k].count));
      const char *row[] = {a, f->funcs[k].name, b, c};
      if (o->copy_row(s->db, row, 4)) {
        o->copy_end(s->db);
        return db_fail(s, msg, len, "staging functions");
      }
      tick(&t);
    }
  }
  if (o->copy_end(s->db))
    return db_fail(s, msg, len, "staging functions");
  /* branches */
  if (o->copy_begin(s->db, "stage_branches", 6))
    return db_fail(s, msg, len, "staging branches");
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *f = m->files[i];
    snprintf(a, sizeof(a), "%zu", i);
    for (size_t k = 0; k < f->n_branches; k++) {
      const struct cov_branch *x = &f->branches[k];
      snprintf(b, sizeof(b), "%" PRIu32, x->line);
      snprintf(c, sizeof(c), "%" PRIu32, x->block);
      snprintf(d, sizeof(d), "%" PRIu32, x->branch);
      snprintf(e, sizeof(e), "%" PRId64, clamp(x->taken));
      const char *row[] = {a, b, c, d, x->executed ? "1" : "0", e};
      if (o->copy_row(s->db, row, 6)) {
        o->copy_end(s->db);
        return db_fail(s, msg, len, "staging branches");
      }
      tick(&t);
    }
  }
  if (o->copy_end(s->db))
    return db_fail(s, msg, len, "staging branches");
  if (p->progress)
    p->progress(p->progress_arg, t.total, t.total);
  return 0;
}

/* Staged rows into the count tables: sources first, then each table in key
 * order (concurrent pushers take row locks in one order: no deadlock). */
static int merge_staged(struct store *s, int64_t build, int64_t ctx, char *msg, size_t len) {
  char sql[1024], upd[256];
  const int64_t ids[] = {build, ctx};
  if (run(s,
          "INSERT INTO sources (path, hash) SELECT DISTINCT path, hash FROM stage_src WHERE true "
          "ORDER BY path, hash ON CONFLICT (path, hash) DO NOTHING",
          NULL, 0, NULL, 0))
    return db_fail(s, msg, len, "sources");
  snprintf(upd, sizeof(upd), store_sat, "line_counts", "count");
  snprintf(sql, sizeof(sql),
           "INSERT INTO line_counts (build_id, context_id, source_id, line, count, arcs) "
           "SELECT $1, $2, s.id, l.line, l.count, t.arcs FROM stage_lines l JOIN stage_src t ON "
           "t.idx = l.idx JOIN sources s ON s.path = t.path AND s.hash = t.hash WHERE true "
           "ORDER BY s.id, l.line ON CONFLICT (build_id, context_id, source_id, line) DO UPDATE "
           "SET count = %s, arcs = CASE WHEN line_counts.arcs < excluded.arcs THEN "
           "line_counts.arcs ELSE excluded.arcs END",
           upd);
  if (run(s, sql, NULL, 0, ids, 2))
    return db_fail(s, msg, len, "line counts");
  snprintf(upd, sizeof(upd), store_sat, "func_counts", "count");
  snprintf(sql, sizeof(sql),
           "INSERT INTO func_counts (build_id, context_id, source_id, name, line, count) "
           "SELECT $1, $2, s.id, f.name, f.line, f.count FROM stage_funcs f JOIN stage_src t ON "
           "t.idx = f.idx JOIN sources s ON s.path = t.path AND s.hash = t.hash WHERE true "
           "ORDER BY s.id, f.name ON CONFLICT (build_id, context_id, source_id, name) DO UPDATE "
           "SET count = %s",
           upd);
  if (run(s, sql, NULL, 0, ids, 2))
    return db_fail(s, msg, len, "function counts");
  snprintf(upd, sizeof(upd), store_sat, "branch_counts", "taken");
  snprintf(sql, sizeof(sql),
           "INSERT INTO branch_counts (build_id, context_id, source_id, line, block, branch, "
           "executed, taken) SELECT $1, $2, s.id, b.line, b.block, b.branch, b.executed, b.taken "
           "FROM stage_branches b JOIN stage_src t ON t.idx = b.idx JOIN sources s ON s.path = "
           "t.path AND s.hash = t.hash WHERE true ORDER BY s.id, b.line, b.block, b.branch "
           "ON CONFLICT (build_id, context_id, source_id, line, block, branch) DO UPDATE "
           "SET executed = CASE WHEN branch_counts.executed > excluded.executed THEN "
           "branch_counts.executed ELSE excluded.executed END, taken = %s",
           upd);
  if (run(s, sql, NULL, 0, ids, 2))
    return db_fail(s, msg, len, "branch counts");
  return 0;
}

/* Every count of build `from` summed into build `to` (whose partitions
 * exist), its pushes too; build `from` is left with none (its PostgreSQL
 * partitions dropped). */
static int move_counts(struct store *s, int64_t from, int64_t to) {
  static const struct {
    const char *table, *cols, *key, *upd;
  } t[] = {
      {"line_counts", "context_id, source_id, line, count", "context_id, source_id, line",
       "count = %s"},
      {"func_counts", "context_id, source_id, name, line, count", "context_id, source_id, name",
       "count = %s"},
      {"branch_counts", "context_id, source_id, line, block, branch, executed, taken",
       "context_id, source_id, line, block, branch",
       "executed = CASE WHEN branch_counts.executed > excluded.executed THEN "
       "branch_counts.executed ELSE excluded.executed END, taken = %s"},
  };
  const int64_t ids[] = {to, from};
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
    char sat_sql[256], upd[512], sql[1536];
    snprintf(sat_sql, sizeof(sat_sql), store_sat, t[i].table, i == 2 ? "taken" : "count");
    snprintf(upd, sizeof(upd), t[i].upd, sat_sql);
    snprintf(sql, sizeof(sql),
             "INSERT INTO %1$s (build_id, %2$s) SELECT $1, %2$s FROM %1$s WHERE build_id = $2 "
             "ORDER BY %3$s ON CONFLICT (build_id, %3$s) DO UPDATE SET %4$s",
             t[i].table, t[i].cols, t[i].key, upd);
    if (run(s, sql, NULL, 0, ids, 2))
      return -1;
    snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE build_id = $1", t[i].table);
    if (run(s, sql, NULL, 0, &from, 1))
      return -1;
    if (s->pg) {
      snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s_b%" PRId64, t[i].table, from);
      if (s->db->ops->exec(s->db, sql))
        return -1;
    }
  }
  return run(s, "UPDATE pushes SET build_id = $1 WHERE build_id = $2", NULL, 0, ids, 2);
}

/*
 * PostgreSQL: the count tables are partitioned by build, one partition per
 * build and table (line_counts_b42, ...), so a report of one build reads
 * only its own and a build is dropped whole (docs/store.md, retention).
 * Made before the push's transaction, once per build: creating a partition
 * locks its parent, so creators take turns under an advisory lock and a
 * partition that exists is never created again.
 */
static int build_partitions(struct store *s, int64_t build, char *msg, size_t len) {
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
    return db_fail(s, msg, len, "partitions");
  if (have == parted)
    return 0;
  if (o->exec(s->db, "BEGIN; SELECT pg_advisory_xact_lock(7271002)"))
    return db_fail(s, msg, len, "partitions");
  for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
    snprintf(sql, sizeof(sql),
             "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_class WHERE relname = '%1$s' AND relkind = "
             "'p' AND relnamespace = 'public'::regnamespace) THEN CREATE TABLE IF NOT EXISTS "
             "%1$s_b%2$" PRId64 " PARTITION OF %1$s FOR VALUES IN (%2$" PRId64 "); END IF; END $$",
             tables[i], build);
    if (o->exec(s->db, sql)) {
      db_fail(s, msg, len, "partitions");
      o->exec(s->db, "ROLLBACK");
      return -1;
    }
  }
  if (o->exec(s->db, "COMMIT"))
    return db_fail(s, msg, len, "partitions");
  return 0;
}

int store_push(struct store *s, const struct cov_model *m, const struct store_push *p, char *msg,
               size_t len) {
  const struct db_ops *o = s->db->ops;
  if (ready(s, msg, len) || stage_tables(s, msg, len))
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
  int64_t when[] = {now}, period[] = {now - now % 3600};
  int64_t build = -1, ctx = -1;
  int r = -1;
  if (s->pg) { /* the build and its partitions first, committed on their own */
    if (run(s,
            "INSERT INTO builds (revision, config, created) VALUES ($1, $2, $3) "
            "ON CONFLICT (revision, config) DO NOTHING",
            bt, 2, when, 1) ||
        q1(s, "SELECT id FROM builds WHERE revision = $1 AND config = $2", bt, 2, NULL, 0,
           &build) != 1)
      return db_fail(s, msg, len, "build");
    if (build_partitions(s, build, msg, len))
      return -1;
  }
  if (o->exec(s->db, s->pg ? "BEGIN" : "BEGIN IMMEDIATE"))
    return db_fail(s, msg, len, "begin");
  if (run(s,
          "INSERT INTO builds (revision, config, created) VALUES ($1, $2, $3) "
          "ON CONFLICT (revision, config) DO NOTHING",
          bt, 2, when, 1) ||
      q1(s, "SELECT id FROM builds WHERE revision = $1 AND config = $2", bt, 2, NULL, 0, &build) !=
          1 ||
      run(s,
          "INSERT INTO contexts (test, shard, host, period) VALUES ($1, $2, $3, $4) "
          "ON CONFLICT (test, shard, host, period) DO NOTHING",
          ct, 3, period, 1) ||
      q1(s, "SELECT id FROM contexts WHERE test = $1 AND shard = $2 AND host = $3 AND period = $4",
         ct, 3, period, 1, &ctx) != 1) {
    db_fail(s, msg, len, "build and context");
    goto out;
  }
  /* the push itself: its hash seen before means it is in already */
  int64_t pi[] = {build, ctx, now};
  int fresh = q1(s,
                 "INSERT INTO pushes (hash, build_id, context_id, at) VALUES ($1, $2, $3, $4) "
                 "ON CONFLICT (hash) DO NOTHING RETURNING at",
                 ht, 1, pi, 3, NULL);
  if (fresh < 0) {
    db_fail(s, msg, len, "push");
    goto out;
  }
  if (!fresh) {
    r = 1;
    goto out;
  }
  /* the programs pushed for the build (each build-id once) */
  char *ids = strdup(q.build_ids ? q.build_ids : "");
  int bad = !ids;
  for (char *save = NULL, *id = ids ? strtok_r(ids, ",", &save) : NULL; !bad && id;
       id = strtok_r(NULL, ",", &save)) {
    const char *t[] = {id};
    bad = run(s,
              "INSERT INTO build_binaries (build_id, module_id) VALUES ($2, $1) ON CONFLICT "
              "(build_id, module_id) DO NOTHING",
              t, 1, &build, 1);
  }
  free(ids);
  if (bad) {
    db_fail(s, msg, len, "build binaries");
    goto out;
  }
  if (stage_model(s, m, p, msg, len) || merge_staged(s, build, ctx, msg, len) ||
      (p->units && units_push(s, p->units, build, ctx, msg, len)))
    goto out;
  if (o->exec(s->db, "COMMIT")) {
    db_fail(s, msg, len, "commit");
    o->exec(s->db, "ROLLBACK");
    return -1;
  }
  return 0;
out:
  o->exec(s->db, "ROLLBACK");
  return r;
}

/* ---- reading ---- */

/* The WHERE clause of a filter over count table alias `t` joined with
 * contexts c; its parameters from $first on. */
static int filter_sql(struct store *s, const struct store_filter *f, const char *t, int first,
                      char *out, size_t n, int64_t *build, char *msg, size_t len) {
  int k = first, w = snprintf(out, n, "WHERE true");
  *build = -1;
  if (f->build) {
    const char *const v[] = {f->build};
    int found = 0;
    char *end;
    long long num = strtoll(f->build, &end, 10);
    if (*f->build && !*end)
      found = q1(s, "SELECT id FROM builds WHERE id = $1", NULL, 0, (int64_t[]){num}, 1, build);
    if (found != 1)
      found = q1(s,
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
    int there = q1(s, "SELECT 1 FROM contexts WHERE test = $1 LIMIT 1", v, 1, NULL, 0, NULL);
    if (there < 0)
      return db_fail(s, msg, len, "tests");
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

static struct cov_file *file_of(struct chosen *c, size_t n, int64_t id) {
  struct chosen key = {.id = id};
  struct chosen *hit = bsearch(&key, c, n, sizeof(*c), cmp_chosen);
  return hit ? hit->file : NULL;
}

int store_read(struct store *s, const struct store_filter *f, struct cov_model *m, char *msg,
               size_t len) {
  const struct db_ops *o = s->db->ops;
  if (ready(s, msg, len))
    return -1;
  char where[512], sql[2048];
  int64_t build;
  if (filter_sql(s, f, "l", 1, where, sizeof(where), &build, msg, len))
    return -1;
  /* one content per path: the newest (the highest id) */
  snprintf(sql, sizeof(sql),
           "SELECT s.path, MAX(s.id), COUNT(DISTINCT s.id), MIN(l.arcs) FROM line_counts l JOIN "
           "sources s ON s.id = l.source_id JOIN contexts c ON c.id = l.context_id %s GROUP BY "
           "s.path ORDER BY s.path",
           where);
  struct db_stmt *st = o->prepare(s->db, sql);
  if (!st)
    return db_fail(s, msg, len, "read");
  bind_filter(s, st, f, 1, build);
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
    return r == -2 ? SAY("out of memory") : db_fail(s, msg, len, "read");
  }
  /* the files whose counts all came from gcov units: solved from the
   * units' summed counters (a file they do not give keeps its rows) */
  size_t n_take = 0;
  for (size_t i = 0; i < n; i++)
    n_take += ch[i].arcs;
  if (n_take) {
    struct cov_file **take = malloc(n_take * sizeof(*take));
    int *filled = malloc(n_take * sizeof(*filled));
    size_t k = 0;
    for (size_t i = 0; take && i < n; i++)
      if (ch[i].arcs)
        take[k++] = ch[i].file;
    r = !take || !filled ? SAY("out of memory")
                         : units_read(s, where, f, build, m, take, filled, n_take, msg, len);
    for (size_t i = 0; r == 0 && i < n; i++) {
      struct cov_file **hit =
          ch[i].arcs ? bsearch(&ch[i].file, take, n_take, sizeof(*take), store_cmp_ptr) : NULL;
      if (hit && filled[hit - take])
        ch[i].file = NULL; /* (its rows are not read) */
    }
    free(take);
    free(filled);
    if (r) {
      free(ch);
      return -1;
    }
  }
  qsort(ch, n, sizeof(*ch), cmp_chosen);
  /* lines, functions, branches of the chosen contents, summed by the engine */
  static const char *const q[] = {
      "SELECT l.source_id, l.line, SUMSAT(l.count) FROM line_counts l JOIN contexts c ON c.id = "
      "l.context_id %s GROUP BY l.source_id, l.line",
      "SELECT l.source_id, l.name, MIN(l.line), SUMSAT(l.count) FROM func_counts l JOIN contexts "
      "c ON c.id = l.context_id %s GROUP BY l.source_id, l.name",
      "SELECT l.source_id, l.line, l.block, l.branch, MAX(l.executed), SUMSAT(l.taken) FROM "
      "branch_counts l JOIN contexts c ON c.id = l.context_id %s GROUP BY l.source_id, l.line, "
      "l.block, l.branch"};
  for (int k = 0; k < 3 && r == 0; k++) {
    snprintf(sql, sizeof(sql), q[k], where);
    if (!(st = o->prepare(s->db, sql))) {
      r = -1;
      break;
    }
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
  free(ch);
  if (r != 0)
    return db_fail(s, msg, len, "read");
  if (older)
    fprintf(stderr,
            "ucov: %zu older contents of the files (other revisions) left out: each path's "
            "newest is reported\n",
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
              void (*cb)(void *arg, const char *path, const char *test, uint64_t count), void *arg,
              char *msg, size_t len) {
  const struct db_ops *o = s->db->ops;
  static const struct store_filter all;
  if (!f)
    f = &all;
  if (ready(s, msg, len))
    return -1;
  char where[512], sql[1024];
  int64_t build;
  if (filter_sql(s, f, "l", 4, where, sizeof(where), &build, msg, len))
    return -1;
  snprintf(sql, sizeof(sql),
           "SELECT s.path, c.test, SUMSAT(l.count) FROM line_counts l JOIN sources s ON s.id = "
           "l.source_id JOIN contexts c ON c.id = l.context_id %s AND (s.path = $1 OR s.path LIKE "
           "$2 ESCAPE '\\') AND l.line = $3 AND l.count > 0 GROUP BY s.path, c.test ORDER BY 3 "
           "DESC, 2, 1",
           where);
  char *like = like_suffix(file);
  struct db_stmt *st = like ? o->prepare(s->db, sql) : NULL;
  if (!st) {
    free(like);
    return like ? db_fail(s, msg, len, "who") : SAY("out of memory");
  }
  o->bind_text(st, 1, file);
  o->bind_text(st, 2, like);
  o->bind_int(st, 3, line);
  bind_filter(s, st, f, 4, build);
  int r;
  while ((r = o->step(st)) == 1) {
    int64_t v = o->col_int(st, 2);
    cb(arg, o->col_text(st, 0), o->col_text(st, 1), v < 0 ? 0 : (uint64_t)v);
  }
  o->finalize(st);
  free(like);
  return r ? db_fail(s, msg, len, "who") : 0;
}

int store_history(struct store *s, const char *path,
                  void (*cb)(void *arg, int64_t build, const char *revision, int64_t created,
                             uint64_t found, uint64_t hit),
                  void *arg, char *msg, size_t len) {
  const struct db_ops *o = s->db->ops;
  if (ready(s, msg, len))
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
    return db_fail(s, msg, len, "history");
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
  return r ? db_fail(s, msg, len, "history") : 0;
}

int store_tests_for(struct store *s, const struct store_filter *f, const char *const *paths,
                    const uint32_t *lines, size_t n,
                    void (*cb)(void *arg, const char *test, uint64_t lines, uint64_t hits),
                    void *arg, char *msg, size_t len) {
  const struct db_ops *o = s->db->ops;
  if (ready(s, msg, len))
    return -1;
  const char *tail = s->pg ? " ON COMMIT DELETE ROWS" : "";
  char sql[1024], where[512];
  snprintf(sql, sizeof(sql),
           "CREATE TEMP TABLE IF NOT EXISTS stage_q (source_id BIGINT, line BIGINT)%s", tail);
  if (o->exec(s->db, sql) || o->exec(s->db, "BEGIN") ||
      (!s->pg && o->exec(s->db, "DELETE FROM stage_q")))
    return db_fail(s, msg, len, "tests-for");
  int err = 0;
  /* each path's sources (every content it had), then its lines against them */
  struct db_stmt *st =
      o->prepare(s->db, "SELECT id FROM sources WHERE path = $1 OR path LIKE $2 ESCAPE '\\'");
  if (!st || o->copy_begin(s->db, "stage_q", 2))
    err = -1;
  const char *prev = NULL;
  int64_t *ids = NULL;
  size_t n_ids = 0, cap = 0;
  for (size_t i = 0; !err && i < n; i++) {
    if (!prev || strcmp(prev, paths[i])) {
      /* (COPY is one statement: the ids are looked up between copies) */
      if (o->copy_end(s->db)) {
        err = -1;
        break;
      }
      char *like = like_suffix(paths[i]);
      n_ids = 0;
      o->reset(st);
      o->bind_text(st, 1, paths[i]);
      o->bind_text(st, 2, like);
      int r;
      while (like && (r = o->step(st)) == 1) {
        if (n_ids == cap) {
          int64_t *g = realloc(ids, (cap = cap ? 2 * cap : 16) * sizeof(*ids));
          if (!g) {
            r = -1;
            break;
          }
          ids = g;
        }
        ids[n_ids++] = o->col_int(st, 0);
      }
      free(like);
      if (!like || r < 0 || o->copy_begin(s->db, "stage_q", 2)) {
        err = -1;
        break;
      }
      prev = paths[i];
    }
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
  int64_t build;
  if (!err && filter_sql(s, f, "l", 1, where, sizeof(where), &build, msg, len)) {
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
    if (!(st = o->prepare(s->db, sql))) {
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
    int r = db_fail(s, msg, len, "tests-for");
    o->exec(s->db, "ROLLBACK");
    return r;
  }
  o->exec(s->db, "COMMIT");
  return 0;
}
