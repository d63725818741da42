/* SPDX-License-Identifier: MIT */
/*
 * The coverage store (see store.h), in four files: store.c (opening, the
 * statements' helpers), store_schema.c (the schema and its migrations),
 * store_push.c (pushes staged and merged by the engine with saturating
 * upserts), store_query.c (reads summed by the engine).
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

int store_fail(struct store *s, const char *what) {
  return SAY_AT(what, "%s", s->db->ops->error(s->db));
}

static struct store *open_url(const char *url, int readonly) {
  if (!url || !*url)
    url = getenv("UCOV_STORE");
  if (!url || !*url)
    url = "ucov.db";
  struct store *s = calloc(1, sizeof(*s));
  if (!s) {
    UCOV_ERR("out of memory");
    return NULL;
  }
  if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11)) {
    s->pg = 1;
    s->db = db_open_pg(url, readonly);
  } else {
    s->db = db_open_sqlite(!strncmp(url, "sqlite:", 7) ? url + 7 : url, readonly);
  }
  if (!s->db) {
    free(s);
    return NULL;
  }
  snprintf(s->url, sizeof(s->url), "%s", url);
  s->reader = readonly;
  return s;
}

struct store *store_open(const char *url) {
  return open_url(url, 0);
}

struct store *store_open_existing(const char *url) {
  if (!url || !*url)
    url = getenv("UCOV_STORE");
  if (!url || !*url)
    url = "ucov.db";
  struct stat st;
  const char *file = !strncmp(url, "sqlite:", 7) ? url + 7 : url;
  int pg = !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
  int err = pg ? 0 : stat(file, &st) ? errno : !S_ISREG(st.st_mode) ? EISDIR : 0;
  if (err) { /* (SQLite would make an empty file) */
    diag_at(DIAG_ERROR, file, 0, "no coverage store there (%s; ucov push makes one)",
            err == EISDIR ? "not a file" : strerror(err));
    return NULL;
  }
  return open_url(url, 1);
}

int store_close(struct store *s) {
  if (!s)
    return 0;
  int r = s->db->ops->close(s->db);
  free(s);
  return r;
}

const char *store_engine(const struct store *s) {
  return s->db->ops->name;
}

int store_q1(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
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

int store_run(struct store *s, const char *sql, const char *const *text, int n, const int64_t *ints,
              int ni) {
  return store_q1(s, sql, text, n, ints, ni, NULL) < 0 ? -1 : 0;
}

const char store_sat[] = "CASE WHEN %1$s.%2$s > 9223372036854775807 - excluded.%2$s THEN "
                         "9223372036854775807 ELSE %1$s.%2$s + excluded.%2$s END";
