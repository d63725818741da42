/* SPDX-License-Identifier: MIT */
/*
 * The SQLite engine (see db.h): one file, WAL so readers do not wait for a
 * writer, a busy timeout so concurrent pushers queue instead of failing, and
 * a saturating sum aggregate (SQLite's own sum() fails on overflow).
 */
#define _GNU_SOURCE
#include "report/util.h"
#include "db.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef UCOV_HAVE_SQLITE
#include <sqlite3.h>

struct sdb {
  struct db base;
  sqlite3 *h;
  sqlite3_stmt *copy; /* the bulk INSERT while copying */
};

struct db_stmt {
  struct sdb *d;
  sqlite3_stmt *s;
};

static const char *s_error(struct db *d) {
  struct sdb *s = (struct sdb *)d;
  return d->err[0] ? d->err : sqlite3_errmsg(s->h);
}

static int s_exec(struct db *d, const char *sql) {
  struct sdb *s = (struct sdb *)d;
  char *e = NULL;
  d->err[0] = 0;
  if (sqlite3_exec(s->h, sql, NULL, NULL, &e) != SQLITE_OK) {
    snprintf(d->err, sizeof(d->err), "%s", e ? e : sqlite3_errmsg(s->h));
    sqlite3_free(e);
    return -1;
  }
  return 0;
}

/* $N -> ?N outside quotes; SUMSAT(x) -> ucov_sum(x). */
static char *translate(const char *sql) {
  char *t = db_rewrite_sumsat(sql, "ucov_sum(%s)");
  if (!t)
    return NULL;
  char q = 0;
  for (char *p = t; *p; p++) {
    if (q) {
      if (*p == q)
        q = 0;
    } else if (*p == '\'' || *p == '"') {
      q = *p;
    } else if (*p == '$' && isdigit((unsigned char)p[1])) {
      *p = '?';
    }
  }
  return t;
}

static struct db_stmt *s_prepare(struct db *d, const char *sql) {
  struct sdb *s = (struct sdb *)d;
  d->err[0] = 0;
  char *t = translate(sql);
  struct db_stmt *st = calloc(1, sizeof(*st));
  if (!t || !st) {
    snprintf(d->err, sizeof(d->err), "out of memory");
    free(t);
    free(st);
    return NULL;
  }
  st->d = s;
  int rc = sqlite3_prepare_v2(s->h, t, -1, &st->s, NULL);
  free(t);
  if (rc != SQLITE_OK) {
    snprintf(d->err, sizeof(d->err), "%s", sqlite3_errmsg(s->h));
    free(st);
    return NULL;
  }
  return st;
}

static int s_bind_text(struct db_stmt *st, int i, const char *v) {
  int rc = v ? sqlite3_bind_text(st->s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st->s, i);
  return rc == SQLITE_OK ? 0 : -1;
}

static int s_bind_int(struct db_stmt *st, int i, int64_t v) {
  return sqlite3_bind_int64(st->s, i, v) == SQLITE_OK ? 0 : -1;
}

static int s_step(struct db_stmt *st) {
  int rc = sqlite3_step(st->s);
  if (rc == SQLITE_ROW)
    return 1;
  if (rc == SQLITE_DONE)
    return 0;
  snprintf(st->d->base.err, sizeof(st->d->base.err), "%s", sqlite3_errmsg(st->d->h));
  return -1;
}

static const char *s_col_text(struct db_stmt *st, int i) {
  return (const char *)sqlite3_column_text(st->s, i);
}

static int64_t s_col_int(struct db_stmt *st, int i) {
  return sqlite3_column_int64(st->s, i);
}

static void s_reset(struct db_stmt *st) {
  sqlite3_reset(st->s);
  sqlite3_clear_bindings(st->s);
}

static void s_finalize(struct db_stmt *st) {
  if (st) {
    sqlite3_finalize(st->s);
    free(st);
  }
}

static int s_copy_begin(struct db *d, const char *table, int ncols) {
  struct sdb *s = (struct sdb *)d;
  char sql[512];
  int n = snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (", table);
  for (int i = 1; i <= ncols && n < (int)sizeof(sql) - 8; i++)
    n += snprintf(sql + n, sizeof(sql) - (size_t)n, i > 1 ? ", ?%d" : "?%d", i);
  snprintf(sql + n, sizeof(sql) - (size_t)n, ")");
  if (sqlite3_prepare_v2(s->h, sql, -1, &s->copy, NULL) != SQLITE_OK) {
    snprintf(d->err, sizeof(d->err), "%s", sqlite3_errmsg(s->h));
    return -1;
  }
  return 0;
}

static int s_copy_row(struct db *d, const char *const *values, int n) {
  struct sdb *s = (struct sdb *)d;
  for (int i = 0; i < n; i++)
    if ((values[i] ? sqlite3_bind_text(s->copy, i + 1, values[i], -1, SQLITE_STATIC)
                   : sqlite3_bind_null(s->copy, i + 1)) != SQLITE_OK)
      return -1;
  int rc = sqlite3_step(s->copy);
  sqlite3_reset(s->copy);
  if (rc != SQLITE_DONE) {
    snprintf(d->err, sizeof(d->err), "%s", sqlite3_errmsg(s->h));
    return -1;
  }
  return 0;
}

static int s_copy_end(struct db *d) {
  struct sdb *s = (struct sdb *)d;
  sqlite3_finalize(s->copy);
  s->copy = NULL;
  return 0;
}

static void s_close(struct db *d) {
  struct sdb *s = (struct sdb *)d;
  if (s->copy)
    sqlite3_finalize(s->copy);
  sqlite3_close(s->h);
  free(s);
}

/* ucov_sum: a sum of 64-bit integers that stops at INT64_MAX. */
static void sum_step(sqlite3_context *c, int argc, sqlite3_value **argv) {
  (void)argc;
  int64_t *acc = sqlite3_aggregate_context(c, sizeof(*acc));
  if (!acc || sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return;
  int64_t v = sqlite3_value_int64(argv[0]);
  if (v < 0)
    v = 0;
  *acc = *acc > INT64_MAX - v ? INT64_MAX : *acc + v;
}

static void sum_final(sqlite3_context *c) {
  int64_t *acc = sqlite3_aggregate_context(c, 0);
  sqlite3_result_int64(c, acc ? *acc : 0);
}

static const struct db_ops sqlite_ops = {
    "sqlite", s_exec,     s_prepare,    s_bind_text, s_bind_int, s_step,  s_col_text, s_col_int,
    s_reset,  s_finalize, s_copy_begin, s_copy_row,  s_copy_end, s_error, s_close};

struct db *db_open_sqlite(const char *path) {
  struct sdb *s = calloc(1, sizeof(*s));
  if (!s) {
    UCOV_ERR("out of memory");
    return NULL;
  }
  s->base.ops = &sqlite_ops;
  if (sqlite3_open_v2(path, &s->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      NULL) != SQLITE_OK) {
    UCOV_ERR("%s: %s", path, s->h ? sqlite3_errmsg(s->h) : "cannot open");
    sqlite3_close(s->h);
    free(s);
    return NULL;
  }
  sqlite3_busy_timeout(s->h, 120000); /* concurrent pushers take turns */
  sqlite3_create_function(s->h, "ucov_sum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                          sum_step, sum_final);
  /* Turning a new file to WAL upgrades a read lock to a write lock, which
   * SQLite refuses at once (no busy handler: it could deadlock) while another
   * new connection does the same: so it is retried here, within the same
   * two minutes. */
  int rc = 1;
  for (int tries = 0; rc && tries < 120000 / 2; tries++) {
    rc = s_exec(&s->base, "PRAGMA journal_mode=WAL");
    if (rc && (sqlite3_errcode(s->h) & 0xff) == SQLITE_BUSY) {
      struct timespec ts = {0, 2 * 1000 * 1000};
      nanosleep(&ts, NULL);
    } else {
      break;
    }
  }
  if (rc || s_exec(&s->base, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON")) {
    UCOV_ERR("%s: %s", path, s->base.err);
    s_close(&s->base);
    return NULL;
  }
  return &s->base;
}

#else

struct db *db_open_sqlite(const char *path) {
  UCOV_ERR("%s: ucov was built without SQLite (install libsqlite3-dev and rebuild)", path);
  return NULL;
}

#endif

char *db_rewrite_sumsat(const char *sql, const char *tmpl) {
  size_t cap = strlen(sql) * (strlen(tmpl) + 2) + 64, n = 0;
  char *out = malloc(cap);
  if (!out)
    return NULL;
  const char *p = sql;
  while (*p) {
    const char *at = strstr(p, "SUMSAT(");
    if (!at) {
      size_t l = strlen(p);
      if (n + l + 1 > cap)
        break;
      memcpy(out + n, p, l);
      n += l;
      break;
    }
    /* the argument: up to the matching parenthesis */
    const char *a = at + 7, *e = a;
    for (int depth = 1; *e && depth; e++)
      depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
    size_t pre = (size_t)(at - p), arg = (size_t)(e - 1 - a);
    char *x = strndup(a, arg);
    char *r = NULL;
    if (!x || asprintf(&r, tmpl, x) < 0)
      r = NULL;
    free(x);
    if (!r || n + pre + strlen(r) + 1 > cap) {
      free(r);
      free(out);
      return NULL;
    }
    memcpy(out + n, p, pre);
    n += pre;
    memcpy(out + n, r, strlen(r));
    n += strlen(r);
    free(r);
    p = e;
  }
  out[n] = 0;
  return out;
}
