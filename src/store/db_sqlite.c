/* SPDX-License-Identifier: MIT */
/*
 * The SQLite engine (see db.h): one file, WAL so readers do not wait for a
 * writer, a busy timeout so concurrent pushers queue instead of failing, and
 * a saturating sum aggregate (SQLite's own sum() fails on overflow).
 */
#define _GNU_SOURCE
#include "base/util.h"
#include "db.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int db_statement_seconds(void) {
  const char *e = getenv("UCOV_STORE_TIMEOUT");
  long v = e && *e ? strtol(e, NULL, 10) : 0;
  return v > 0 && v < 1000000 ? (int)v : 600;
}

#ifdef UCOV_HAVE_SQLITE
#include <sqlite3.h>

/*
 * A file of the store (its_dir: the directory) that another user owns or
 * could write is refused, as the runtime directory is: a planted trigger,
 * journal or WAL would run or roll into the next push. A sticky directory
 * (/tmp) is one whose files others cannot replace; the files are checked
 * each. A file not there is fine (SQLite makes it, this user's).
 */
static int untrusted(const char *path, int its_dir) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT ? 0 : (diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno)), -1);
  if (!its_dir && !S_ISREG(st.st_mode)) {
    diag_at(DIAG_ERROR, path, 0,
            "not a regular file: refused (a coverage store's files are plain files)");
    return -1;
  }
  if (st.st_uid != geteuid()) {
    diag_at(DIAG_ERROR, path, 0,
            "owned by uid %u, not by this user (uid %u): the coverage store is refused",
            (unsigned)st.st_uid, (unsigned)geteuid());
    return -1;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(its_dir && (st.st_mode & S_ISVTX))) {
    diag_at(DIAG_ERROR, path, 0,
            "writable by group or others: the coverage store is refused (chmod go-w %s)", path);
    return -1;
  }
  return 0;
}

/* The directory part of path into dir ("." for none, "/" for the root). */
static void dir_of(const char *path, char dir[PATH_MAX]) {
  const char *slash = strrchr(path, '/');
  snprintf(dir, PATH_MAX, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
           slash ? path : ".");
}

/* The store's file (links resolved, as SQLite resolves them), its journals
 * and its directory checked; the resolved path in real. 0 or -1 (said). */
static int trusted_files(const char *path, char real[PATH_MAX]) {
  char dir[PATH_MAX], side[PATH_MAX + 16];
  if (realpath(path, real)) {
    dir_of(real, dir);
  } else { /* not there yet: its directory resolved, the name as given */
    const char *slash = strrchr(path, '/');
    dir_of(path, side);
    if (!realpath(side, dir) || snprintf(real, PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "",
                                         slash ? slash + 1 : path) >= PATH_MAX)
      return 0; /* SQLite says what is wrong */
  }
  if (untrusted(dir, 1) || untrusted(real, 0))
    return -1;
  static const char *const sides[] = {"-journal", "-wal", "-shm"};
  for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
    snprintf(side, sizeof(side), "%s%s", real, sides[i]);
    if (untrusted(side, 0))
      return -1;
  }
  return 0;
}

struct sdb {
  struct db base;
  sqlite3 *h;
  sqlite3_stmt *copy;  /* the bulk INSERT while copying */
  time_t deadline;     /* the running statement's bound */
  int immutable;       /* read without its journals (none were there) */
  char path[PATH_MAX]; /* (immutable: checked again at the close) */
  struct stat at_open;
};

/* Every statement gets db_statement_seconds() from its start. */
static void bound(struct sdb *s) {
  s->deadline = time(NULL) + db_statement_seconds();
}

static int over_bound(void *arg) {
  struct sdb *s = arg;
  return time(NULL) > s->deadline;
}

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
  bound(s);
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
  if (sqlite3_stmt_busy(st->s) == 0)
    bound(st->d); /* (a statement's first step) */
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
  bound(s);
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

static int s_close(struct db *d) {
  struct sdb *s = (struct sdb *)d;
  if (s->copy)
    sqlite3_finalize(s->copy);
  sqlite3_close(s->h);
  int r = 0;
  struct stat now;
  if (s->immutable &&
      (stat(s->path, &now) != 0 || now.st_ino != s->at_open.st_ino ||
       now.st_size != s->at_open.st_size || now.st_mtim.tv_sec != s->at_open.st_mtim.tv_sec ||
       now.st_mtim.tv_nsec != s->at_open.st_mtim.tv_nsec)) {
    diag_at(DIAG_ERROR, s->path, 0,
            "the store changed while it was read (a push): run the command again");
    r = -1;
  }
  free(s);
  return r;
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

/* A file: URI of path (RFC 3986: what is not unreserved or '/' escaped). */
static char *file_uri(const char *path, const char *query) {
  size_t n = strlen(path);
  char *u = malloc(3 * n + strlen(query) + 16);
  if (!u)
    return NULL;
  char *o = u + sprintf(u, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    o += isalnum(*p) || strchr("/-._~", *p) ? sprintf(o, "%c", *p) : sprintf(o, "%%%02X", *p);
  sprintf(o, "?%s", query);
  return u;
}

/* Why a store's schema cannot be trusted: a trigger or view ucov did not
 * make (it makes none) would run inside every push. 0 or -1 (said). */
static int foreign_schema(struct sdb *s, const char *path) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->h,
                         "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') "
                         "LIMIT 1",
                         -1, &q, NULL) != SQLITE_OK) {
    diag_at(DIAG_ERROR, path, 0, "%s", sqlite3_errmsg(s->h));
    return -1;
  }
  bound(s);
  int rc = sqlite3_step(q), r = 0;
  if (rc == SQLITE_ROW) {
    diag_at(DIAG_ERROR, path, 0,
            "holds a %s ucov did not make (\"%s\"): the coverage store is refused",
            (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1));
    r = -1;
  } else if (rc != SQLITE_DONE) {
    diag_at(DIAG_ERROR, path, 0, "%s", sqlite3_errmsg(s->h));
    r = -1;
  }
  sqlite3_finalize(q);
  return r;
}

/* (Long: the checks, then each of the engine's settings in order.) */
struct db *db_open_sqlite(const char *path, int readonly) {
  struct sdb *s = calloc(1, sizeof(*s));
  if (!s) {
    UCOV_ERR("out of memory");
    return NULL;
  }
  s->base.ops = &sqlite_ops;
  if (trusted_files(path, s->path)) {
    free(s);
    return NULL;
  }
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  char *uri = NULL, wal[PATH_MAX + 8];
  if (readonly) {
    /* A reader creates nothing: with no WAL there (no writer now), the file
     * is read as it is (immutable), and checked unchanged at the close; with
     * one, through it, read-only. */
    snprintf(wal, sizeof(wal), "%s-wal", s->path);
    s->immutable = access(wal, F_OK) != 0 && stat(s->path, &s->at_open) == 0;
    uri = file_uri(s->path, s->immutable ? "immutable=1" : "mode=ro");
    flags |= SQLITE_OPEN_READONLY;
  } else {
    uri = file_uri(s->path, "mode=rwc");
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  }
  if (!uri || sqlite3_open_v2(uri, &s->h, flags, NULL) != SQLITE_OK) {
    diag_at(DIAG_ERROR, path, 0, "%s", s->h ? sqlite3_errmsg(s->h) : "cannot open");
    sqlite3_close(s->h);
    free(uri);
    free(s);
    return NULL;
  }
  free(uri);
  sqlite3_busy_timeout(s->h, 120000); /* concurrent pushers take turns */
  sqlite3_progress_handler(s->h, 10000, over_bound, s);
  sqlite3_create_function(s->h, "ucov_sum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                          sum_step, sum_final);
  if (s_exec(&s->base, "PRAGMA trusted_schema=OFF") || foreign_schema(s, path)) {
    if (s->base.err[0])
      diag_at(DIAG_ERROR, path, 0, "%s", s->base.err);
    s->immutable = 0;
    s_close(&s->base);
    return NULL;
  }
  if (readonly)
    return &s->base;
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
    diag_at(DIAG_ERROR, path, 0, "%s", s->base.err);
    s_close(&s->base);
    return NULL;
  }
  return &s->base;
}

#else

struct db *db_open_sqlite(const char *path, int readonly) {
  (void)readonly;
  diag_at(DIAG_ERROR, path, 0,
          "ucov was built without SQLite (install libsqlite3-dev and rebuild)");
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
