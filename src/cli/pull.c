/* SPDX-License-Identifier: MIT */
/*
 * ucov ls | pull | reset --pid N: the control plane from the command line.
 * pull writes objects under DIR with their names as paths (DIR/gcov/<absolute
 * build path>/x.gcda, DIR/modules), as debugfs shows them, with a .gcno link
 * beside each .gcda whose notes file exists, ready for gcov, lcov and gcovr.
 */
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
#include "posix/client.h"
#include "posix/protocol.h"

static const char ls_usage[] =
    "usage: ucov ls [--pid N | --serial PATH]\n"
    "\n"
    "List the objects of a running ucov target: size in bytes, name (control\n"
    "characters and backslashes escaped as \\n, \\t, \\xNN, \\\\).\n"
    "Without --pid or --serial: the live targets of this user, pid and program.\n"
    "  --serial PATH  a target on a serial line (a kernel): a Unix socket (QEMU's\n"
    "                 -serial unix:PATH,server) or a terminal device\n";
static const char pull_usage[] =
    "usage: ucov pull --pid N | --serial PATH [-o DIR] [--reset] [NAME...]\n"
    "       ucov pull --pid N | --serial PATH --xencov FILE [--reset]\n"
    "       ucov pull --pid N --in-place\n"
    "\n"
    "Copy objects of a running ucov target (all of them, or the NAMEs) into DIR\n"
    "(default ucov-PID, or ucov-serial), named as `ucov ls` shows them:\n"
    "DIR/gcov/<build path>/x.gcda\n"
    "(with a .gcno link when the notes file exists), DIR/pgo/<module>.profraw,\n"
    "DIR/kcov/<id>.kcov and DIR/modules; and the kernel docs' names: gcov/reset\n"
    "(empty) with lcov's link gcov/kernel/gcov/base.gcno, so lcov's kernel mode\n"
    "reads the tree (lcov --capture --rc lcov_gcov_dir=DIR/gcov), pgo/profraw\n"
    "(every module's profile) and pgo/reset (empty).\n"
    "\n"
    "  -p, --pid N    the target process\n"
    "  -s, --serial PATH  a target on a serial line (a kernel): a Unix socket or a tty\n"
    "  -o, --output DIR\n"
    "  -r, --reset    reset each object to exactly what was read, in two phases:\n"
    "                 snapshots are written to disk (fsync) before the target\n"
    "                 moves its baselines, so a pull that dies or fails loses no\n"
    "                 count; an interrupted pull is finished by the next one into DIR\n"
    "      --in-place the target writes its .gcda files where its exit would (build\n"
    "                 tree, GCOV_PREFIX), merged, and resets to what it wrote: gcovr,\n"
    "                 lcov -d and IDE plugins read a live snapshot unchanged\n"
    "      --xencov FILE  Xen's coverage blob of every gcov unit into FILE, as\n"
    "                 `xencov read` writes it (xencov_split splits it; ucov report\n"
    "                 reads it); with --reset, read and reset in one request\n"
    "      --recover  only finish the interrupted --reset pulls of this target in DIR:\n"
    "                 committed ones are completed, the others removed (their counts\n"
    "                 are still in the target)\n"
    "  -h, --help\n";
static const char reset_usage[] = "usage: ucov reset --pid N | --serial PATH [NAME...]\n"
                                  "\n"
                                  "Reset the counters of a running ucov target (all, or the "
                                  "NAMEs).\nReset never writes live counters: later reads "
                                  "report counts since the reset.\n";

/* --serial PATH: the target is on a serial line instead of a process. */
static const char *serial;
/* --recover: only finish the interrupted pulls of DIR. */
static int recover_only;
/* --xencov FILE: Xen's coverage blob of every gcov unit, into FILE. */
static const char *xencov_file;
/* --in-place: the target writes its .gcda files where its exit would. */
static int in_place;

/* Common options: --pid, --serial, -o, --reset, --help. Returns optind or -1 (usage printed).
 * Neither --pid nor --serial is an error unless optional_target. */
static int parse_opts_target(int argc, char **argv, const char *usage, pid_t *pid, const char **out,
                             int *reset, int optional_target) {
  static const struct option opts[] = {{"pid", required_argument, 0, 'p'},
                                       {"serial", required_argument, 0, 's'},
                                       {"output", required_argument, 0, 'o'},
                                       {"reset", no_argument, 0, 'r'},
                                       {"help", no_argument, 0, 'h'},
                                       {"recover", no_argument, 0, 'R'},
                                       {"xencov", required_argument, 0, 'X'},
                                       {"in-place", no_argument, 0, 'I'},
                                       {0, 0, 0, 0}};
  int c;
  *pid = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, out ? "p:s:o:rh" : "p:s:h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
      serial = optarg;
      break;
    case 'p':
      if (ucov_parse_pid(optarg, pid)) {
        UCOV_ERR("bad pid '%s'\n", optarg);
        return -1;
      }
      break;
    case 'o':
      if (!out) {
        UCOV_ERR("%s is not an option here\n", argv[optind - 1]);
        goto usage;
      }
      *out = optarg;
      break;
    case 'r':
      if (!reset) {
        UCOV_ERR("%s is not an option here\n", argv[optind - 1]);
        goto usage;
      }
      *reset = 1;
      break;
    case 'R':
      if (!reset) {
        UCOV_ERR("%s is not an option here\n", argv[optind - 1]);
        goto usage;
      }
      recover_only = 1;
      break;
    case 'X':
      if (!reset) {
        UCOV_ERR("%s is not an option here\n", argv[optind - 1]);
        goto usage;
      }
      xencov_file = optarg;
      break;
    case 'I':
      if (!reset) {
        UCOV_ERR("%s is not an option here\n", argv[optind - 1]);
        goto usage;
      }
      in_place = 1;
      break;
    case 'h':
      fputs(usage, stdout);
      exit(UCOV_EXIT_OK);
    default:
      goto usage;
    }
  }
  if (*pid && serial) {
    UCOV_ERR("--pid and --serial exclude each other\n");
    goto usage;
  }
  if (!*pid && !serial && !optional_target) {
    UCOV_ERR("one of --pid and --serial is required\n");
    goto usage;
  }
  return optind;
usage:
  (void)usage;
  cli_try_help();
  return -1;
}

static int parse_opts(int argc, char **argv, const char *usage, pid_t *pid, const char **out,
                      int *reset) {
  return parse_opts_target(argc, argv, usage, pid, out, reset, 0);
}

void print_escaped(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\\')
      fputs("\\\\", f);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

/* ucov ls without a target: one line per live target, "PID\tPROGRAM". */
static int print_target(pid_t pid, void *arg) {
  (void)arg;
  struct ucov_ctl c;
  struct ucov_ctl_reply r;
  char err[512], exe[4096] = "?";
  if (ucov_ctl_open(pid, &c, err, sizeof(err)))
    return 0; /* not ours, or gone meanwhile */
  if (ucov_ctl_call(&c, UCOV_OP_INFO, NULL, 0, &r, err, sizeof(err)) == 0) {
    const char *e = r.status ? NULL : strstr((char *)r.data, "exe=");
    if (e && (e == (char *)r.data || e[-1] == '\n'))
      snprintf(exe, sizeof(exe), "%.*s", (int)strcspn(e + 4, "\n"), e + 4);
    ucov_ctl_reply_free(&r);
  }
  ucov_ctl_close(&c);
  printf("%d\t", (int)pid);
  print_escaped(stdout, exe);
  putchar('\n');
  return 0;
}

/* LIST, decoded. Returns the count or -1 (message printed). */
static long list_objects(struct ucov_ctl *c, struct ucov_ctl_object **objs, int quiet) {
  struct ucov_ctl_reply r;
  char err[512];
  if (ucov_ctl_call(c, UCOV_OP_LIST, NULL, 0, &r, err, sizeof(err))) {
    if (!quiet)
      UCOV_ERR("%s\n", err);
    return -1;
  }
  long n = r.status ? -1 : ucov_ctl_parse_list(&r, objs);
  if (r.status && !quiet)
    UCOV_ERR("list: %s\n", (char *)r.data);
  else if (n < 0 && !r.status)
    UCOV_ERR("list: malformed reply\n");
  ucov_ctl_reply_free(&r);
  return n;
}

static int connect_or_fail(pid_t pid, struct ucov_ctl *c) {
  char err[512];
  if (ucov_ctl_open_target(pid, serial, c, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    return -1;
  }
  return 0;
}

int cmd_ls(int argc, char **argv) {
  pid_t pid;
  int i = parse_opts_target(argc, argv, ls_usage, &pid, NULL, NULL, 1);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (i != argc) {
    UCOV_ERR("unexpected argument '%s'\n", argv[i]);
    return cli_try_help();
  }
  if (!pid && !serial) {
    ucov_ctl_list_targets(print_target, NULL);
    return UCOV_EXIT_OK;
  }
  struct ucov_ctl c;
  if (connect_or_fail(pid, &c))
    return UCOV_EXIT_FAIL;
  struct ucov_ctl_object *objs;
  long n = list_objects(&c, &objs, 0);
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
int make_parents(const char *path) {
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
    UCOV_ERR("%s/%s: %s\n", dir, name, strerror(errno));
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
      UCOV_ERR("%s: %s\n", link, strerror(errno));
  }
  free(notes);
  free(link);
}

/* A reply streamed into an open file; a SNAPSHOT's leading token kept apart. */
struct file_out {
  int fd;
  size_t skip;    /* bytes of token still to come */
  uint8_t tok[8]; /* the token */
  int err;        /* a write failed with this errno */
};

static int to_file(void *arg, const void *data, size_t n) {
  struct file_out *f = arg;
  const char *p = data;
  while (n && f->skip) {
    f->tok[8 - f->skip--] = (uint8_t)*p++;
    n--;
  }
  while (n) {
    ssize_t w = write(f->fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      f->err = w < 0 ? errno : ENOSPC;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The marker of a two-phase pull: DIR/.ucov-pending.<target>.<token>. */
static char *marker_path(const char *dir, const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, "%s/.ucov-pending.%s.%" PRIu64, dir, target, token) < 0 ? NULL : p;
}

/* Where object name is written before it counts: beside its final path. */
static char *tmp_path(const char *dir, const char *name, const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, "%s/%s.ucov-tmp.%s.%" PRIu64, dir, name, target, token) < 0 ? NULL : p;
}

char *pull_snapshot_path(const char *dir, const char *name, const char *target, uint64_t token) {
  return tmp_path(dir, name, target, token);
}

static pull_hook the_hook;
static void *the_hook_arg;

void pull_set_hook(pull_hook hook, void *arg) {
  the_hook = hook;
  the_hook_arg = arg;
}

/* A snapshot the hook did not take: its files and marker go, its counts stay in the target. */
static void drop_snapshot(const char *dir, const char *target, uint64_t token, char **names,
                          long n) {
  for (long i = 0; i < n; i++) {
    char *tmp = tmp_path(dir, names[i], target, token);
    if (tmp)
      unlink(tmp);
    free(tmp);
  }
  char *m = marker_path(dir, target, token);
  if (m)
    unlink(m);
  free(m);
}

static int fsync_parent(const char *path) {
  char *d = strdup(path);
  char *slash = d ? strrchr(d, '/') : NULL;
  int ret = -1;
  if (slash) {
    *slash = 0;
    int fd = open(*d ? d : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      ret = fsync(fd);
      close(fd);
    }
  }
  free(d);
  return ret;
}

/* An identifier of the target for marker names: its pid, or "serial". */
static void target_id(const struct ucov_ctl *c, char *out, size_t len) {
  if (c->serial)
    snprintf(out, len, "serial");
  else
    snprintf(out, len, "%d", (int)c->pid);
}

/*
 * Pull one object into path (a temporary file, created exclusively): READ,
 * or SNAPSHOT under *token (durably: fsync). 0, or -1 with a message
 * printed (unless quiet).
 */
static int pull_into(struct ucov_ctl *c, const char *name, const char *path, uint64_t *token,
                     uint64_t *bytes, int quiet) {
  char err[512];
  if (make_parents(path))
    goto fail_errno;
  struct file_out fo = {open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644),
                        token ? 8 : 0,
                        {0},
                        0};
  if (fo.fd < 0)
    goto fail_errno;
  size_t nl = strlen(name);
  char req[8 + UCOV_PROTO_MAX_REQUEST];
  const void *payload = name;
  size_t plen = nl;
  uint16_t op = UCOV_OP_READ;
  if (token) {
    if (nl > UCOV_PROTO_MAX_REQUEST - 8) {
      close(fo.fd);
      unlink(path);
      if (!quiet)
        UCOV_ERR("object name too long\n");
      return -1;
    }
    for (int i = 0; i < 8; i++)
      req[i] = (char)(*token >> (8 * i));
    memcpy(req + 8, name, nl);
    payload = req;
    plen = 8 + nl;
    op = UCOV_OP_SNAPSHOT;
  }
  struct ucov_ctl_reply r;
  int st = ucov_ctl_call_stream(c, op, payload, plen, -1, &r, to_file, &fo, err, sizeof(err));
  int ok = st == 0 && r.status == 0;
  if (ok && token) { /* the token led the reply */
    ok = r.total >= 8;
    *token = 0;
    for (int i = 0; i < 8; i++)
      *token |= (uint64_t)fo.tok[i] << (8 * i);
  }
  int saved = errno;
  if (ok && token && fsync(fo.fd) != 0)
    ok = 0, saved = errno;
  if (close(fo.fd) != 0 && ok)
    ok = 0, saved = errno;
  if (ok) {
    *bytes += r.total - (token ? 8 : 0);
    ucov_ctl_reply_free(&r);
    return 0;
  }
  unlink(path);
  if (!quiet) {
    if (fo.err)
      UCOV_ERR("%s: %s\n", path, strerror(fo.err));
    else if (st)
      UCOV_ERR("%s\n", err);
    else if (r.status == UCOV_ST_ERRNO && r.len == 4)
      UCOV_ERR("%s: %s\n", name, strerror((int)ucov_get32(r.data)));
    else if (r.status) {
      fprintf(stderr, "%s: ", ucov_cmd);
      print_escaped(stderr, name);
      fputs(": ", stderr);
      print_escaped(stderr, (char *)r.data);
      fputc('\n', stderr);
    } else
      UCOV_ERR("%s: %s\n", path, strerror(saved));
  }
  ucov_ctl_reply_free(&r);
  return st ? -2 : -1; /* -2: the connection is gone */
fail_errno:
  if (!quiet)
    UCOV_ERR("%s: %s\n", path, strerror(errno));
  return -1;
}

/* Rename a pulled temporary file to its object's path, with its .gcno link;
 * unless_newer keeps a final file written after that time (ucov run). */
static int publish(const char *tmp, const char *dir, const char *name,
                   const struct timespec *unless_newer, int durable) {
  char *path = NULL;
  int ret = -1;
  struct stat st;
  if (asprintf(&path, "%s/%s", dir, name) < 0)
    return -1;
  if (unless_newer && stat(path, &st) == 0 &&
      (st.st_mtim.tv_sec > unless_newer->tv_sec ||
       (st.st_mtim.tv_sec == unless_newer->tv_sec && st.st_mtim.tv_nsec > unless_newer->tv_nsec))) {
    unlink(tmp); /* written since we asked (the target's final tree): keep it */
    ret = 0;
  } else if (rename(tmp, path) == 0 && (!durable || fsync_parent(path) == 0)) {
    link_notes(dir, name);
    ret = 0;
  } else {
    UCOV_ERR("%s: %s\n", path, strerror(errno));
  }
  free(path);
  return ret;
}

/* Write the marker of a two-phase pull: "target", "token", then each name,
 * NUL-terminated. Durable before the commit is sent. */
static int write_marker(const char *path, const char *target, uint64_t token, char **names,
                        long n) {
  /* Whole or not at all: written beside, then renamed. */
  char *part = NULL;
  if (asprintf(&part, "%s.part", path) < 0)
    return -1;
  FILE *f = fopen(part, "wb");
  if (!f) {
    free(part);
    return -1;
  }
  fprintf(f, "ucov-pending 1\ntarget %s\ntoken %" PRIu64 "\nobjects %ld\n", target, token, n);
  for (long i = 0; i < n; i++)
    fwrite(names[i], 1, strlen(names[i]) + 1, f);
  int ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok &= fclose(f) == 0;
  ok = ok && rename(part, path) == 0 && fsync_parent(path) == 0;
  if (!ok)
    unlink(part);
  free(part);
  return ok ? 0 : -1;
}

/*
 * COMMIT token for n objects, then act on the answer: committed (now or
 * before) -> the temporary files become the objects; stale -> they are
 * removed (their counts are still in the target); no answer -> all is left
 * for a later recovery. Returns 0 committed, 1 stale, -1 no answer.
 */
static int commit_pull(struct ucov_ctl *c, const char *dir, const char *target, uint64_t token,
                       char **names, long n, int quiet) {
  uint8_t req[12];
  for (int i = 0; i < 8; i++)
    req[i] = (uint8_t)(token >> (8 * i));
  ucov_put32(req + 8, (uint32_t)n);
  struct ucov_ctl_reply r;
  char err[512];
  if (ucov_ctl_call(c, UCOV_OP_COMMIT, req, sizeof(req), &r, err, sizeof(err))) {
    if (!quiet)
      UCOV_ERR("commit: %s\n", err);
    return -1;
  }
  int result = -1;
  if (r.status == UCOV_ST_OK && r.len == 4)
    result = 0;
  else if (r.status == UCOV_ST_ERRNO && r.len == 4)
    result = 1; /* ESTALE or EINVAL: never committed */
  else if (!quiet)
    UCOV_ERR("commit: %s\n", r.status ? (char *)r.data : "malformed reply");
  ucov_ctl_reply_free(&r);
  if (result < 0)
    return -1;
  for (long i = 0; i < n; i++) {
    char *tmp = tmp_path(dir, names[i], target, token);
    if (tmp && result == 0)
      publish(tmp, dir, names[i], NULL, 1);
    else if (tmp)
      unlink(tmp);
    free(tmp);
  }
  char *m = marker_path(dir, target, token);
  if (m) {
    unlink(m);
    fsync_parent(m);
  }
  free(m);
  if (result == 1 && !quiet)
    UCOV_ERR("the target was reset meanwhile: nothing pulled, no count lost\n");
  return result;
}

/*
 * Remove, under dir, the temporary files of this target's two-phase pulls
 * that have no marker: snapshots never committed (their counts are still in
 * the target); and those of plain pulls whose ucov is gone. Runs after the
 * marked ones are finished.
 */
static void remove_orphans(const char *root, const char *dir, const char *target, int depth) {
  DIR *d = opendir(dir);
  if (!d || depth > 64) {
    if (d)
      closedir(d);
    return;
  }
  char infix[64];
  snprintf(infix, sizeof(infix), ".ucov-tmp.%s.", target);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
      continue;
    const char *t = strstr(e->d_name, infix), *plain = strstr(e->d_name, ".ucov-tmp.");
    char *end;
    long owner = plain ? strtol(plain + 10, &end, 10) : 0;
    if (e->d_type == DT_DIR) {
      remove_orphans(root, path, target, depth + 1);
    } else if (owner > 0 && !*end && kill((pid_t)owner, 0) != 0 && errno == ESRCH) {
      unlink(path); /* a plain pull's, whose ucov died */
    } else if (t) {
      uint64_t token = strtoull(t + strlen(infix), NULL, 10);
      char *m = marker_path(root, target, token);
      if (m && access(m, F_OK) != 0)
        unlink(path);
      free(m);
    }
    free(path);
  }
  closedir(d);
}

/* Finish the two-phase pulls of this target that a killed ucov left in dir. */
static void recover_pulls(struct ucov_ctl *c, const char *dir, int quiet) {
  char target[32], prefix[64];
  target_id(c, target, sizeof(target));
  snprintf(prefix, sizeof(prefix), ".ucov-pending.%s.", target);
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
      continue;
    size_t len = strlen(e->d_name);
    if (len > 5 && !strcmp(e->d_name + len - 5, ".part")) {
      unlink(path); /* a marker never finished: its pull never committed */
      free(path);
      continue;
    }
    FILE *f = fopen(path, "rb");
    uint64_t token = 0;
    long n = -1;
    char **names = NULL;
    if (f &&
        fscanf(f, "ucov-pending 1\ntarget %*s\ntoken %" SCNu64 "\nobjects %ld\n", &token, &n) ==
            2 &&
        n >= 0 && n < 1000000) {
      names = calloc((size_t)n + 1, sizeof(*names));
      char buf[UCOV_PROTO_MAX_REQUEST + 1];
      for (long i = 0; names && i < n; i++) {
        size_t k = 0;
        int ch;
        while ((ch = fgetc(f)) > 0 && k < UCOV_PROTO_MAX_REQUEST)
          buf[k++] = (char)ch;
        buf[k] = 0;
        if (ch != 0 || !object_name_is_safe(buf)) {
          n = -1;
          break;
        }
        names[i] = strdup(buf);
      }
    }
    if (f)
      fclose(f);
    if (names && n >= 0) {
      if (!quiet)
        UCOV_ERR("finishing an interrupted pull (%s)\n", e->d_name);
      if (the_hook && the_hook(the_hook_arg, dir, target, token, names, n))
        drop_snapshot(dir, target, token, names, n);
      else
        commit_pull(c, dir, target, token, names, n, quiet);
    }
    for (long i = 0; names && i < n; i++)
      free(names[i]);
    free(names);
    free(path);
  }
  closedir(d);
  remove_orphans(dir, dir, target, 0);
}

/* Does a published name start with prefix and end with suffix? */
static int any_named(char **names, long n, const char *prefix, const char *suffix) {
  for (long i = 0; i < n; i++) {
    size_t l = strlen(names[i]), p = strlen(prefix), x = strlen(suffix);
    if (l > p + x && strncmp(names[i], prefix, p) == 0 && strcmp(names[i] + l - x, suffix) == 0)
      return 1;
  }
  return 0;
}

/*
 * DIR/pgo/profraw: the LLVM profiles this pull wrote, one after the other
 * (llvm-profdata reads raw profiles concatenated), where the Clang PGO
 * kernel docs copy them from: /sys/kernel/debug/pgo/profraw.
 */
static void write_pgo_profraw(const char *dir, char **names, long n) {
  char *all = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&all, &len);
  int any = 0;
  for (long i = 0; mem && i < n; i++) {
    if (!any_named(names + i, 1, "pgo/", ".profraw"))
      continue;
    char *path = NULL;
    FILE *f = asprintf(&path, "%s/%s", dir, names[i]) < 0 ? NULL : fopen(path, "rb");
    free(path);
    if (!f)
      continue;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
      fwrite(buf, 1, k, mem);
    fclose(f);
    any = 1;
  }
  if (mem && fclose(mem) == 0 && any)
    write_object_file(dir, "pgo/profraw", all, len, NULL);
  free(all);
}

/*
 * The kernel docs' names, as a mount shows them and `cp -a` of it copies them:
 * pgo/profraw and an empty pgo/reset beside LLVM profiles; beside gcov data
 * an empty gcov/reset and lcov's build-directory link, so lcov's kernel mode
 * reads the tree (`lcov --capture --rc lcov_gcov_dir=DIR/gcov`), as it reads
 * a copy of /sys/kernel/debug/gcov.
 */
static void write_debugfs_names(const char *dir, char **names, long n) {
  if (any_named(names, n, "pgo/", ".profraw")) {
    write_pgo_profraw(dir, names, n);
    write_object_file(dir, "pgo/reset", "", 0, NULL);
  }
  if (!any_named(names, n, "gcov/", ".gcda"))
    return;
  write_object_file(dir, "gcov/reset", "", 0, NULL);
  char *link = NULL;
  if (asprintf(&link, "%s/%s", dir, UCOV_LCOV_MARKER) < 0)
    return;
  struct stat st;
  if (lstat(link, &st) != 0 &&
      (make_parents(link) != 0 || symlink(UCOV_LCOV_MARKER_TARGET, link) != 0))
    UCOV_ERR("%s: %s\n", link, strerror(errno));
  free(link);
}

int pull_objects(pid_t pid, const char *serial_path, const char *dir, int reset, char **names,
                 int nnames, int quiet) {
  /* In quiet mode (ucov run) the target writes its final tree into dir at exit;
   * a pull answered before that must not overwrite it. */
  struct timespec asked;
  clock_gettime(CLOCK_REALTIME, &asked);
  struct ucov_ctl c;
  char err[512];
  if (ucov_ctl_open_target(pid, serial_path, &c, err, sizeof(err))) {
    if (!quiet)
      UCOV_ERR("%s\n", err);
    return UCOV_EXIT_FAIL;
  }
  char target[32];
  target_id(&c, target, sizeof(target));
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    UCOV_ERR("%s: %s\n", dir, strerror(errno));
    ucov_ctl_close(&c);
    return UCOV_EXIT_FAIL;
  }
  recover_pulls(&c, dir, quiet);
  if (recover_only) {
    ucov_ctl_close(&c);
    return UCOV_EXIT_OK;
  }
  struct ucov_ctl_object *objs = NULL;
  long n = 0;
  if (nnames == 0) {
    n = list_objects(&c, &objs, quiet);
    if (n < 0) {
      ucov_ctl_close(&c);
      return UCOV_EXIT_FAIL;
    }
  }
  long total = nnames ? nnames : n;
  char **snapped = calloc((size_t)total + 1, sizeof(*snapped));
  char **published = calloc((size_t)total + 1, sizeof(*published));
  long nsnapped = 0, npublished = 0;
  uint64_t token = 0;
  int status = snapped ? UCOV_EXIT_OK : UCOV_EXIT_FAIL;
  uint64_t bytes = 0;
  long pulled = 0;
  for (long i = 0; snapped && published && i < total; i++) {
    const char *name = nnames ? names[i] : objs[i].name;
    if (!nnames && strcmp(name, "xencov") == 0)
      continue; /* every gcov unit again, in another form: only by name or --xencov */
    if (!object_name_is_safe(name)) {
      fprintf(stderr, "%s: refusing object name '", ucov_cmd);
      print_escaped(stderr, name);
      fputs("'\n", stderr);
      status = UCOV_EXIT_FAIL;
      continue;
    }
    /* Reset: a snapshot, committed once every file is safe on disk. */
    int two_phase = reset && strcmp(name, "modules") != 0;
    char *tmp = two_phase ? tmp_path(dir, name, target, token ? token : 0) : NULL;
    if (!two_phase && asprintf(&tmp, "%s/%s.ucov-tmp.%d", dir, name, (int)getpid()) < 0)
      tmp = NULL;
    if (!tmp) {
      status = UCOV_EXIT_FAIL;
      break;
    }
    uint64_t t = token;
    int r = pull_into(&c, name, tmp, two_phase ? &t : NULL, &bytes, quiet);
    if (r == 0 && two_phase) {
      if (!token) { /* the first snapshot: its file is named for the new token */
        char *named = tmp_path(dir, name, target, t);
        if (!named || rename(tmp, named) != 0)
          r = -1, unlink(tmp);
        free(tmp);
        tmp = named;
        token = t;
      }
      if (r == 0)
        snapped[nsnapped++] = strdup(name);
    } else if (r == 0) {
      r = publish(tmp, dir, name, quiet ? &asked : NULL, 0);
      if (r == 0 && published)
        published[npublished++] = (char *)name;
    }
    free(tmp);
    if (r == 0)
      pulled++;
    else
      status = UCOV_EXIT_FAIL;
    if (r == -2)
      break; /* the connection is gone */
  }
  if (reset && status != UCOV_EXIT_OK) {
    /* Not every object made it to disk: commit nothing, keep every count. */
    for (long i = 0; i < nsnapped; i++) {
      char *tmp = tmp_path(dir, snapped[i], target, token);
      if (tmp)
        unlink(tmp);
      free(tmp);
    }
    if (!quiet)
      UCOV_ERR("nothing reset: the target keeps every count\n");
    pulled = 0;
  } else if (nsnapped) {
    char *m = marker_path(dir, target, token);
    if (!m || write_marker(m, target, token, snapped, nsnapped) != 0) {
      UCOV_ERR("%s: %s\n", m ? m : dir, strerror(errno));
      status = UCOV_EXIT_FAIL;
    } else if (the_hook && the_hook(the_hook_arg, dir, target, token, snapped, nsnapped)) {
      drop_snapshot(dir, target, token, snapped, nsnapped);
      status = UCOV_EXIT_FAIL; /* (the counts stay in the target for the next time) */
    } else if (commit_pull(&c, dir, target, token, snapped, nsnapped, quiet) != 0) {
      status = UCOV_EXIT_FAIL;
    } else {
      for (long i = 0; published && i < nsnapped; i++)
        published[npublished++] = snapped[i];
    }
    free(m);
  }
  write_debugfs_names(dir, published, npublished);
  free(published);
  for (long i = 0; i < nsnapped; i++)
    free(snapped[i]);
  free(snapped);
  ucov_ctl_objects_free(objs, n);
  if (!quiet)
    UCOV_ERR("pulled %ld objects (%" PRIu64 " bytes) from %s into %s\n", pulled, bytes, c.label,
             dir);
  ucov_ctl_close(&c);
  return status;
}

/*
 * ucov pull --in-place: the target writes every .gcda where its exit would
 * (its build tree, GCOV_PREFIX and GCOV_PREFIX_STRIP as it sees them), merged
 * into what is there, and resets to what it wrote: as __gcov_dump() then
 * __gcov_reset(), so its exit later adds only what came after.
 */
static int pull_in_place(pid_t pid) {
  struct ucov_ctl c;
  char err[512];
  if (ucov_ctl_open_target(pid, serial, &c, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    return UCOV_EXIT_FAIL;
  }
  struct ucov_ctl_reply r;
  int ret = UCOV_EXIT_FAIL;
  if (ucov_ctl_call(&c, UCOV_OP_DUMP, NULL, 0, &r, err, sizeof(err)))
    UCOV_ERR("%s\n", err);
  else if (r.status)
    UCOV_ERR("in place: %s\n", (char *)r.data);
  else
    ret = UCOV_EXIT_OK;
  if (ret == UCOV_EXIT_OK)
    UCOV_ERR("%s wrote its .gcda files where its exit writes them\n", c.label);
  ucov_ctl_reply_free(&r);
  ucov_ctl_close(&c);
  return ret;
}

/* ucov pull --xencov FILE: the "xencov" object, as `xencov read FILE` writes
 * Xen's; with --reset, read and reset in one request (as xencov reset). */
static int pull_xencov(pid_t pid, const char *file, int reset) {
  struct ucov_ctl c;
  char err[512];
  if (ucov_ctl_open_target(pid, serial, &c, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    return UCOV_EXIT_FAIL;
  }
  char *tmp = NULL;
  int ret = UCOV_EXIT_FAIL;
  if (asprintf(&tmp, "%s.ucov-tmp.%d", file, (int)getpid()) < 0) {
    ucov_ctl_close(&c);
    return ret;
  }
  struct file_out fo = {open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 0, {0}, 0};
  struct ucov_ctl_reply r;
  memset(&r, 0, sizeof(r));
  int st = fo.fd < 0 ? -1
                     : ucov_ctl_call_stream(&c, reset ? UCOV_OP_READ_AND_RESET : UCOV_OP_READ,
                                            "xencov", 6, -1, &r, to_file, &fo, err, sizeof(err));
  if (fo.fd < 0 || fo.err)
    UCOV_ERR("%s: %s\n", tmp, strerror(fo.fd < 0 ? errno : fo.err));
  else if (st)
    UCOV_ERR("%s\n", err);
  else if (r.status)
    UCOV_ERR("xencov: %s\n", (char *)r.data);
  else if (close(fo.fd) == 0 && (fo.fd = -1, rename(tmp, file) == 0))
    ret = UCOV_EXIT_OK;
  else
    UCOV_ERR("%s: %s\n", file, strerror(errno));
  if (fo.fd >= 0)
    close(fo.fd);
  if (ret)
    unlink(tmp);
  ucov_ctl_reply_free(&r);
  free(tmp);
  ucov_ctl_close(&c);
  return ret;
}

int cmd_pull(int argc, char **argv) {
  pid_t pid;
  const char *out = NULL;
  int reset = 0;
  int i = parse_opts(argc, argv, pull_usage, &pid, &out, &reset);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (xencov_file)
    return pull_xencov(pid, xencov_file, reset);
  if (in_place)
    return pull_in_place(pid);
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
  struct ucov_ctl c;
  if (connect_or_fail(pid, &c))
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
      UCOV_ERR("%s: %s\n", all ? "reset" : argv[k], (char *)r.data);
      status = UCOV_EXIT_FAIL;
    }
    ucov_ctl_reply_free(&r);
    if (all)
      break;
  }
  ucov_ctl_close(&c);
  return status;
}
