/* SPDX-License-Identifier: MIT */
/*
 * The store's statement interface (src/store/db.h) behaves the same on every
 * engine: each URL given (a SQLite file, or a PostgreSQL connection string)
 * gets the same statements and must give the same answers: DDL, parameters
 * as text and 64-bit integers (their extremes, SQL NULL, hostile text), rows
 * column by column, a statement reset and run again, bulk rows, SUMSAT that
 * stops at INT64_MAX and counts a negative value as 0 (with nested
 * parentheses in its argument), a rollback, and errors said rather than
 * crashed on.
 *   test_db_ops SQLITE-PATH [POSTGRESQL-CONNINFO]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "store/db.h"

/* One row's first column as an integer (-1: no row, or an error). */
static int64_t q_int(struct db *d, const char *sql) {
  struct db_stmt *st = d->ops->prepare(d, sql);
  if (!st)
    return -1;
  int64_t v = d->ops->step(st) == 1 ? d->ops->col_int(st, 0) : -1;
  d->ops->finalize(st);
  return v;
}

static void conformance(struct db *d, const char *name) {
  const struct db_ops *o = d->ops;
  printf("# %s (%s)\n", name, o->name);
  CHECK_EQ(o->exec(d, "DROP TABLE IF EXISTS conf_t"), 0);
  CHECK_EQ(o->exec(d, "CREATE TABLE conf_t (k TEXT PRIMARY KEY, n BIGINT NOT NULL, note TEXT)"), 0);

  /* parameters: text, integers at their extremes, NULL; a statement run again */
  struct db_stmt *ins = o->prepare(d, "INSERT INTO conf_t (k, n, note) VALUES ($1, $2, $3)");
  CHECK(ins != NULL);
  if (!ins)
    return;
  static const char hostile[] = "it's \"quoted\"\ttab\nline; DROP TABLE conf_t; --";
  const struct {
    const char *k;
    int64_t n;
    const char *note;
  } rows[] = {{"max", INT64_MAX, "x"}, {"min", INT64_MIN, NULL}, {hostile, 7, hostile}};
  for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    CHECK_EQ(o->bind_text(ins, 1, rows[i].k), 0);
    CHECK_EQ(o->bind_int(ins, 2, rows[i].n), 0);
    CHECK_EQ(o->bind_text(ins, 3, rows[i].note), 0);
    CHECK_EQ(o->step(ins), 0);
    o->reset(ins);
  }
  /* the same key again: an error, said, and the statement usable after */
  o->bind_text(ins, 1, "max");
  o->bind_int(ins, 2, 1);
  o->bind_text(ins, 3, NULL);
  CHECK_EQ(o->step(ins), -1);
  CHECK(o->error(d) && o->error(d)[0]);
  o->finalize(ins);

  /* rows column by column */
  struct db_stmt *sel = o->prepare(d, "SELECT n, note FROM conf_t WHERE k = $1");
  CHECK(sel != NULL);
  if (sel) {
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      o->bind_text(sel, 1, rows[i].k);
      CHECK_EQ(o->step(sel), 1);
      CHECK(o->col_int(sel, 0) == rows[i].n);
      const char *note = o->col_text(sel, 1);
      CHECK(rows[i].note ? note && strcmp(note, rows[i].note) == 0 : note == NULL);
      CHECK_EQ(o->step(sel), 0);
      o->reset(sel);
    }
    o->bind_text(sel, 1, "absent");
    CHECK_EQ(o->step(sel), 0);
    o->finalize(sel);
  }

  /* bulk rows (text columns, NULL among them) */
  CHECK_EQ(o->exec(d, "BEGIN"), 0);
  CHECK_EQ(o->copy_begin(d, "conf_t", 3), 0);
  for (int i = 0; i < 1000; i++) {
    char k[16], n[24];
    snprintf(k, sizeof(k), "bulk%d", i);
    snprintf(n, sizeof(n), "%d", i);
    const char *v[] = {k, n, i % 2 ? NULL : "even"};
    CHECK_EQ(o->copy_row(d, v, 3), 0);
  }
  CHECK_EQ(o->copy_end(d), 0);
  CHECK_EQ(o->exec(d, "COMMIT"), 0);
  CHECK_EQ(q_int(d, "SELECT count(*) FROM conf_t WHERE k LIKE 'bulk%'"), 1000);
  CHECK_EQ(q_int(d, "SELECT count(*) FROM conf_t WHERE k LIKE 'bulk%' AND note IS NULL"), 500);
  CHECK_EQ(q_int(d, "SELECT SUMSAT(n) FROM conf_t WHERE k LIKE 'bulk%'"), 999 * 1000 / 2);

  /* SUMSAT stops at INT64_MAX (negative counts count as 0), its argument's
   * parentheses matched */
  CHECK(q_int(d, "SELECT SUMSAT(n) FROM conf_t") == INT64_MAX);
  CHECK(q_int(d, "SELECT SUMSAT(COALESCE((n), (0))) FROM conf_t WHERE k <> 'min'") == INT64_MAX);

  /* a rollback leaves nothing */
  CHECK_EQ(o->exec(d, "BEGIN"), 0);
  CHECK_EQ(o->exec(d, "DELETE FROM conf_t"), 0);
  CHECK_EQ(o->exec(d, "ROLLBACK"), 0);
  CHECK_EQ(q_int(d, "SELECT count(*) FROM conf_t"), 1003);

  /* errors: said, never a crash */
  /* (PostgreSQL's statements are prepared at their first step: the error
   * comes from prepare or from that step) */
  struct db_stmt *bad = o->prepare(d, "SELEKT nonsense");
  CHECK(!bad || o->step(bad) == -1);
  CHECK(o->error(d) && o->error(d)[0]);
  if (bad)
    o->finalize(bad);
  CHECK_EQ(o->exec(d, "INSERT INTO no_such_table VALUES (1)"), -1);
  CHECK_EQ(o->exec(d, "DROP TABLE conf_t"), 0);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s SQLITE-PATH [POSTGRESQL-CONNINFO]\n", argv[0]);
    return 2;
  }
  unlink(argv[1]);
  struct db *s = db_open_sqlite(argv[1], 0);
  CHECK(s != NULL);
  if (s) {
    conformance(s, argv[1]);
    s->ops->close(s);
  }
  if (argc == 3) {
    struct db *p = db_open_pg(argv[2], 0);
    CHECK(p != NULL);
    if (p) {
      conformance(p, "postgresql");
      p->ops->close(p);
    }
  }
  return check_report("test_db_ops");
}
