/* SPDX-License-Identifier: MIT */
/* ucov ls and ucov reset: a target's objects listed, or reset. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "posix/beneath.h"
#include "proto/client.h"
#include "proto/protocol.h"

static const char ls_usage[] =
    "usage: ucov ls [--pid N | --serial PATH | --dev PATH]\n"
    "\n"
    "List the objects of a running ucov target: size in bytes, name (control\n"
    "characters and backslashes escaped as \\n, \\t, \\xNN, \\\\).\n"
    "Without --pid or --serial: the live targets of this user, pid and program.\n"
    "  --serial PATH  a target on a serial line (a kernel): a Unix socket (QEMU's\n"
    "                 -serial unix:PATH,server) or a terminal device\n"
    "  --dev PATH     a target behind a device that takes request frames and\n"
    "                 answers them (ucov.ko's /dev/ucov, in the kernel it runs in)\n";
static const char reset_usage[] = "usage: ucov reset --pid N | --serial PATH | --dev PATH "
                                  "[NAME...]\n"
                                  "\n"
                                  "Reset the counters of a running ucov target (all, or the "
                                  "NAMEs).\nReset never writes live counters: later reads "
                                  "report counts since the reset.\n";

/* ucov ls without a target: one line per live target, "PID\tPROGRAM" ("?"
 * for one that did not say, with the reason on stderr). */
#define LS_ALL_MS 1500

static void print_target(pid_t pid, const char *info, const char *why, void *arg) {
  (void)arg;
  char exe[4096] = "?";
  const char *e = info ? strstr(info, "exe=") : NULL;
  if (e && (e == info || e[-1] == '\n'))
    snprintf(exe, sizeof(exe), "%.*s", (int)strcspn(e + 4, "\n"), e + 4);
  if (!info) {
    char *w = cli_escaped(why);
    UCOV_ERR("%s\n", w ? w : "(out of memory)");
    free(w);
  }
  printf("%d\t", (int)pid);
  print_escaped(stdout, exe);
  putchar('\n');
}

/* Options of ls and reset: the target, --help. Returns optind or -1 (said). */
static int parse_target(int argc, char **argv, const char *usage, struct cli_target *t,
                        int optional) {
  static const struct option opts[] = {
      CLI_TARGET_OPTIONS, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:s:d:h", opts, NULL)) != -1) {
    int r = cli_target_option(t, c, optarg, CLI_TARGET_ANY);
    if (r > 0)
      continue;
    if (r == 0 && c == 'h') {
      fputs(usage, stdout);
      exit(UCOV_EXIT_OK);
    }
    cli_try_help();
    return -1;
  }
  if (cli_target_check(t, optional)) {
    cli_try_help();
    return -1;
  }
  return optind;
}

int cmd_ls(int argc, char **argv) {
  struct cli_target t = {0};
  int i = parse_target(argc, argv, ls_usage, &t, 1);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (i != argc) {
    UCOV_ERR("unexpected argument '%s'\n", argv[i]);
    return cli_try_help();
  }
  if (!t.pid && !t.serial) {
    if (ucov_ctl_info_all(LS_ALL_MS, print_target, NULL)) {
      UCOV_ERR("out of memory\n");
      return UCOV_EXIT_FAIL;
    }
    return UCOV_EXIT_OK;
  }
  struct ucov_ctl c;
  if (cli_target_open(&t, &c))
    return UCOV_EXIT_FAIL;
  struct ucov_ctl_object *objs;
  long n = cli_list_objects(&c, &objs, 0);
  ucov_ctl_close(&c);
  if (n < 0)
    return UCOV_EXIT_FAIL;
  for (long k = 0; k < n; k++) {
    printf("%" PRIu64 "\t", objs[k].size);
    print_escaped(stdout, objs[k].name);
    putchar('\n');
  }
  ucov_ctl_objects_free(objs, n);
  return UCOV_EXIT_OK;
}

int cmd_reset(int argc, char **argv) {
  struct cli_target t = {0};
  int i = parse_target(argc, argv, reset_usage, &t, 0);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  struct ucov_ctl c;
  if (cli_target_open(&t, &c))
    return UCOV_EXIT_FAIL;
  int status = UCOV_EXIT_OK;
  for (int k = i; k < argc || k == i; k++) {
    struct ucov_ctl_reply r;
    char err[512];
    int all = i == argc;
    if (ucov_ctl_call(&c, all ? UCOV_OP_RESET_ALL : UCOV_OP_RESET, all ? NULL : argv[k],
                      all ? 0 : strlen(argv[k]), &r, err, sizeof(err))) {
      UCOV_ERR("%s\n", err);
      status = UCOV_EXIT_FAIL;
      break;
    }
    if (r.status) {
      err_target(all ? "reset" : argv[k], (char *)r.data);
      status = UCOV_EXIT_FAIL;
    }
    ucov_ctl_reply_free(&r);
    if (all)
      break;
  }
  ucov_ctl_close(&c);
  return status;
}
