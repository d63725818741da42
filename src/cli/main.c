/* SPDX-License-Identifier: MIT */
/* ucov: dispatch to subcommands. */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ucov/ucov.h"

#ifndef UCOV_HAVE_FUSE
static int no_mount(int argc, char **argv) {
  (void)argc;
  (void)argv;
  UCOV_ERR("built without FUSE: configured with -DUCOV_WITH_FUSE=OFF; install "
           "libfuse3-dev and rebuild for ucov mount\n");
  return UCOV_EXIT_FAIL;
}
#define cmd_mount no_mount
#endif

/* The commands, in the order `ucov --help` lists them. */
static const struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *what;
} commands[] = {
    {.name = "cc",
     .run = cmd_cc,
     .what = "compile and link with ucov instrumentation (a compiler wrapper)"},
    {.name = "c++",
     .run = cmd_cxx,
     .what = "the same for C++ (a wrapper of g++ or clang++, as CXX)"},
    {.name = "symbolize",
     .run = cmd_symbolize,
     .what = "turn PCs (and a module map) into function+offset"},
    {.name = "ls",
     .run = cmd_ls,
     .what = "list the objects of a running target (--pid N, or --serial PATH)"},
    {.name = "pull", .run = cmd_pull, .what = "copy a running target's coverage into a directory"},
    {.name = "reset", .run = cmd_reset, .what = "reset a running target's counters"},
    {.name = "run",
     .run = cmd_run,
     .what = "run a target and collect its coverage at exit and on an interval"},
    {.name = "report",
     .run = cmd_report,
     .what = "turn coverage (pulled, .gcda, .profraw, lcov, JSON) into reports"},
    {.name = "merge",
     .run = cmd_merge,
     .what = "add up coverage inputs into one lcov tracefile or ucov JSON"},
    {.name = "push",
     .run = cmd_push,
     .what = "add coverage inputs to a coverage store (SQLite or PostgreSQL)"},
    {.name = "collect",
     .run = cmd_collect,
     .what = "move a running target's coverage into a coverage store, losslessly"},
    {.name = "store",
     .run = cmd_store,
     .what = "create or migrate a coverage store (store init URL)"},
    {.name = "who",
     .run = cmd_who,
     .what = "the tests in a coverage store that ran a line (FILE:LINE)"},
    {.name = "tests-for",
     .run = cmd_tests_for,
     .what = "test selection: the tests in a coverage store a diff touches"},
    {.name = "history",
     .run = cmd_history,
     .what = "line coverage per build, from a coverage store"},
    {.name = "mount",
     .run = cmd_mount,
     .what = "show a running target's coverage as files (FUSE), like debugfs"},
    {.name = "trace",
     .run = cmd_trace,
     .what = "run a command in a kernel on a serial line, print the PCs it ran"},
    {.name = "exec",
     .run = cmd_exec,
     .what = "run a command in a kernel on a serial line, print its answer"},
    {.name = "relay",
     .run = cmd_relay,
     .what = "carry the protocol between a serial line and a frame device"},
};

static void usage(FILE *f) {
  fputs("usage: ucov COMMAND [ARGS]\n"
        "\n"
        "Coverage for C programs: KCOV-style tracing, with the tools around it.\n"
        "\n"
        "commands:\n",
        f);
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].what);
  fputs("\nRun 'ucov help COMMAND' (or 'ucov COMMAND --help') for a command's options.\n", f);
}

const char *cli_self_dir(void) {
  static char dir[PATH_MAX];
  if (!dir[0]) {
    ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
    if (n <= 0) {
      strcpy(dir, ".");
      return dir;
    }
    dir[n] = 0;
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
      *slash = 0;
  }
  return dir;
}

int cli_try_help(void) {
  fprintf(stderr, "Try '%s --help' for more information.\n", ucov_cmd);
  return UCOV_EXIT_USAGE;
}

/* Edit distance of a and b (insert, delete, replace one character; b short). */
static size_t distance(const char *a, const char *b) {
  size_t nb = strlen(b), row[128];
  if (nb >= sizeof(row) / sizeof(row[0]))
    return SIZE_MAX;
  for (size_t j = 0; j <= nb; j++)
    row[j] = j;
  for (size_t i = 1; a[i - 1]; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[nb];
}

int cli_bad_option(int argc, char **argv, const struct option *opts) {
  const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
  if (arg && !strncmp(arg, "--", 2) && arg[2]) {
    char name[128];
    snprintf(name, sizeof(name), "%s", arg + 2);
    name[strcspn(name, "=")] = 0;
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    for (const struct option *o = opts; o->name; o++) {
      size_t d = distance(name, o->name);
      if (d < best_d)
        best_d = d, best = o->name;
    }
    size_t near = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    if (best && best_d && best_d <= near)
      UCOV_ERR("did you mean --%s?\n", best);
  }
  return cli_try_help();
}

static const struct command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(name, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

/* Run a command as "ucov NAME": its messages (getopt's too) say so. */
static int run(const struct command *c, int argc, char **argv) {
  static char self[64];
  snprintf(self, sizeof(self), "ucov %s", c->name);
  ucov_cmd = self;
  argv[0] = self;
  return c->run(argc, argv);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    UCOV_ERR("no COMMAND\n");
    return cli_try_help();
  }
  const char *cmd = argv[1];
  const struct command *c = find_command(cmd);
  if (c)
    return run(c, argc - 1, argv + 1);
  if (strcmp(cmd, "help") == 0 && argc > 2) {
    /* ucov help CMD: that command's --help */
    if (!(c = find_command(argv[2]))) {
      UCOV_ERR("unknown command '%s'\n", argv[2]);
      return cli_try_help();
    }
    char *help[] = {argv[2], "--help", NULL};
    return run(c, 2, help);
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return UCOV_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("ucov %s\n", UCOV_VERSION);
    return UCOV_EXIT_OK;
  }
  UCOV_ERR("unknown command '%s'\n", cmd);
  return cli_try_help();
}
