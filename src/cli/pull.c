/* SPDX-License-Identifier: MIT */
/*
 * ucov ls | pull | reset --pid N: the control plane from the command line.
 * pull writes objects under DIR with their names as paths (DIR/gcov/<absolute
 * build path>/x.gcda, DIR/modules), as debugfs shows them, with a .gcno link
 * beside each .gcda whose notes file exists, ready for gcov, lcov and gcovr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "posix/client.h"
#include "posix/protocol.h"

static const char ls_usage[] =
    "usage: ucov ls --pid N | --serial PATH\n"
    "\n"
    "List the objects of a running ucov target: size in bytes, name.\n"
    "  --serial PATH  a target on a serial line (a kernel): a Unix socket (QEMU's\n"
    "                 -serial unix:PATH,server) or a terminal device\n";
static const char pull_usage[] =
    "usage: ucov pull --pid N | --serial PATH [-o DIR] [--reset] [NAME...]\n"
    "\n"
    "Copy objects of a running ucov target (all of them, or the NAMEs) into DIR\n"
    "(default ucov-PID, or ucov-serial), named as `ucov ls` shows them:\n"
    "DIR/gcov/<build path>/x.gcda\n"
    "(with a .gcno link when the notes file exists) and DIR/modules.\n"
    "\n"
    "  -p, --pid N    the target process\n"
    "  -s, --serial PATH  a target on a serial line (a kernel): a Unix socket or a tty\n"
    "  -o, --output DIR\n"
    "  -r, --reset    reset each object to what was read, atomically (nothing lost)\n"
    "  -h, --help\n";
static const char reset_usage[] = "usage: ucov reset --pid N | --serial PATH [NAME...]\n"
                                  "\n"
                                  "Reset the counters of a running ucov target (all, or the "
                                  "NAMEs).\nReset never writes live counters: later reads "
                                  "report counts since the reset.\n";

/* --serial PATH: the target is on a serial line instead of a process. */
static const char *serial;

/* Common options: --pid, --serial, -o, --reset, --help. Returns optind or -1 (usage printed). */
static int parse_opts(int argc, char **argv, const char *usage, pid_t *pid, const char **out,
                      int *reset) {
  static const struct option opts[] = {
      {"pid", required_argument, 0, 'p'},    {"serial", required_argument, 0, 's'},
      {"output", required_argument, 0, 'o'}, {"reset", no_argument, 0, 'r'},
      {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  int c;
  *pid = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, out ? "p:s:o:rh" : "p:s:h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      serial = optarg;
      break;
    case 'p':
      if (parse_pid(optarg, pid)) {
        fprintf(stderr, "ucov: bad pid '%s'\n", optarg);
        return -1;
      }
      break;
    case 'o':
      if (!out)
        goto usage;
      *out = optarg;
      break;
    case 'r':
      if (!reset)
        goto usage;
      *reset = 1;
      break;
    case 'h':
      fputs(usage, stdout);
      exit(UCOV_EXIT_OK);
    default:
      goto usage;
    }
  }
  if (!*pid == !serial) {
    fprintf(stderr, "ucov: one of --pid and --serial is required\n");
    goto usage;
  }
  return optind;
usage:
  fputs(usage, stderr);
  return -1;
}

/* LIST, decoded. Returns the count or -1 (message printed). */
static long list_objects(struct ctl *c, struct ctl_object **objs, int quiet) {
  struct ctl_reply r;
  char err[512];
  if (ctl_call(c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err))) {
    if (!quiet)
      fprintf(stderr, "ucov: %s\n", err);
    return -1;
  }
  long n = r.status ? -1 : ctl_parse_list(&r, objs);
  if (r.status && !quiet)
    fprintf(stderr, "ucov: list: %s\n", (char *)r.data);
  else if (n < 0 && !r.status)
    fprintf(stderr, "ucov: list: malformed reply\n");
  ctl_reply_free(&r);
  return n;
}

static int connect_or_fail(pid_t pid, struct ctl *c) {
  char err[512];
  if (ctl_open_target(pid, serial, c, err, sizeof(err))) {
    fprintf(stderr, "ucov: %s\n", err);
    return -1;
  }
  return 0;
}

int cmd_ls(int argc, char **argv) {
  pid_t pid;
  if (parse_opts(argc, argv, ls_usage, &pid, NULL, NULL) < 0)
    return UCOV_EXIT_USAGE;
  struct ctl c;
  if (connect_or_fail(pid, &c))
    return UCOV_EXIT_FAIL;
  struct ctl_object *objs;
  long n = list_objects(&c, &objs, 0);
  ctl_close(&c);
  if (n < 0)
    return UCOV_EXIT_FAIL;
  for (long i = 0; i < n; i++)
    printf("%" PRIu64 "\t%s\n", objs[i].size, objs[i].name);
  ctl_objects_free(objs, n);
  return UCOV_EXIT_OK;
}

/* An object name is a relative path without empty, "." or ".." components. */
int object_name_is_safe(const char *name) {
  if (!*name || *name == '/')
    return 0;
  for (const char *p = name; *p;) {
    const char *e = strchr(p, '/');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
      return 0;
    p += len + (e ? 1 : 0);
    if (e && !*p)
      return 0; /* trailing slash */
  }
  return 1;
}

/* mkdir -p of path's parent directories. */
static int make_parents(const char *path) {
  char *d = strdup(path);
  for (char *p = d + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(d, 0755) != 0 && errno != EEXIST) {
      free(d);
      return -1;
    }
    *p = '/';
  }
  free(d);
  return 0;
}

int write_object_file(const char *dir, const char *name, const void *data, size_t len,
                      const struct timespec *unless_newer) {
  char *path = NULL, *tmp = NULL;
  int ret = -1;
  if (asprintf(&path, "%s/%s", dir, name) < 0 || asprintf(&tmp, "%s.tmp%d", path, getpid()) < 0)
    goto out;
  if (make_parents(path))
    goto out;
  struct stat st;
  if (unless_newer && stat(path, &st) == 0 &&
      (st.st_mtim.tv_sec > unless_newer->tv_sec ||
       (st.st_mtim.tv_sec == unless_newer->tv_sec && st.st_mtim.tv_nsec > unless_newer->tv_nsec))) {
    ret = 0; /* written since we asked (the target's final tree): keep it */
    goto out;
  }
  FILE *f = fopen(tmp, "wb");
  if (!f)
    goto out;
  int ok = fwrite(data, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    goto out;
  }
  ret = 0;
out:
  if (ret)
    fprintf(stderr, "ucov: %s/%s: %s\n", dir, name, strerror(errno));
  free(path);
  free(tmp);
  return ret;
}

void link_notes(const char *dir, const char *name) {
  size_t n = strlen(name);
  if (strncmp(name, "gcov/", 5) != 0 || n < 10 || strcmp(name + n - 5, ".gcda") != 0)
    return;
  char *notes = NULL, *link = NULL;
  if (asprintf(&notes, "/%.*s.gcno", (int)(n - 10), name + 5) >= 0 &&
      asprintf(&link, "%s/%.*s.gcno", dir, (int)(n - 5), name) >= 0 && access(notes, R_OK) == 0) {
    unlink(link);
    if (symlink(notes, link) != 0)
      fprintf(stderr, "ucov: %s: %s\n", link, strerror(errno));
  }
  free(notes);
  free(link);
}

int pull_objects(pid_t pid, const char *serial_path, const char *dir, int reset, char **names,
                 int nnames, int quiet) {
  /* In quiet mode (ucov run) the target writes its final tree into dir at exit;
   * a pull answered before that must not overwrite it. */
  struct timespec asked;
  clock_gettime(CLOCK_REALTIME, &asked);
  struct ctl c;
  char err[512];
  if (ctl_open_target(pid, serial_path, &c, err, sizeof(err))) {
    if (!quiet)
      fprintf(stderr, "ucov: %s\n", err);
    return UCOV_EXIT_FAIL;
  }
  struct ctl_object *objs = NULL;
  long n = 0;
  if (nnames == 0) {
    n = list_objects(&c, &objs, quiet);
    if (n < 0) {
      ctl_close(&c);
      return UCOV_EXIT_FAIL;
    }
  }
  int status = UCOV_EXIT_OK;
  uint64_t bytes = 0;
  long pulled = 0;
  for (long i = 0; i < (nnames ? nnames : n); i++) {
    const char *name = nnames ? names[i] : objs[i].name;
    if (!object_name_is_safe(name)) {
      fprintf(stderr, "ucov: refusing object name '%s'\n", name);
      status = UCOV_EXIT_FAIL;
      continue;
    }
    int can_reset = reset && strcmp(name, "modules") != 0;
    struct ctl_reply r;
    if (ctl_call(&c, can_reset ? UCOV_OP_READ_AND_RESET : UCOV_OP_READ, name, strlen(name), &r, err,
                 sizeof(err))) {
      if (!quiet)
        fprintf(stderr, "ucov: %s\n", err);
      status = UCOV_EXIT_FAIL;
      break;
    }
    if (r.status) {
      if (!quiet)
        fprintf(stderr, "ucov: %s: %s\n", name, (char *)r.data);
      status = UCOV_EXIT_FAIL;
    } else if (write_object_file(dir, name, r.data, r.len, quiet ? &asked : NULL) == 0) {
      link_notes(dir, name);
      bytes += r.len;
      pulled++;
    } else {
      status = UCOV_EXIT_FAIL;
    }
    ctl_reply_free(&r);
  }
  ctl_objects_free(objs, n);
  if (!quiet)
    fprintf(stderr, "ucov: pulled %ld objects (%" PRIu64 " bytes) from %s into %s\n", pulled, bytes,
            c.label, dir);
  ctl_close(&c);
  return status;
}

int cmd_pull(int argc, char **argv) {
  pid_t pid;
  const char *out = NULL;
  int reset = 0;
  int i = parse_opts(argc, argv, pull_usage, &pid, &out, &reset);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  char defdir[64];
  if (!out) {
    if (serial)
      snprintf(defdir, sizeof(defdir), "ucov-serial");
    else
      snprintf(defdir, sizeof(defdir), "ucov-%d", (int)pid);
    out = defdir;
  }
  return pull_objects(pid, serial, out, reset, argv + i, argc - i, 0);
}

int cmd_reset(int argc, char **argv) {
  pid_t pid;
  int i = parse_opts(argc, argv, reset_usage, &pid, NULL, NULL);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  struct ctl c;
  if (connect_or_fail(pid, &c))
    return UCOV_EXIT_FAIL;
  int status = UCOV_EXIT_OK;
  for (int k = i; k < argc || k == i; k++) {
    struct ctl_reply r;
    char err[512];
    int all = i == argc;
    if (ctl_call(&c, all ? UCOV_OP_RESET_ALL : UCOV_OP_RESET, all ? NULL : argv[k],
                 all ? 0 : strlen(argv[k]), &r, err, sizeof(err))) {
      fprintf(stderr, "ucov: %s\n", err);
      status = UCOV_EXIT_FAIL;
      break;
    }
    if (r.status) {
      fprintf(stderr, "ucov: %s: %s\n", all ? "reset" : argv[k], (char *)r.data);
      status = UCOV_EXIT_FAIL;
    }
    ctl_reply_free(&r);
    if (all)
      break;
  }
  ctl_close(&c);
  return status;
}
