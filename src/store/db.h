/* SPDX-License-Identifier: MIT */
/*
 * The two SQL engines behind the store, as one small statement interface:
 * SQL written once with $1..$n parameters (SQLite gets ?1..?n), values bound
 * as text or 64-bit integers, rows read column by column, and a bulk path
 * for staging many rows (SQLite: a prepared INSERT in the transaction;
 * PostgreSQL: COPY). SUMSAT(x) in a query is a sum that saturates at
 * INT64_MAX in either engine, a negative value counted as 0
 * (tests/unit/test_db_ops.c holds both engines to one behaviour).
 */
#ifndef UCOV_STORE_DB_H
#define UCOV_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct db_stmt;

struct db_ops {
  const char *name; /* "sqlite", "postgresql" */
  /* Statements without parameters or rows (DDL, BEGIN, COMMIT). 0 or -1. */
  int (*exec)(struct db *d, const char *sql);
  struct db_stmt *(*prepare)(struct db *d, const char *sql);
  /* Parameters count from 1. A NULL text binds SQL NULL. 0 or -1. */
  int (*bind_text)(struct db_stmt *s, int i, const char *v);
  int (*bind_int)(struct db_stmt *s, int i, int64_t v);
  /* 1: a row, 0: done, -1: an error (db_error says it). */
  int (*step)(struct db_stmt *s);
  const char *(*col_text)(struct db_stmt *s, int i); /* from 0; NULL for SQL NULL */
  int64_t (*col_int)(struct db_stmt *s, int i);
  void (*reset)(struct db_stmt *s); /* run again with new bindings */
  void (*finalize)(struct db_stmt *s);
  /* Bulk rows into a table (columns as text; NULL for SQL NULL). */
  int (*copy_begin)(struct db *d, const char *table, int ncols);
  int (*copy_row)(struct db *d, const char *const *values, int n);
  int (*copy_end)(struct db *d);
  const char *(*error)(struct db *d);
  /* Close; -1 (said) when a reader's view may have been torn: the store
   * changed under a read that could not see its writers. */
  int (*close)(struct db *d);
};

struct db {
  const struct db_ops *ops;
  char err[512]; /* the last error, for engines that keep their own elsewhere */
};

/* Open an engine: a SQLite file, or a PostgreSQL connection string (libpq's
 * URI or key=value form). NULL with msg when it cannot be opened, or when
 * ucov was built without that engine. A SQLite file, its journals and their
 * directory must be this user's and not writable by others. readonly: no
 * file is created or changed (SQLite; PostgreSQL: the caller changes no
 * table of the store). Every statement is bounded by db_statement_seconds(). */
struct db *db_open_sqlite(const char *path, int readonly);
struct db *db_open_pg(const char *conninfo, int readonly);

/* The longest one statement may run (seconds): UCOV_STORE_TIMEOUT, else 600. */
int db_statement_seconds(void);

/* SUMSAT(x) rewritten by an engine's template ("%s" is x); the result is
 * malloc'd (NULL: no memory). Parentheses inside x are matched. */
char *db_rewrite_sumsat(const char *sql, const char *tmpl);

#endif
