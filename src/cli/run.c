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

/* (Long: options, then the target's life in order: start, periodic pulls, the exit tree, the
 * push.) */
int cmd_run(int argc, char **argv) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"interval", required_argument, 0, 'i'},
                                       {"store", required_argument, 0, 's'},
                                       {"test", required_argument, 0, 't'},
                                       {"shard", required_argument, 0, 'S'},
                                       {"revision", required_argument, 0, 'r'},
                                       {"config", required_argument, 0, 'C'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  const char *out = NULL, *store = NULL;
  struct store_push meta = {0};
  double interval = 0;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+o:i:h", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      out = optarg;
      break;
    case 's':
      store = optarg;
      break;
    case 't':
      meta.test = optarg;
      break;
    case 'S':
      meta.shard = optarg;
      break;
    case 'r':
      meta.revision = optarg;
      break;
    case 'C':
      meta.config = optarg;
      break;
    case 'i': {
      char *end;
      interval = strtod(optarg, &end);
      if (*end || interval <= 0) {
        UCOV_ERR("bad interval '%s'\n", optarg);
        return UCOV_EXIT_USAGE;
      }
      break;
    }
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
  if (!store && (meta.test || meta.shard || meta.revision || meta.config)) {
    UCOV_ERR("--test, --shard, --revision and --config go with --store\n");
    return cli_try_help();
  }
  char tmpdir[] = "/tmp/ucov-run.XXXXXX";
  if (!out && store && !(out = mkdtemp(tmpdir))) {
    UCOV_ERR("a directory for the run: %s\n", strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  if (!out)
    out = "ucov-out";
  char dir[PATH_MAX];
  if (mkdir(out, 0755) != 0 && errno != EEXIST) {
    UCOV_ERR("%s: %s\n", out, strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  if (!realpath(out, dir)) {
    UCOV_ERR("%s: %s\n", out, strerror(errno));
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
    UCOV_ERR("%s: %s\n", argv[optind], strerror(errno));
    _exit(127);
  }
  int status = 0;
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    pid_t w = waitpid(pid, &status, interval > 0 ? WNOHANG : 0);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      UCOV_ERR("waitpid: %s\n", strerror(errno));
      return UCOV_EXIT_FAIL;
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
  if (ucov_walk(dir, link_one, (void *)dir))
    UCOV_ERR("%s: not walked whole (%s): notes files may be missing\n", dir, strerror(errno));
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!store) {
    UCOV_ERR("%s exited with status %d; coverage in %s\n", argv[optind], code, dir);
    return code;
  }
  struct store *st = NULL;
  struct input_opts in = {0};
  int pushed = cli_push_tree(&st, store, dir, &meta, &in, 0);
  store_close(st);
  UCOV_ERR("%s exited with status %d%s\n", argv[optind], code,
           pushed ? "; its coverage is NOT in the store" : "");
  if (out == tmpdir)
    rm_tree(dir);
  return pushed && !code ? UCOV_EXIT_FAIL : code;
}
