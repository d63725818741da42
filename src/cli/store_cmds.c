/* SPDX-License-Identifier: MIT */
/* ucov push | store init | who | history | tests-for: the coverage store's
 * commands (ucov report --store is in report.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "diffcov/diff.h"
#include "base/md5.h"
#include "base/util.h"
#include "readers/readers.h"
#include "readers/inputs.h"
#include "base/model.h"
#include "report_opts.h"
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
    "first, and when each first reached it (its earliest push that counted the\n"
    "line, UTC; - when not known). FILE is a source path or its ending (src/a.c).\n"
    "\n"
    "  --store URL          the store (default $UCOV_STORE, else ./ucov.db)\n"
    "  --build B            only this build's counts (number, revision or\n"
    "                       REVISION/CONFIG, a build-id of one of its programs)\n"
    "  -h, --help\n";

static const char history_usage[] =
    "usage: ucov history [--store URL] [--path P | --test NAME]\n"
    "\n"
    "Line coverage per build, oldest first: build, revision, when, lines hit,\n"
    "lines found, percentage. With --test, that test's (a fuzzing campaign's)\n"
    "reach over time: each push that first counted lines, functions or branches\n"
    "(UTC), the lines reached so far, how many were new, the functions and the\n"
    "branches reached so far.\n"
    "\n"
    "  --store URL          the store (default $UCOV_STORE, else ./ucov.db)\n"
    "  --path P             only source paths containing P\n"
    "  --test NAME          one test's reach over time\n"
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
static const char *history_test; /* ucov history --test NAME */

static int parse(int argc, char **argv, const char *usage, const char **store, const char **path,
                 const char **build) {
  static const struct option opts[] = {
      {"store", required_argument, 0, 's'}, {"path", required_argument, 0, 'p'},
      {"build", required_argument, 0, 'b'}, {"test", required_argument, 0, 't'},
      {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
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
    case 't':
      if (usage != history_usage) {
        UCOV_ERR("--test is an option of ucov history here\n");
        return cli_try_help(), -1;
      }
      history_test = optarg;
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
  struct store *s = store_open(url);
  if (!s || store_init(s)) {
    store_close(s);
    return UCOV_EXIT_FAIL;
  }
  UCOV_ERR("the store is ready (%s)\n", store_engine(s));
  store_close(s);
  return UCOV_EXIT_OK;
}

/* Test names, revisions and paths come from whoever pushed: escaped (a TAB
 * or a newline in one would forge a column or a row), as ls does. */
static void print_who(void *arg, const char *path, const char *test, uint64_t count,
                      int64_t first) {
  (void)arg;
  print_escaped(stdout, test && *test ? test : "(no test name)");
  printf("\t%" PRIu64 "\t", count);
  print_escaped(stdout, path);
  char when[32] = "-";
  time_t t = (time_t)first;
  struct tm tm;
  if (first > 0 && gmtime_r(&t, &tm))
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
  printf("\t%s\n", when);
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
  struct store *s = store_open_existing(url);
  struct store_filter f = {.build = build};
  int unknown = s ? cli_who_unknown(s, argv[i]) : -1;
  if (unknown || store_who(s, &f, argv[i], (uint32_t)line, print_who, NULL)) {
    store_close(s);
    return UCOV_EXIT_FAIL; /* (a file the store does not know is an error, said) */
  }
  return store_close(s) ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
}

static void print_history(void *arg, int64_t build, const char *revision, int64_t created,
                          uint64_t found, uint64_t hit) {
  (void)arg;
  char when[32];
  time_t t = (time_t)created;
  struct tm tm;
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  printf("%" PRId64 "\t", build);
  print_escaped(stdout, revision && *revision ? revision : "-");
  printf("\t%s\t%" PRIu64 "\t%" PRIu64 "\t%.2f%%\n", when, hit, found,
         found ? 100.0 * (double)hit / (double)found : 0.0);
}

/* time, then lines so far, lines new then, functions so far, branches so far */
static void print_reach(void *arg, const struct store_reach_point *p) {
  uint64_t *sum = arg;
  char when[32];
  time_t t = (time_t)p->at;
  struct tm tm;
  strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
  for (int k = 0; k < 3; k++)
    sum[k] += p->n[k];
  printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", when, sum[0], p->n[0], sum[1],
         sum[2]);
}

int cmd_history(int argc, char **argv) {
  const char *url = NULL, *path = NULL;
  int i = parse(argc, argv, history_usage, &url, &path, NULL);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (i != argc || (path && history_test)) {
    UCOV_ERR(i != argc ? "unexpected argument '%s'\n" : "--path or --test, not both\n",
             argv[i < argc ? i : 0]);
    return cli_try_help();
  }
  struct store *s = store_open_existing(url);
  uint64_t sum[3] = {0};
  if (!s || (history_test ? store_reach(s, history_test, print_reach, sum)
                          : store_history(s, path, print_history, NULL))) {
    store_close(s);
    return UCOV_EXIT_FAIL;
  }
  return store_close(s) ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
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
  print_escaped(stdout, test && *test ? test : "(no test name)");
  printf("\t%" PRIu64 "\t%" PRIu64 "\n", lines, hits);
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
  struct udiff *u;
  if (udiff_read(diff, &u))
    return UCOV_EXIT_FAIL;
  struct touched t = {0};
  udiff_touched(u, add_touched, &t);
  int status = UCOV_EXIT_OK;
  struct store *s = NULL;
  struct store_filter f = {.build = build};
  if (t.oom) {
    UCOV_ERR("out of memory\n");
    status = UCOV_EXIT_FAIL;
  } else if (!(s = store_open_existing(url)) ||
             store_tests_for(s, &f, t.paths, t.lines, t.n, print_test, NULL)) {
    status = UCOV_EXIT_FAIL;
  }
  if (store_close(s))
    status = UCOV_EXIT_FAIL;
  free(t.paths);
  free(t.lines);
  udiff_free(u);
  return status;
}

static const char push_usage[] =
    "usage: ucov push INPUT... [--store URL] [--test NAME] [--shard S] [--revision R]\n"
    "                 [--config C]\n"
    "\n"
    "Add coverage INPUTs (anything `ucov report` reads) to a coverage store, under\n"
    "a build (--revision and --config: every program pushed for them, a test\n"
    "program each, is one build) and a context (--test, --shard, this host, the\n"
    "hour). The notes files (.gcno) of the build tree that no run reached are\n"
    "pushed at zero. Counts add up; the same push again counts once. An\n"
    "input that cannot be read (a .gcda whose stamp does not match its notes, a\n"
    "corrupt file) refuses the whole push: nothing is stored.\n"
    "\n"
    "  --store URL          a SQLite file (sqlite:PATH or a path; default $UCOV_STORE,\n"
    "                       else ./ucov.db) or postgresql://... (libpq)\n"
    "  --test NAME          the test these counts are from\n"
    "  --shard S            the shard, machine or job they are from\n"
    "  --revision R         the sources' revision (a commit)\n"
    "  --config C           the build's configuration (debug, asan, ...), if several\n"
    "  --binary, --modules, --prefix-map, --include, --exclude, --gcov-tool,\n"
    "  --no-demangle: as for ucov report\n"
    "  -q, --quiet\n"
    "  -h, --help\n";

/* cli_run_stamp's lines, one per data file. */
struct stamp_lines {
  char **v;
  size_t n, cap;
  const char *root;
};

static int stamp_add(struct stamp_lines *l, const char *path, const struct stat *st) {
  size_t n = strlen(path);
  if (n > 5 && strcmp(path + n - 5, ".gcno") == 0)
    return 0; /* notes: the build's, not the run's */
  if (UCOV_GROW(l->v, l->cap, l->n, 64))
    return -1;
  const char *rel = strncmp(path, l->root, strlen(l->root)) == 0 ? path + strlen(l->root) : path;
  if (asprintf(&l->v[l->n], "%s\t%ju\t%ju\t%lld.%09ld\t%lld", rel, (uintmax_t)st->st_dev,
               (uintmax_t)st->st_ino, (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec,
               (long long)st->st_size) < 0)
    return -1;
  l->n++;
  return 0;
}

static int stamp_one(const char *path, const struct stat *st, int type, struct FTW *ftw,
                     void *arg) {
  (void)ftw;
  return type == FTW_F && S_ISREG(st->st_mode) ? stamp_add(arg, path, st) : 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int cli_run_stamp(char *const *paths, int n, char out[33]) {
  struct md5 c;
  int err = 0;
  md5_init(&c);
  for (int i = 0; i < n && !err; i++) {
    struct stamp_lines l = {.root = paths[i]};
    struct stat st;
    if (lstat(paths[i], &st) != 0)
      continue; /* (not a file: the readers say what it is) */
    if (S_ISDIR(st.st_mode))
      err = ucov_walk(paths[i], stamp_one, &l);
    else if (S_ISREG(st.st_mode))
      err = stamp_add(&l, paths[i], &st);
    if (err)
      diag_at(DIAG_ERROR, paths[i], 0, "%s", strerror(errno ? errno : ENOMEM));
    qsort(l.v, l.n, sizeof(*l.v), cmp_str);
    md5_update(&c, paths[i], strlen(paths[i]) + 1);
    for (size_t k = 0; k < l.n; k++) {
      md5_update(&c, l.v[k], strlen(l.v[k]) + 1);
      free(l.v[k]);
    }
    free(l.v);
  }
  md5_hex(&c, out);
  return err ? -1 : 0;
}

/* A push's progress on a terminal: rows staged, then the merge. */
static void push_progress(void *arg, uint64_t done, uint64_t total) {
  (void)arg;
  fprintf(stderr, "\r%s: %" PRIu64 " of %" PRIu64 " rows staged%s", ucov_cmd, done, total,
          done == total ? ", merging...\n" : "");
}

/* One push, said on stderr. An exit status. */
static int push_one(struct store *st, const struct cov_model *m, const struct store_push *p,
                    int quiet) {
  struct diag_context then = {.after = ": nothing pushed"};
  diag_context_begin(&then);
  int r = store_push(st, m, p);
  diag_context_end(&then);
  if (r < 0)
    return UCOV_EXIT_FAIL;
  if (!quiet) {
    struct cov_summary sum;
    cov_summary(m, &sum);
    const char *t = p->test && *p->test ? p->test : NULL;
    if (r == 1)
      UCOV_ERR("%s%s%salready in the store (the same push): counted once\n", t ? "test " : "",
               t ? t : "", t ? ": " : "");
    else
      UCOV_ERR("pushed %s%s%s%zu files, %" PRIu64 " lines, %" PRIu64 " functions, %" PRIu64
               " branches into %s\n",
               t ? "test " : "", t ? t : "", t ? ": " : "", m->n_files, sum.lines_found,
               sum.funcs_found, sum.branches_found, store_engine(st));
  }
  return UCOV_EXIT_OK;
}

/* The checks of push's options after report_parse: first, or -1 (said). */
static int push_checks(int first, int argc, const struct outputs *out) {
  if (first >= 0 && optind >= argc) {
    UCOV_ERR("no INPUT\n");
    cli_try_help();
    return -1;
  }
  if (first >= 0 && (only_for("ucov report --store", "build", out->build) ||
                     only_for("ucov report --store", "since", out->since)))
    return -1;
  if (first >= 0 && out->n_tests > 1) {
    UCOV_ERR("one --test per push\n");
    cli_try_help();
    return -1;
  }
  if (first >= 0 && (outputs_any(out) || out->n_baselines || out->diff || out->diff_base)) {
    UCOV_ERR("push writes no report: the outputs are ucov report's\n");
    cli_try_help();
    return -1;
  }
  return first;
}

/* An lcov tracefile's test names (TN:) are contexts of their own, unless
 * --test names one for everything: the inputs that are tracefiles
 * (is_lcov[i - first]) and their names, once each (malloc'd). */
static void push_test_names(char **argv, int first, int argc, int *is_lcov, char ***names,
                            size_t *n_names) {
  for (int i = first; is_lcov && i < argc; i++) {
    char **t;
    size_t nt;
    struct stat sb;
    size_t l = strlen(argv[i]);
    if (stat(argv[i], &sb) || !S_ISREG(sb.st_mode) || l < 5 || strcmp(argv[i] + l - 5, ".info") ||
        lcov_tests(argv[i], &t, &nt))
      continue;
    is_lcov[i - first] = 1;
    for (size_t k = 0; k < nt; k++) {
      size_t j = 0;
      while (j < *n_names && strcmp((*names)[j], t[k]))
        j++;
      if (j < *n_names || !*t[k] || !grow_list((void **)names, (int)*n_names)) {
        free(t[k]);
        continue;
      }
      (*names)[(*n_names)++] = t[k];
    }
    free(t);
  }
}

/* With test names: the other inputs, and the tracefiles' records without a
 * name, into m. The problems reported. */
static int push_read_unnamed(struct cov_model *m, char **argv, int first, int argc,
                             const int *is_lcov, const struct input_opts *in) {
  int bad = 0;
  struct input_session *s = input_session_new(in);
  for (int i = first; s && i < argc; i++)
    bad += is_lcov[i - first] ? lcov_read_test(m, argv[i], "") : input_read(s, m, argv[i]);
  if (s) {
    bad += input_add_build_notes(s);
    bad += input_finish(s, m);
    input_session_free(s);
  } else {
    UCOV_ERR("out of memory\n");
    bad++;
  }
  cov_finish(m);
  return bad;
}

/* Each test name's records from the tracefiles, a push each (m's path
 * rules). The exit status. */
static int push_named(struct store *st, const struct cov_model *m, struct store_push *p, int quiet,
                      char **names, size_t n_names, char **argv, int first, int argc,
                      const int *is_lcov) {
  int status = UCOV_EXIT_OK, bad = 0;
  for (size_t k = 0; status == UCOV_EXIT_OK && k < n_names; k++) {
    struct cov_model t;
    cov_init(&t);
    t.maps = m->maps, t.n_maps = m->n_maps, t.include = m->include, t.n_include = m->n_include;
    t.exclude = m->exclude, t.n_exclude = m->n_exclude, t.no_demangle = m->no_demangle;
    for (int i = first; i < argc; i++)
      if (is_lcov[i - first])
        bad += lcov_read_test(&t, argv[i], names[k]);
    cov_finish(&t);
    p->test = names[k];
    status = bad ? UCOV_EXIT_FAIL : push_one(st, &t, p, quiet);
    t.maps = NULL, t.n_maps = t.n_include = t.n_exclude = 0, t.include = t.exclude = NULL;
    cov_free(&t);
  }
  return status;
}

int cmd_push(int argc, char **argv) {
  struct cov_model m;
  struct input_opts in = {0};
  struct outputs out = {.excl = {.markers = 0, .cmd = "ucov push"}};
  int quiet = 0;
  cov_init(&m);
  int first =
      push_checks(report_parse(argc, argv, push_usage, &m, &in, &out, NULL, &quiet), argc, &out);
  if (first < 0) {
    report_release(&m, &in, &out);
    return UCOV_EXIT_USAGE;
  }
  char **names = NULL;
  size_t n_names = 0;
  int *is_lcov = calloc((size_t)(argc - first) + 1, sizeof(*is_lcov));
  if (!out.n_tests)
    push_test_names(argv, first, argc, is_lcov, &names, &n_names);
  /* the gcov units read natively: their counters are stored with the lines */
  struct store_units units = {0};
  in.unit = store_units_add, in.unit_arg = &units;
  m.path_seen = store_units_path, m.path_seen_arg = &units;
  int bad = !n_names ? report_read_inputs(&m, argc, argv, first, &in, &out.excl, 1)
                     : push_read_unnamed(&m, argv, first, argc, is_lcov, &in);
  int status = UCOV_EXIT_OK;
  char *ids = NULL;
  struct store *st = NULL;
  struct diag_context then = {.after = ": nothing pushed"};
  if (bad) {
    UCOV_ERR("%d input%s could not be read: nothing pushed\n", bad, bad == 1 ? "" : "s");
    status = UCOV_EXIT_FAIL;
  } else {
    diag_context_begin(&then);
    if (!(st = store_open(out.store)) ||
        store_build_ids(in.binaries, in.n_binaries, argv + first, argc - first, &ids))
      status = UCOV_EXIT_FAIL;
    diag_context_end(&then);
  }
  char stamp[33] = "";
  if (status == UCOV_EXIT_OK && cli_run_stamp(argv + first, argc - first, stamp))
    status = UCOV_EXIT_FAIL;
  struct store_push p = {.test = out.n_tests ? out.tests[0] : NULL,
                         .run = stamp,
                         .shard = out.shard,
                         .revision = out.revision,
                         .config = out.config,
                         .build_ids = ids,
                         .root = m.root,
                         .units = &units,
                         .progress = !quiet && isatty(2) ? push_progress : NULL};
  if (status == UCOV_EXIT_OK && (m.n_files || !n_names))
    status = push_one(st, &m, &p, quiet);
  p.units = NULL;
  if (status == UCOV_EXIT_OK) /* then each test name's records, a push each */
    status = push_named(st, &m, &p, quiet, names, n_names, argv, first, argc, is_lcov);
  for (size_t k = 0; k < n_names; k++)
    free(names[k]);
  free(names);
  free(is_lcov);
  free(ids);
  store_close(st);
  store_units_free(&units);
  report_release(&m, &in, &out);
  return status;
}
