/* SPDX-License-Identifier: MIT */
/*
 * The PostgreSQL engine (see db.h), through libpq: statements sent with
 * PQexecParams (text parameters and results), bulk rows with COPY ... FROM
 * STDIN in text format.
 */
#define _GNU_SOURCE
#include "base/util.h"
#include "db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef UCOV_HAVE_LIBPQ
#include <libpq-fe.h>

#define MAX_PARAMS 16

struct pdb {
  struct db base;
  PGconn *c;
  char *copybuf; /* the rows of a COPY, sent in pieces */
  size_t copylen, copycap;
};

struct db_stmt {
  struct pdb *d;
  char *sql;
  char *vals[MAX_PARAMS];
  int nparams;
  PGresult *res; /* the current row */
  int running, done;
};

static void set_err(struct pdb *p, const char *what) {
  snprintf(p->base.err, sizeof(p->base.err), "%s", what && *what ? what : PQerrorMessage(p->c));
  size_t n = strlen(p->base.err);
  while (n && p->base.err[n - 1] == '\n')
    p->base.err[--n] = 0;
}

static const char *p_error(struct db *d) {
  return d->err;
}

static int p_exec(struct db *d, const char *sql) {
  struct pdb *p = (struct pdb *)d;
  PGresult *r = PQexec(p->c, sql);
  int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
  if (!ok)
    set_err(p, PQresultErrorMessage(r));
  PQclear(r);
  return ok ? 0 : -1;
}

static struct db_stmt *p_prepare(struct db *d, const char *sql) {
  struct pdb *p = (struct pdb *)d;
  struct db_stmt *s = calloc(1, sizeof(*s));
  if (!s || !(s->sql = db_rewrite_sumsat(
                  sql, "LEAST(SUM(GREATEST(%s, 0)), 9223372036854775807)::bigint"))) {
    free(s);
    set_err(p, "out of memory");
    return NULL;
  }
  s->d = p;
  /* the highest $N is the number of parameters */
  for (const char *q = s->sql; (q = strchr(q, '$'));) {
    int n = atoi(++q);
    if (n > s->nparams)
      s->nparams = n;
  }
  if (s->nparams > MAX_PARAMS) {
    set_err(p, "too many parameters");
    free(s->sql);
    free(s);
    return NULL;
  }
  return s;
}

static int p_bind_text(struct db_stmt *s, int i, const char *v) {
  if (i < 1 || i > MAX_PARAMS)
    return -1;
  free(s->vals[i - 1]);
  s->vals[i - 1] = v ? strdup(v) : NULL;
  return v && !s->vals[i - 1] ? -1 : 0;
}

static int p_bind_int(struct db_stmt *s, int i, int64_t v) {
  char b[24];
  snprintf(b, sizeof(b), "%" PRId64, v);
  return p_bind_text(s, i, b);
}

/* Rows come one at a time (single-row mode): a large result is never held whole. */
static void drain(struct db_stmt *s) {
  PQclear(s->res);
  s->res = NULL;
  if (s->running) {
    PGresult *r;
    while ((r = PQgetResult(s->d->c)))
      PQclear(r);
    s->running = 0;
  }
}

static int p_step(struct db_stmt *s) {
  if (!s->running && !s->done) {
    if (!PQsendQueryParams(s->d->c, s->sql, s->nparams, NULL, (const char *const *)s->vals, NULL,
                           NULL, 0)) {
      set_err(s->d, NULL);
      return -1;
    }
    PQsetSingleRowMode(s->d->c);
    s->running = 1;
  }
  if (s->done)
    return 0;
  PQclear(s->res);
  s->res = PQgetResult(s->d->c);
  ExecStatusType st = s->res ? PQresultStatus(s->res) : PGRES_COMMAND_OK;
  if (st == PGRES_SINGLE_TUPLE)
    return 1;
  int ok = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
  if (!ok)
    set_err(s->d, PQresultErrorMessage(s->res));
  drain(s);
  s->done = 1;
  return ok ? 0 : -1;
}

static const char *p_col_text(struct db_stmt *s, int i) {
  if (!s->res || PQntuples(s->res) < 1 || PQgetisnull(s->res, 0, i))
    return NULL;
  return PQgetvalue(s->res, 0, i);
}

static int64_t p_col_int(struct db_stmt *s, int i) {
  const char *v = p_col_text(s, i);
  return v ? strtoll(v, NULL, 10) : 0;
}

static void p_reset(struct db_stmt *s) {
  drain(s);
  s->done = 0;
  for (int i = 0; i < MAX_PARAMS; i++) {
    free(s->vals[i]);
    s->vals[i] = NULL;
  }
}

static void p_finalize(struct db_stmt *s) {
  if (!s)
    return;
  p_reset(s);
  free(s->sql);
  free(s);
}

static int p_copy_begin(struct db *d, const char *table, int ncols) {
  struct pdb *p = (struct pdb *)d;
  (void)ncols;
  char sql[256];
  snprintf(sql, sizeof(sql), "COPY %s FROM STDIN", table);
  PGresult *r = PQexec(p->c, sql);
  int ok = PQresultStatus(r) == PGRES_COPY_IN;
  if (!ok)
    set_err(p, PQresultErrorMessage(r));
  PQclear(r);
  p->copylen = 0;
  return ok ? 0 : -1;
}

static int flush_copy(struct pdb *p) {
  if (p->copylen && PQputCopyData(p->c, p->copybuf, (int)p->copylen) != 1) {
    set_err(p, NULL);
    return -1;
  }
  p->copylen = 0;
  return 0;
}

/* A value in COPY's text format: \N for NULL, backslash escapes. */
static int p_copy_row(struct db *d, const char *const *values, int n) {
  struct pdb *p = (struct pdb *)d;
  for (int i = 0; i < n; i++) {
    const char *v = values[i];
    size_t need = (v ? 2 * strlen(v) : 2) + 2; /* (+ a separator, + the newline) */
    if (p->copylen + need > p->copycap) {
      if (flush_copy(p))
        return -1;
      if (need > p->copycap) {
        char *g = realloc(p->copybuf, need < 65536 ? 65536 : need);
        if (!g) {
          set_err(p, "out of memory");
          return -1;
        }
        p->copybuf = g;
        p->copycap = need < 65536 ? 65536 : need;
      }
    }
    char *o = p->copybuf + p->copylen;
    if (i)
      *o++ = '\t';
    if (!v) {
      *o++ = '\\';
      *o++ = 'N';
    } else {
      for (; *v; v++) {
        char c = *v;
        if (c == '\\' || c == '\t' || c == '\n' || c == '\r') {
          *o++ = '\\';
          c = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : '\\';
        }
        *o++ = c;
      }
    }
    p->copylen = (size_t)(o - p->copybuf);
  }
  p->copybuf[p->copylen++] = '\n';
  return 0;
}

static int p_copy_end(struct db *d) {
  struct pdb *p = (struct pdb *)d;
  int ok = flush_copy(p) == 0 && PQputCopyEnd(p->c, NULL) == 1;
  PGresult *r;
  while ((r = PQgetResult(p->c))) {
    if (PQresultStatus(r) != PGRES_COMMAND_OK && ok) {
      set_err(p, PQresultErrorMessage(r));
      ok = 0;
    }
    PQclear(r);
  }
  return ok ? 0 : -1;
}

static int p_close(struct db *d) {
  struct pdb *p = (struct pdb *)d;
  PQfinish(p->c);
  free(p->copybuf);
  free(p);
  return 0;
}

static const struct db_ops pg_ops = {"postgresql", p_exec,     p_prepare,  p_bind_text, p_bind_int,
                                     p_step,       p_col_text, p_col_int,  p_reset,     p_finalize,
                                     p_copy_begin, p_copy_row, p_copy_end, p_error,     p_close};

/* A trigger, rule or view ucov did not make (it makes none) in the store's
 * schema would run inside every push: refused. 0 or -1 (said). */
static int foreign_schema(struct pdb *p) {
  PGresult *r = PQexec(
      p->c, "SELECT 'trigger', t.tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = "
            "t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal "
            "AND n.nspname = current_schema() UNION ALL SELECT 'rule', rulename::text FROM "
            "pg_rules WHERE schemaname = current_schema() UNION ALL SELECT 'view', "
            "viewname::text FROM pg_views WHERE schemaname = current_schema() LIMIT 1");
  int bad = 0;
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    set_err(p, PQresultErrorMessage(r));
    UCOV_ERR("the schema's triggers: %s", p->base.err);
    p->base.err[0] = 0;
    bad = -1;
  } else if (PQntuples(r)) {
    UCOV_ERR("the store holds a %s ucov did not make (\"%s\"): the coverage store is refused",
             PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1));
    bad = -1;
  }
  PQclear(r);
  return bad;
}

struct db *db_open_pg(const char *conninfo, int readonly) {
  struct pdb *p = calloc(1, sizeof(*p));
  if (!p) {
    UCOV_ERR("out of memory");
    return NULL;
  }
  p->base.ops = &pg_ops;
  p->c = PQconnectdb(conninfo);
  if (!p->c || PQstatus(p->c) != CONNECTION_OK) {
    set_err(p, NULL);
    UCOV_ERR("%s", p->base.err);
    PQfinish(p->c);
    free(p);
    return NULL;
  }
  /* quiet NOTICEs ("relation already exists, skipping"); every statement
   * bounded. (A reader changes nothing of the store's tables, but makes its
   * session's temporary tables, which a read-only transaction may not.) */
  (void)readonly;
  char set[160];
  snprintf(set, sizeof(set), "SET client_min_messages = warning; SET statement_timeout = '%ds'",
           db_statement_seconds());
  if (p_exec(&p->base, set) || foreign_schema(p)) {
    if (p->base.err[0])
      UCOV_ERR("%s", p->base.err);
    p_close(&p->base);
    return NULL;
  }
  return &p->base;
}

#else

struct db *db_open_pg(const char *conninfo, int readonly) {
  (void)conninfo;
  (void)readonly;
  UCOV_ERR("ucov was built without PostgreSQL (install libpq-dev and rebuild)");
  return NULL;
}

#endif
