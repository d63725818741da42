/* SPDX-License-Identifier: MIT */
/* ucov: dispatch to subcommands. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ucov/ucov.h"

static const char usage[] =
    "usage: ucov COMMAND [ARGS]\n"
    "\n"
    "Coverage for C programs: KCOV-style tracing, with the tools around it.\n"
    "\n"
    "commands:\n"
    "  cc          compile and link with ucov instrumentation (a compiler wrapper)\n"
    "  symbolize   turn PCs (and a module map) into function+offset\n"
    "  ls          list the objects of a running target (--pid N, or --serial PATH)\n"
    "  pull        copy a running target's coverage into a directory\n"
    "  reset       reset a running target's counters\n"
    "  run         run a target and collect its coverage at exit and on an interval\n"
    "  report      turn coverage (pulled, .gcda, .profraw, lcov, JSON) into reports\n"
    "  merge       add up coverage inputs into one lcov tracefile or ucov JSON\n"
    "  mount       show a running target's coverage as files (FUSE), like debugfs\n"
    "  trace       run a command in a kernel on a serial line, print the PCs it ran\n"
    "  exec        run a command in a kernel on a serial line, print its answer\n"
    "\n"
    "Run 'ucov COMMAND --help' for a command's options.\n";

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

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return UCOV_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "cc") == 0)
    return cmd_cc(argc - 1, argv + 1);
  if (strcmp(cmd, "symbolize") == 0)
    return cmd_symbolize(argc - 1, argv + 1);
  if (strcmp(cmd, "ls") == 0)
    return cmd_ls(argc - 1, argv + 1);
  if (strcmp(cmd, "pull") == 0)
    return cmd_pull(argc - 1, argv + 1);
  if (strcmp(cmd, "trace") == 0)
    return cmd_trace(argc - 1, argv + 1);
  if (strcmp(cmd, "exec") == 0)
    return cmd_exec(argc - 1, argv + 1);
  if (strcmp(cmd, "reset") == 0)
    return cmd_reset(argc - 1, argv + 1);
  if (strcmp(cmd, "run") == 0)
    return cmd_run(argc - 1, argv + 1);
  if (strcmp(cmd, "report") == 0)
    return cmd_report(argc - 1, argv + 1);
  if (strcmp(cmd, "merge") == 0)
    return cmd_merge(argc - 1, argv + 1);
  if (strcmp(cmd, "mount") == 0) {
#ifdef UCOV_HAVE_FUSE
    return cmd_mount(argc - 1, argv + 1);
#else
    fprintf(stderr, "ucov: built without FUSE: configured with -DUCOV_WITH_FUSE=OFF; install "
                    "libfuse3-dev and rebuild for ucov mount\n");
    return UCOV_EXIT_FAIL;
#endif
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage, stdout);
    return UCOV_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("ucov %s\n", UCOV_VERSION);
    return UCOV_EXIT_OK;
  }
  fprintf(stderr, "ucov: unknown command '%s'\n%s", cmd, usage);
  return UCOV_EXIT_USAGE;
}
