/* SPDX-License-Identifier: MIT */
/*
 * ucov run [-o DIR] [--interval SECONDS] -- PROG ARGS: run a ucov target,
 * pull its objects into DIR every SECONDS while it runs, and have it write
 * the final tree into DIR when it exits (UCOV_EXIT_DIR). Exits with PROG's
 * status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "readers/inputs.h"
#include "base/subprocess.h"
#include "base/util.h"
#include "store/store.h"

static const char run_usage[] =
    "usage: ucov run [-o DIR] [--interval SECONDS] [--store URL [--test NAME]] -- PROG\n"
    "                [ARGS...]\n"
    "\n"
    "Run PROG (built with `ucov cc --gcov`), collect its coverage into DIR\n"
    "(default ucov-out) as `ucov pull` lays it out: every SECONDS while it runs\n"
    "(--interval) and when it exits. Exits with PROG's exit status.\n"
    "\n"
    "  --store URL          then push the run's coverage into a coverage store\n"
    "                       (without -o, from a directory of its own, removed after)\n"
    "  --test NAME, --shard S, --revision R, --config C: the push's context and\n"
    "                       build\n";

static int link_one(const char *path, const struct stat *st, int type, struct FTW *ftw, void *arg) {
  const char *tree_root = arg;
  (void)st;
  (void)ftw;
  size_t n = strlen(tree_root);
  if (type == FTW_F && strncmp(path, tree_root, n) == 0 && path[n] == '/')
    link_notes(tree_root, path + n + 1);
  return 0;
}

/* ucov run's options. */
struct run_opts {
  const char *out, *store;
  struct store_push meta;
  double interval;
};

/* The options: -1 to go on (optind at PROG), else the exit status. */
static int run_options(int argc, char **argv, struct run_opts *o) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"interval", required_argument, 0, 'i'},
                                       {"store", required_argument, 0, 's'},
                                       {"test", required_argument, 0, 't'},
                                       {"shard", required_argument, 0, 'S'},
                                       {"revision", required_argument, 0, 'r'},
                                       {"config", required_argument, 0, 'C'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+o:i:h", opts, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'o':
      o->out = optarg;
      break;
    case 's':
      o->store = optarg;
      break;
    case 't':
      o->meta.test = optarg;
      break;
    case 'S':
      o->meta.shard = optarg;
      break;
    case 'r':
      o->meta.revision = optarg;
      break;
    case 'C':
      o->meta.config = optarg;
      break;
    case 'i':
      o->interval = strtod(optarg, &end);
      if (*end || o->interval <= 0) {
        UCOV_ERR("bad interval '%s'\n", optarg);
        return UCOV_EXIT_USAGE;
      }
      break;
    case 'h':
      fputs(run_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_bad_option(argc, argv, opts);
    }
  }
  if (optind >= argc) {
    UCOV_ERR("no PROG to run\n");
    return cli_try_help();
  }
  if (!o->store && (o->meta.test || o->meta.shard || o->meta.revision || o->meta.config)) {
    UCOV_ERR("--test, --shard, --revision and --config go with --store\n");
    return cli_try_help();
  }
  return -1;
}

/* Wait for pid, pulling its objects into dir every `interval` seconds (0:
 * never). 0 with its wait status, or -1 (said). */
static int run_wait(pid_t pid, const char *dir, double interval, int *status) {
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    pid_t w = waitpid(pid, status, interval > 0 ? WNOHANG : 0);
    if (w == pid)
      return 0;
    if (w < 0 && errno != EINTR) {
      UCOV_ERR("waitpid: %s\n", strerror(errno));
      return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double due = (double)(now.tv_sec - next.tv_sec) + (double)(now.tv_nsec - next.tv_nsec) / 1e9;
    if (due >= interval) {
      if (due > 0 || next.tv_sec != now.tv_sec)
        pull_objects(pid, NULL, dir, 0, NULL, 0, 1); /* may fail while the target starts */
      next = now;
      next.tv_sec += (time_t)interval;
      next.tv_nsec += (long)((interval - (double)(time_t)interval) * 1e9);
      if (next.tv_nsec >= 1000000000L) {
        next.tv_sec++;
        next.tv_nsec -= 1000000000L;
      }
    }
    usleep(20000);
  }
}

int cmd_run(int argc, char **argv) {
  struct run_opts o = {0};
  int rc = run_options(argc, argv, &o);
  if (rc >= 0)
    return rc;
  char tmpdir[] = "/tmp/ucov-run.XXXXXX";
  if (!o.out && o.store && !(o.out = mkdtemp(tmpdir))) {
    UCOV_ERR("a directory for the run: %s\n", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  if (!o.out)
    o.out = "ucov-out";
  char dir[PATH_MAX];
  if ((mkdir(o.out, 0755) != 0 && errno != EEXIST) || !realpath(o.out, dir)) {
    diag_at(DIAG_ERROR, o.out, 0, "%s", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  pid_t pid = fork();
  if (pid < 0) {
    UCOV_ERR("fork: %s\n", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  if (pid == 0) {
    setenv("UCOV_EXIT_DIR", dir, 1);
    execvp(argv[optind], argv + optind);
    diag_at(DIAG_ERROR, argv[optind], 0, "%s", strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (run_wait(pid, dir, o.interval, &status))
    return UCOV_EXIT_FAIL;
  if (ucov_walk(dir, link_one, (void *)dir))
    diag_at(DIAG_ERROR, dir, 0, "not walked whole (%s): notes files may be missing",
            strerror(errno));
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!o.store) {
    UCOV_ERR("%s exited with status %d; coverage in %s\n", argv[optind], code, dir);
    return code;
  }
  struct store *st = NULL;
  struct input_opts in = {0};
  int pushed = cli_push_tree(&st, o.store, dir, &o.meta, &in, 0);
  store_close(st);
  UCOV_ERR("%s exited with status %d%s\n", argv[optind], code,
           pushed ? "; its coverage is NOT in the store" : "");
  if (o.out == tmpdir)
    rm_tree(dir);
  return pushed && !code ? UCOV_EXIT_FAIL : code;
}
