/* SPDX-License-Identifier: MIT */
/* ucov store init | who | history: the coverage store's own commands (ucov push
 * and ucov report --store are in report.c). */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "report/diff.h"
#include "store/store.h"

static const char store_usage[] =
    "usage: ucov store init [URL]\n"
    "\n"
    "Create a coverage store's schema, or migrate an older one (pushes into a new\n"
    "store create it too). URL: a SQLite file (sqlite:PATH or a path; default\n"
    "$UCOV_STORE, else ./ucov.db) or postgresql://... (libpq). docs/store.md.\n"
    "\n"
    "  --store URL          the same as URL\n"
    "  -h, --help\n";

static const char who_usage[] =
    "usage: ucov who FILE:LINE [--store URL] [--build B]\n"
    "\n"
    "The tests whose counts in the store ran that line, with their hits, most\n"
    "first. FILE is a source path or its ending (src/a.c).\n"
    "\n"
    "  --store URL          the store (default $UCOV_STORE, else ./ucov.db)\n"
    "  --build B            only this build's counts (number, revision or\n"
    "                       REVISION/CONFIG, a build-id of one of its programs)\n"
    "  -h, --help\n";

static const char history_usage[] =
    "usage: ucov history [--store URL] [--path P]\n"
    "\n"
    "Line coverage per build, oldest first: build, revision, when, lines hit,\n"
    "lines found, percentage.\n"
    "\n"
    "  --store URL          the store (default $UCOV_STORE, else ./ucov.db)\n"
    "  --path P             only source paths containing P\n"
    "  -h, --help\n";

static const char tests_for_usage[] =
    "usage: ucov tests-for --diff FILE [--store URL] [--build B]\n"
    "\n"
    "Test selection: the tests in the store that ran the lines a change touches\n"
    "(FILE: a unified diff from the stored revision, git diff -U0 REV): every line\n"
    "it deletes or changes, and the lines around what it inserts. One test a line:\n"
    "name, lines of the change it ran, its hits on them; most lines first.\n"
    "\n"
    "  --diff FILE          the change\n"
    "  --store URL          the store (default $UCOV_STORE, else ./ucov.db)\n"
    "  --build B            only this build's counts (number, revision or\n"
    "                       REVISION/CONFIG, a build-id of one of its programs)\n"
    "  -h, --help\n";

/* --store URL, --path P, --build B and -h: the operands' index, or -1 (a
 * usage error said). path, build: NULL where the command has no such option. */
static int parse(int argc, char **argv, const char *usage, const char **store, const char **path,
                 const char **build) {
  static const struct option opts[] = {{"store", required_argument, 0, 's'},
                                       {"path", required_argument, 0, 'p'},
                                       {"build", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      *store = optarg;
      break;
    case 'p':
      if (!path) {
        UCOV_ERR("--path is an option of ucov history\n");
        return cli_try_help(), -1;
      }
      *path = optarg;
      break;
    case 'b':
      if (!build) {
        UCOV_ERR("--build is an option of ucov who, report and tests-for\n");
        return cli_try_help(), -1;
      }
      *build = optarg;
      break;
    case 'h':
      fputs(usage, stdout);
      exit(UCOV_EXIT_OK);
    default:
      return cli_bad_option(argc, argv, opts), -1;
    }
  }
  return optind;
}

int cmd_store(int argc, char **argv) {
  const char *url = NULL;
  int i = parse(argc, argv, store_usage, &url, NULL, NULL);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (i >= argc || strcmp(argv[i], "init") || argc - i > 2 || (url && argc - i == 2)) {
    UCOV_ERR(i >= argc ? "no action (init)\n" : "unexpected '%s'\n", argv[i < argc ? i : 0]);
    return cli_try_help();
  }
  if (argc - i == 2)
    url = argv[i + 1];
  char msg[512];
  struct store *s = store_open(url, msg, sizeof(msg));
  if (!s || store_init(s, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    store_close(s);
    return UCOV_EXIT_FAIL;
  }
  UCOV_ERR("the store is ready (%s)\n", store_engine(s));
  store_close(s);
  return UCOV_EXIT_OK;
}

static void print_who(void *arg, const char *path, const char *test, uint64_t count) {
  (void)arg;
  printf("%s\t%" PRIu64 "\t%s\n", test && *test ? test : "(no test name)", count, path);
}

int cmd_who(int argc, char **argv) {
  const char *url = NULL, *build = NULL;
  int i = parse(argc, argv, who_usage, &url, NULL, &build);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  char *colon = i == argc - 1 ? strrchr(argv[i], ':') : NULL, *end;
  unsigned long line = colon ? strtoul(colon + 1, &end, 10) : 0;
  if (!colon || colon == argv[i] || !colon[1] || *end || !line || line > UINT32_MAX) {
    UCOV_ERR("wants one FILE:LINE\n");
    return cli_try_help();
  }
  *colon = 0;
  char msg[512];
  struct store *s = store_open_existing(url, msg, sizeof(msg));
  struct store_filter f = {.build = build};
  if (!s || store_who(s, &f, argv[i], (uint32_t)line, print_who, NULL, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    store_close(s);
    return UCOV_EXIT_FAIL;
  }
  store_close(s);
  return UCOV_EXIT_OK;
}

static void print_history(void *arg, int64_t build, const char *revision, int64_t created,
                          uint64_t found, uint64_t hit) {
  (void)arg;
  char when[32];
  time_t t = (time_t)created;
  struct tm tm;
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  printf("%" PRId64 "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%.2f%%\n", build,
         revision && *revision ? revision : "-", when, hit, found,
         found ? 100.0 * (double)hit / (double)found : 0.0);
}

int cmd_history(int argc, char **argv) {
  const char *url = NULL, *path = NULL;
  int i = parse(argc, argv, history_usage, &url, &path, NULL);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (i != argc) {
    UCOV_ERR("unexpected argument '%s'\n", argv[i]);
    return cli_try_help();
  }
  char msg[512];
  struct store *s = store_open_existing(url, msg, sizeof(msg));
  if (!s || store_history(s, path, print_history, NULL, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    store_close(s);
    return UCOV_EXIT_FAIL;
  }
  store_close(s);
  return UCOV_EXIT_OK;
}

struct touched {
  const char **paths;
  uint32_t *lines;
  size_t n, cap;
  int oom;
};

static void add_touched(void *arg, const char *path, uint32_t line) {
  struct touched *t = arg;
  if (t->n == t->cap) {
    size_t c = t->cap ? 2 * t->cap : 256;
    const char **p = realloc(t->paths, c * sizeof(*p));
    if (p)
      t->paths = p;
    uint32_t *l = p ? realloc(t->lines, c * sizeof(*l)) : NULL;
    if (!l) {
      t->oom = 1;
      return;
    }
    t->lines = l;
    t->cap = c;
  }
  t->paths[t->n] = path;
  t->lines[t->n++] = line;
}

static void print_test(void *arg, const char *test, uint64_t lines, uint64_t hits) {
  (void)arg;
  printf("%s\t%" PRIu64 "\t%" PRIu64 "\n", test && *test ? test : "(no test name)", lines, hits);
}

int cmd_tests_for(int argc, char **argv) {
  static const struct option opts[] = {{"diff", required_argument, 0, 'd'},
                                       {"store", required_argument, 0, 's'},
                                       {"build", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *diff = NULL, *url = NULL, *build = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case 'd':
      diff = optarg;
      break;
    case 's':
      url = optarg;
      break;
    case 'b':
      build = optarg;
      break;
    case 'h':
      fputs(tests_for_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_bad_option(argc, argv, opts);
    }
  }
  if (!diff || optind != argc) {
    UCOV_ERR(diff ? "unexpected argument '%s'\n" : "needs --diff FILE\n",
             argv[optind < argc ? optind : 0]);
    return cli_try_help();
  }
  char msg[512];
  struct udiff *u;
  if (udiff_read(diff, &u, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    return UCOV_EXIT_FAIL;
  }
  struct touched t = {0};
  udiff_touched(u, add_touched, &t);
  int status = UCOV_EXIT_OK;
  struct store *s = NULL;
  struct store_filter f = {.build = build};
  if (t.oom) {
    UCOV_ERR("out of memory\n");
    status = UCOV_EXIT_FAIL;
  } else if (!(s = store_open_existing(url, msg, sizeof(msg))) ||
             store_tests_for(s, &f, t.paths, t.lines, t.n, print_test, NULL, msg, sizeof(msg))) {
    UCOV_ERR("%s\n", msg);
    status = UCOV_EXIT_FAIL;
  }
  store_close(s);
  free(t.paths);
  free(t.lines);
  udiff_free(u);
  return status;
}
