/* SPDX-License-Identifier: MIT */
/*
 * The store's SQLite engine under concurrent first use: eight processes
 * open one new file at once (each turns it to WAL) and write a row each,
 * fifty times over. Before the open retried SQLite's immediate "database is
 * locked" (a read lock upgraded to a write lock while another connection
 * did the same), about one file in forty lost a writer. Also: SUMSAT
 * rewritten with its parentheses matched; every statement bounded.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "store/db.h"

#define WRITERS 8
#define ROUNDS 50

static int writer(const char *path) {
  struct db *d = db_open_sqlite(path, 0);
  if (!d)
    return 1; /* (said) */
  int r = d->ops->exec(d, "BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS t (x INTEGER);"
                          "INSERT INTO t VALUES (1); COMMIT");
  if (r)
    fprintf(stderr, "write: %s\n", d->ops->error(d));
  d->ops->close(d);
  return r ? 1 : 0;
}

static void test_concurrent_open(const char *dir) {
  int lost = 0, rows = 0;
  for (int round = 0; round < ROUNDS; round++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/c%d.db", dir, round);
    static const char *const tails[] = {"", "-wal", "-shm", "-journal"};
    for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) { /* new: an earlier run's go */
      char old[4200];
      snprintf(old, sizeof(old), "%s%s", path, tails[t]);
      unlink(old);
    }
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
      pids[i] = fork();
      if (pids[i] == 0)
        _exit(writer(path));
    }
    for (int i = 0; i < WRITERS; i++) {
      int st = 0;
      if (pids[i] < 0 || waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st))
        lost++;
    }
    struct db *d = db_open_sqlite(path, 0);
    CHECK(d != NULL);
    if (!d)
      continue;
    struct db_stmt *st = d->ops->prepare(d, "SELECT count(*) FROM t");
    CHECK(st != NULL);
    if (st && d->ops->step(st) == 1)
      rows += (int)d->ops->col_int(st, 0);
    if (st)
      d->ops->finalize(st);
    d->ops->close(d);
  }
  CHECK_EQ(lost, 0);
  CHECK_EQ(rows, WRITERS * ROUNDS);
}

/* No statement runs without a bound: an endless one (a recursive query, as a
 * planted recursive trigger would run) stops after UCOV_STORE_TIMEOUT with
 * an error, both through exec and through a prepared statement. */
static void test_bound(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/bound.db", dir);
  setenv("UCOV_STORE_TIMEOUT", "1", 1);
  struct db *d = db_open_sqlite(path, 0);
  CHECK(d != NULL);
  if (!d)
    return;
  static const char endless[] =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
  time_t t0 = time(NULL);
  CHECK_EQ(d->ops->exec(d, endless), -1);
  struct db_stmt *st = d->ops->prepare(d, endless);
  CHECK(st != NULL);
  if (st) {
    CHECK_EQ(d->ops->step(st), -1);
    d->ops->finalize(st);
  }
  CHECK(time(NULL) - t0 < 30);
  d->ops->close(d);
  unsetenv("UCOV_STORE_TIMEOUT");
}

static void test_sumsat(void) {
  char *r = db_rewrite_sumsat("SELECT SUMSAT(coalesce(a, (b))) FROM t", "s(%s)");
  CHECK(r && strcmp(r, "SELECT s(coalesce(a, (b))) FROM t") == 0);
  free(r);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH-DIR\n", argv[0]);
    return 2;
  }
  test_concurrent_open(argv[1]);
  test_sumsat();
  test_bound(argv[1]);
  return check_report("test_store_db");
}
