/* SPDX-License-Identifier: MIT */
/*
 * The coverage store: coverage models pushed into a database (SQLite or
 * PostgreSQL) with their build and context (test, shard, host, hour), summed
 * by the engine, read back as a model for any report, and asked which tests
 * ran a line. docs/store.md has the schema.
 */
#ifndef UCOV_STORE_STORE_H
#define UCOV_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/model.h"

struct store;

/*
 * A store URL: "postgresql://..." or "postgres://..." (libpq), "sqlite:PATH"
 * or any other path (SQLite). NULL: $UCOV_STORE, else ./ucov.db. NULL with
 * msg when it cannot be opened.
 */
struct store *store_open(const char *url);
/* The same for reading: a store that is not there (no SQLite file, no
 * schema in the database) is an error, and nothing is created or changed
 * (SQLite: opened read-only; PostgreSQL: read-only transactions). */
struct store *store_open_existing(const char *url);
/* 0, or -1 (said) when a reader's store changed under it: read again. */
int store_close(struct store *s);
const char *store_engine(const struct store *s);

/* Create the schema, or migrate an older one to this version. 0 or -1 (msg). */
int store_init(struct store *s);

/*
 * The gcov units a push read natively, as input_opts.unit (store_units_add)
 * and the model's path_seen (store_units_path) tell them: each unit's notes
 * file, the .gcda files read with it, and where each of its sources went.
 * A push stores their notes and summed counters, so that a report of many
 * pushes derives their lines from the sums: gcov's line counts (its loop
 * rule) do not add up across runs, its counters do.
 */
struct store_unit;
struct store_units {
  struct store_unit *v;
  size_t n, cap;
  size_t *slots, n_slots; /* index by notes path: unit + 1 */
  size_t cur;             /* the unit being read (path_seen's) */
  int oom;
};
int store_units_add(void *units, const char *gcno, const char *gcda);
void store_units_path(void *units, const char *raw, const char *path);
void store_units_free(struct store_units *u);

struct store_push {
  const char *test, *shard, *host, *revision; /* NULL: "" (host: this machine's name) */
  /* The build is the revision and a configuration name (NULL: ""), whatever
   * programs are pushed for it: a project's test programs are one build. */
  const char *config;
  const char *build_ids; /* the modules' build-ids, sorted, comma-separated ("": none known) */
  /* What this push is, whoever pushes it under whatever test: a push whose
   * identity is stored already adds nothing (a collector's round, retried).
   * NULL: its content and metadata are its identity. */
  const char *identity;
  /* What tells this run's files from another run's with the same counts
   * (cli_run_stamp: the files' identities and change times; NULL: nothing):
   * part of the key beside content and metadata, so that two runs add twice
   * and the same files pushed again add nothing. */
  const char *run;
  const char *root; /* what relative source paths are relative to (NULL: here) */
  /* the gcov units read natively for the model (NULL: none kept): files
   * whose counts all came from them are derived from stored counters */
  const struct store_units *units;
  int64_t when; /* seconds since the epoch (0: now) */
  /* called as rows are staged (NULL: quiet): rows so far of total */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
};

/*
 * Add a finished model's counts under its build and context, in one
 * transaction: all or nothing. A push is keyed (unique, in that transaction)
 * by its identity, or else by the hash of its content and metadata: the same
 * push again is counted once. Returns 0 stored, 1 stored before (nothing
 * added), -1 error (msg; nothing added).
 */
int store_push(struct store *s, const struct cov_model *m, const struct store_push *p);

struct store_filter {
  /* a build's number, revision (REVISION/CONFIG for a configuration's), or a
   * build-id of a program pushed for it (a prefix); NULL: all */
  const char *build;
  const char **tests; /* NULL or n_tests names */
  int n_tests;
  int64_t since; /* contexts from this time on (0: all) */
};

/*
 * The summed counts (lines, functions, branches) that pass the filter, into
 * m (finished after). A path with several contents (revisions) gives the
 * newest's counts; the others are left out and said. 0 or -1 (msg).
 */
int store_read(struct store *s, const struct store_filter *f, struct cov_model *m);

/*
 * The build-ids of a push: the --binary programs' and those of the programs
 * of the pulled trees among the inputs (DIR/modules), sorted, once each,
 * comma-separated, into *out (malloc'd). A --binary whose build-id differs
 * from the module of that name that ran: -1 with msg (the push is refused).
 */
int store_build_ids(const char **bins, int n_bins, char **inputs, int n_inputs, char **out);

/* The tests that ran FILE (a path or its ending) at LINE, most hits first
 * (f: a build, tests, a time; NULL: everything), each with the time of its
 * earliest push that counted the line (first: seconds since the epoch; 0:
 * not known, counts pushed before ucov kept it). */
int store_who(struct store *s, const struct store_filter *f, const char *file, uint32_t line,
              void (*cb)(void *arg, const char *path, const char *test, uint64_t count,
                         int64_t first),
              void *arg);

/* Every source path the store knows, once each, in order, to cb. 0 or -1. */
int store_paths(struct store *s, void (*cb)(void *arg, const char *path), void *arg);

/*
 * Test selection: the tests whose counts (that pass the filter) ran any of
 * the n lines (paths[i] a path or its ending, lines[i]), with how many of
 * those lines each ran and its hits on them, most lines first.
 */
int store_tests_for(struct store *s, const struct store_filter *f, const char *const *paths,
                    const uint32_t *lines, size_t n,
                    void (*cb)(void *arg, const char *test, uint64_t lines, uint64_t hits),
                    void *arg);

/* Every line's tests, as store_who gives them for that line: by path and
 * line, each line's tests most hits first (f: NULL, everything). */
int store_line_tests(struct store *s, const struct store_filter *f,
                     void (*cb)(void *arg, const char *path, uint32_t line, const char *test,
                                uint64_t count),
                     void *arg);

/* A test's (a campaign's) reach over time, from the first pushes that
 * counted each line, function and branch (first_at): at each such time, how
 * many of each were first counted then (n: lines, functions, branches). */
struct store_reach_point {
  int64_t at;
  uint64_t n[3];
};
/* The points, oldest first, to cb. An unknown test is an error (said). 0 or -1. */
int store_reach(struct store *s, const char *test,
                void (*cb)(void *arg, const struct store_reach_point *p), void *arg);

/* Line totals per build, oldest first (path: only files whose path contains it). */
int store_history(struct store *s, const char *path,
                  void (*cb)(void *arg, int64_t build, const char *revision, int64_t created,
                             uint64_t found, uint64_t hit),
                  void *arg);

#endif
