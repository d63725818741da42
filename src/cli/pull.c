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
static const char pull_usage[] =
    "usage: ucov pull --pid N | --serial PATH | --dev PATH [-o DIR] [--reset] [NAME...]\n"
    "       ucov pull --pid N | --serial PATH | --dev PATH --xencov FILE [--reset]\n"
    "       ucov pull --pid N --in-place\n"
    "       ucov pull --resolve publish|discard -o DIR\n"
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
    "  -d, --dev PATH a target behind a frame device (ucov.ko's /dev/ucov)\n"
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
    "                 are still in the target, or in its exit files); also when the\n"
    "                 target is gone. Snapshots whose outcome cannot be known are\n"
    "                 kept aside, never deleted, and said\n"
    "      --resolve publish|discard  with -o DIR and no target: publish the\n"
    "                 snapshots kept aside in DIR, or remove them\n"
    "  -h, --help\n";
static const char reset_usage[] = "usage: ucov reset --pid N | --serial PATH | --dev PATH "
                                  "[NAME...]\n"
                                  "\n"
                                  "Reset the counters of a running ucov target (all, or the "
                                  "NAMEs).\nReset never writes live counters: later reads "
                                  "report counts since the reset.\n";

/* --serial PATH (or --dev PATH): the target is on a serial line, or behind a
 * frame device, instead of a process. */
static const char *serial;
/* --recover: only finish the interrupted pulls of DIR. */
static int recover_only;
/* --xencov FILE: Xen's coverage blob of every gcov unit, into FILE. */
static const char *xencov_file;
/* --in-place: the target writes its .gcda files where its exit would. */
static int in_place;
/* --resolve publish|discard: settle the snapshots kept aside in DIR. */
static const char *resolve;

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
                                       {"resolve", required_argument, 0, 'V'},
                                       {"dev", required_argument, 0, 'd'},
                                       {0, 0, 0, 0}};
  int c;
  *pid = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, out ? "p:s:d:o:rh" : "p:s:d:h", opts, NULL)) != -1) {
    switch (c) {
    case 's':
    case 'd': /* (the same frames; the device is opened as it is) */
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
    case 'V':
      if (!reset || (strcmp(optarg, "publish") && strcmp(optarg, "discard"))) {
        UCOV_ERR(reset ? "--resolve takes publish or discard, not '%s'\n"
                       : "--resolve is not an option here\n",
                 optarg);
        goto usage;
      }
      resolve = optarg;
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
  if (!*pid && !serial && !optional_target && !resolve) {
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

/* n bytes of s, escaped; lines: newlines and tabs kept as they are. */
static void put_escaped(FILE *f, const char *s, size_t n, int lines) {
  for (const unsigned char *p = (const unsigned char *)s; n--; p++) {
    if (lines && (*p == '\n' || *p == '\t'))
      fputc(*p, f);
    else if (*p == '\\' && !lines)
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

void print_escaped(FILE *f, const char *s) {
  put_escaped(f, s, strlen(s), 0);
}

void print_text(FILE *f, const void *s, size_t n) {
  put_escaped(f, s, n, 1);
}

void err_target(const char *what, const char *text) {
  fprintf(stderr, "%s: %s: ", ucov_cmd, what);
  print_escaped(stderr, text);
  fputc('\n', stderr);
}

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
    fprintf(stderr, "%s: ", ucov_cmd);
    print_escaped(stderr, why);
    fputc('\n', stderr);
  }
  printf("%d\t", (int)pid);
  print_escaped(stdout, exe);
  putchar('\n');
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
    err_target("list", (char *)r.data);
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
    if (ucov_ctl_info_all(LS_ALL_MS, print_target, NULL)) {
      UCOV_ERR("out of memory\n");
      return UCOV_EXIT_FAIL;
    }
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

/* Is dir/name newer than t? */
static int newer_than(const char *dir, const char *name, const struct timespec *t) {
  struct stat st;
  return t && ucov_at_lstat(dir, name, &st) == 0 &&
         (st.st_mtim.tv_sec > t->tv_sec ||
          (st.st_mtim.tv_sec == t->tv_sec && st.st_mtim.tv_nsec > t->tv_nsec));
}

/* A new file beneath dir, created exclusively (whatever had its name goes
 * first: a link or a hard link planted there is replaced, not written
 * through), its directories made. */
static int create_beneath(const char *dir, const char *rel) {
  ucov_at_unlink(dir, rel);
  return ucov_at_open(dir, rel, O_WRONLY | O_CREAT | O_EXCL, 0644, UCOV_BENEATH_MKDIR);
}

int write_object_file(const char *dir, const char *name, const void *data, size_t len,
                      const struct timespec *unless_newer) {
  if (newer_than(dir, name, unless_newer))
    return 0; /* written since we asked (the target's final tree): keep it */
  if (ucov_at_replace(dir, name, data, len) == 0)
    return 0;
  UCOV_ERR("%s/%s: %s\n", dir, name, strerror(errno));
  return -1;
}

void link_notes(const char *dir, const char *name) {
  size_t n = strlen(name);
  if (strncmp(name, "gcov/", 5) != 0 || n < 10 || strcmp(name + n - 5, ".gcda") != 0)
    return;
  char *notes = NULL, *link = NULL;
  struct stat st;
  if (asprintf(&notes, "/%.*s.gcno", (int)(n - 10), name + 5) >= 0 &&
      asprintf(&link, "%.*s.gcno", (int)(n - 5), name) >= 0 && access(notes, R_OK) == 0) {
    int had = ucov_at_lstat(dir, link, &st) == 0;
    if (had && !S_ISLNK(st.st_mode))
      UCOV_ERR("%s/%s: not a link: left as it is\n", dir, link);
    else if ((had && ucov_at_unlink(dir, link) != 0) || ucov_at_symlink(notes, dir, link) != 0)
      UCOV_ERR("%s/%s: %s\n", dir, link, strerror(errno));
  }
  free(notes);
  free(link);
}

/* Names beneath DIR (every file a pull writes is resolved beneath it, no
 * link followed: posix/beneath.h). The marker of a two-phase pull:
 * .ucov-pending.<target>.<token>. */
static char *marker_path(const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, ".ucov-pending.%s.%" PRIu64, target, token) < 0 ? NULL : p;
}

/* Where object name is written before it counts: beside its final name. */
static char *tmp_path(const char *name, const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, "%s.ucov-tmp.%s.%" PRIu64, name, target, token) < 0 ? NULL : p;
}

/* An identifier of the target for marker names: its pid, or "serial". */
static void target_id(const struct ucov_ctl *c, char *out, size_t len) {
  if (c->serial)
    snprintf(out, len, "serial");
  else
    snprintf(out, len, "%d", (int)c->pid);
}

/*
 * Pull one object into dir/rel (a temporary file, created exclusively): READ,
 * or SNAPSHOT under *token (durably: fsync). 0, or -1 with a message
 * printed (unless quiet).
 */
static int pull_into(struct ucov_ctl *c, const char *name, const char *dir, const char *rel,
                     uint64_t *token, uint64_t *bytes, int quiet) {
  char err[512];
  struct file_out fo = {create_beneath(dir, rel), token ? 8 : 0, {0}, 0};
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
      ucov_at_unlink(dir, rel);
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
  int malformed = 0;
  if (ok && token) { /* the token led the reply: 8 bytes, never 0 */
    uint64_t asked = *token;
    *token = 0;
    for (int i = 0; i < 8; i++)
      *token |= (uint64_t)fo.tok[i] << (8 * i);
    malformed = r.total < 8 || !*token || (asked && *token != asked);
    ok = !malformed;
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
  ucov_at_unlink(dir, rel);
  if (!quiet) {
    if (malformed) {
      fprintf(stderr, "%s: ", ucov_cmd);
      print_escaped(stderr, name);
      fprintf(stderr, ": malformed SNAPSHOT reply (%zu bytes, token %s)\n", r.total,
              r.total < 8 ? "missing" : "not the one asked for");
    } else if (fo.err)
      UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(fo.err));
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
      UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(saved));
  }
  ucov_ctl_reply_free(&r);
  return st ? -2 : -1; /* -2: the connection is gone */
fail_errno:
  if (!quiet)
    UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(errno));
  return -1;
}

/* Rename a pulled temporary file (beneath dir) to its object's name; its
 * .gcno link is made later, once every object is in place (link_notes).
 * unless_newer keeps a final file written after that time (ucov run). */
static int publish(const char *tmp, const char *dir, const char *name,
                   const struct timespec *unless_newer, int durable) {
  if (newer_than(dir, name, unless_newer)) {
    ucov_at_unlink(dir, tmp); /* written since we asked (the target's final tree): keep it */
    return 0;
  }
  if (ucov_at_rename(dir, tmp, name) == 0 && (!durable || ucov_at_fsync_parent(dir, name) == 0))
    return 0;
  UCOV_ERR("%s/%s: %s\n", dir, name, strerror(errno));
  return -1;
}

/* Write the marker of a two-phase pull: "target", the target's "instance"
 * (or "-": a target that has none), "token", then each name, NUL-terminated.
 * Durable before the commit is sent. */
static int write_marker(const char *dir, const char *path, const char *target, const char *instance,
                        uint64_t token, char **names, long n) {
  /* Whole or not at all: written beside, then renamed. */
  char *part = NULL;
  if (asprintf(&part, "%s.part", path) < 0)
    return -1;
  int fd = create_beneath(dir, part);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "wb");
  if (!f) {
    if (fd >= 0)
      close(fd);
    free(part);
    return -1;
  }
  fprintf(f, "ucov-pending 2\ntarget %s\ninstance %s\ntoken %" PRIu64 "\nobjects %ld\n", target,
          instance, token, n);
  for (long i = 0; i < n; i++)
    fwrite(names[i], 1, strlen(names[i]) + 1, f);
  int ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok &= fclose(f) == 0;
  ok = ok && ucov_at_rename(dir, part, path) == 0 && ucov_at_fsync_parent(dir, path) == 0;
  if (!ok)
    ucov_at_unlink(dir, part);
  free(part);
  return ok ? 0 : -1;
}

/*
 * What becomes of each object of a snapshot once its outcome is known:
 * committed, its file is the object (PUBLISH); never committed, its counts
 * are still in the target or in the target's exit files (DROP); not
 * knowable, kept aside and said (ASIDE): never deleted on a guess.
 */
enum fate { FATE_PUBLISH, FATE_DROP, FATE_ASIDE };

/* COMMIT token for n objects: FATE_PUBLISH (committed now or before),
 * FATE_DROP (never committed, and now never will be), FATE_ASIDE (the target
 * forgot), or -1: no answer (all is left for a later recovery). */
static int commit_outcome(struct ucov_ctl *c, uint64_t token, long n, int quiet) {
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
  int fate = -1;
  uint32_t eno = r.len == 4 ? ucov_get32(r.data) : 0;
  if (r.status == UCOV_ST_OK && r.len == 4)
    fate = FATE_PUBLISH;
  else if (r.status == UCOV_ST_ERRNO && (eno == ESTALE || eno == EINVAL))
    fate = FATE_DROP;
  else if (r.status == UCOV_ST_ERRNO && eno == ENODATA)
    fate = FATE_ASIDE;
  else if (!quiet && r.status == UCOV_ST_ERRNO)
    UCOV_ERR("commit: %s\n", strerror((int)eno));
  else if (!quiet) {
    err_target("commit", r.status ? (char *)r.data : "malformed reply");
  }
  ucov_ctl_reply_free(&r);
  return fate;
}

/* The marker of snapshots kept aside: .ucov-unresolved.<target>.<token>. */
static char *aside_path(const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, ".ucov-unresolved.%s.%" PRIu64, target, token) < 0 ? NULL : p;
}

/*
 * Act on each object's fate: publish (a temporary file already gone was
 * published before: a recovery after a publish that got half way), drop, or
 * keep aside. The pending marker goes only when every object is settled: a
 * publish that fails keeps it, for the next pull or --recover. Objects kept
 * aside get a marker of their own, which `ucov report` of DIR warns about
 * and `ucov pull --resolve` settles. 0, or -1 (said).
 */
static int settle(const char *dir, const char *target, const char *instance, uint64_t token,
                  char **names, long n, const int *fate, int quiet) {
  int failed = 0;
  long aside = 0, dropped = 0;
  for (long i = 0; i < n; i++) {
    char *tmp = tmp_path(names[i], target, token);
    if (!tmp) {
      failed = 1;
      continue;
    }
    struct stat st;
    int have = ucov_at_lstat(dir, tmp, &st) == 0;
    if (!have && errno != ENOENT) { /* gone (published before) or not: unknown */
      UCOV_ERR("%s/%s: %s\n", dir, tmp, strerror(errno));
      failed = 1;
      free(tmp);
      continue;
    }
    if (fate[i] == FATE_PUBLISH && have && publish(tmp, dir, names[i], NULL, 1))
      failed = 1;
    else if (fate[i] == FATE_DROP && have && ucov_at_unlink(dir, tmp) == 0)
      dropped++;
    else if (fate[i] == FATE_ASIDE && have)
      aside++;
    free(tmp);
  }
  for (long i = 0; i < n; i++) /* links last: once every object is in place */
    if (fate[i] == FATE_PUBLISH)
      link_notes(dir, names[i]);
  char *m = marker_path(target, token), *a = aside_path(target, token);
  if (failed) {
    UCOV_ERR("%s: the target committed this pull, but not every object could be published: "
             "the next `ucov pull` or `ucov pull --recover` into it publishes them\n",
             dir);
  } else if (m && a) {
    if (aside) {
      char **kept = calloc((size_t)aside + 1, sizeof(*kept));
      long k = 0;
      for (long i = 0; kept && i < n; i++)
        if (fate[i] == FATE_ASIDE)
          kept[k++] = names[i];
      if (!kept || write_marker(dir, a, target, instance, token, kept, k)) {
        UCOV_ERR("%s/%s: %s\n", dir, a, strerror(errno));
        failed = 1;
      }
      free(kept);
      if (!failed)
        UCOV_ERR("%s: %ld objects of an interrupted pull (target %s, token %" PRIu64
                 ") are kept aside: whether the target committed them cannot be known (it is "
                 "gone and left no record of its commits, or forgot). They are in no report until "
                 "`ucov pull --resolve publish -o %s` (the target died without writing them "
                 "anywhere else) or `ucov pull --resolve discard -o %s` (its exit files hold "
                 "them)\n",
                 dir, aside, target, token, dir, dir);
    }
    if (!failed && ucov_at_unlink(dir, m) != 0 && errno != ENOENT) {
      UCOV_ERR("%s/%s: %s: the next `ucov pull` or `ucov pull --recover` into %s finishes it\n",
               dir, m, strerror(errno), dir);
      failed = 1;
    } else if (!failed) {
      ucov_at_fsync_parent(dir, m);
    }
  }
  if (!failed && dropped && !quiet)
    UCOV_ERR("the target was reset meanwhile: %ld objects not pulled, no count lost\n", dropped);
  free(m);
  free(a);
  return failed ? -1 : 0;
}

/* The same fate for all n objects. */
static int settle_all(const char *dir, const char *target, const char *instance, uint64_t token,
                      char **names, long n, int fate, int quiet) {
  int *f = calloc((size_t)n + 1, sizeof(*f));
  if (!f)
    return -1;
  for (long i = 0; i < n; i++)
    f[i] = fate;
  int r = settle(dir, target, instance, token, names, n, f, quiet);
  free(f);
  return r;
}

/*
 * A gone target's commit record (<runtime dir>/<pid>.<instance>.commits,
 * written by the target after every commit and after its exit files): the
 * fate of each object of token's snapshot. Committed: publish. Not committed:
 * its counts are in the target's exit files if it wrote those of that kind
 * (drop), else nowhere but here (a trace buffer dies with the process:
 * publish), else not knowable (aside). No record: aside.
 */
struct record_find {
  char path[PATH_MAX];
  const char *name;
};

static int find_record(const char *dir, void *arg) {
  struct record_find *f = arg;
  snprintf(f->path, sizeof(f->path), "%s/%s", dir, f->name);
  struct stat st;
  return lstat(f->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

static void fates_from_record(const char *target, const char *instance, uint64_t token,
                              char **names, long n, int *fate) {
  for (long i = 0; i < n; i++)
    fate[i] = strncmp(names[i], "kcov/", 5) == 0 ? FATE_PUBLISH : FATE_ASIDE;
  if (!strcmp(instance, "-"))
    return;
  char name[128];
  snprintf(name, sizeof(name), "%s.%s.commits", target, instance);
  struct record_find rf = {.name = name};
  FILE *f = ucov_control_dirs(find_record, &rf) ? fopen(rf.path, "r") : NULL;
  if (!f)
    return;
  char line[256];
  uint64_t issued = 0, forgotten = 1, lo, hi;
  int committed = 0, gcov = 0, pgo = 0, ok = 0;
  while (fgets(line, sizeof(line), f)) {
    if (sscanf(line, "committed %" SCNu64 " %" SCNu64, &lo, &hi) == 2)
      committed |= token >= lo && token <= hi;
    else if (sscanf(line, "issued %" SCNu64, &issued) == 1)
      ok = 1;
    else if (sscanf(line, "forgotten_below %" SCNu64, &forgotten) == 1)
      ;
    else if (!strcmp(line, "exited gcov\n"))
      gcov = 1;
    else if (!strcmp(line, "exited pgo\n"))
      pgo = 1;
  }
  fclose(f);
  if (!ok || token > issued)
    return; /* not this target's record as we know it */
  for (long i = 0; i < n; i++) {
    if (committed)
      fate[i] = FATE_PUBLISH;
    else if (token < forgotten)
      fate[i] = FATE_ASIDE;
    else if (strncmp(names[i], "kcov/", 5) == 0)
      fate[i] = FATE_PUBLISH;
    else if ((gcov && !strncmp(names[i], "gcov/", 5)) || (pgo && !strncmp(names[i], "pgo/", 4)))
      fate[i] = FATE_DROP;
  }
}

/* COMMIT, then settle every object by the answer. 0 committed, 1 not (or
 * kept aside), -1 no answer or a failure (said). */
static int commit_pull(struct ucov_ctl *c, const char *dir, const char *target,
                       const char *instance, uint64_t token, char **names, long n, int quiet) {
  int fate = commit_outcome(c, token, n, quiet);
  if (fate < 0)
    return -1;
  if (settle_all(dir, target, instance, token, names, n, fate, quiet))
    return -1;
  return fate == FATE_PUBLISH ? 0 : 1;
}

/*
 * Remove, under root, the temporary files of this target's two-phase pulls
 * that have no marker: snapshots never committed (their counts are still in
 * the target); and those of plain pulls whose ucov is gone. Runs after the
 * marked ones are finished. Walks by descriptor, entering no link.
 */
static void remove_orphans(const char *root, int dfd, const char *target, int depth) {
  DIR *d = fdopendir(dfd);
  if (!d || depth > 64) {
    if (d)
      closedir(d);
    else
      close(dfd);
    return;
  }
  char infix[64];
  snprintf(infix, sizeof(infix), ".ucov-tmp.%s.", target);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    const char *t = strstr(e->d_name, infix), *plain = strstr(e->d_name, ".ucov-tmp.");
    char *end;
    long owner = plain ? strtol(plain + 10, &end, 10) : 0;
    if (e->d_type == DT_DIR) {
      int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0)
        remove_orphans(root, sub, target, depth + 1);
    } else if (owner > 0 && !*end && kill((pid_t)owner, 0) != 0 && errno == ESRCH) {
      unlinkat(dirfd(d), e->d_name, 0); /* a plain pull's, whose ucov died */
    } else if (t) {
      uint64_t token = strtoull(t + strlen(infix), NULL, 10);
      char *m = marker_path(target, token), *a = aside_path(target, token);
      struct stat st; /* (only a marker surely absent: an error reading it is not) */
      if (m && a && ucov_at_lstat(root, m, &st) != 0 && errno == ENOENT &&
          ucov_at_lstat(root, a, &st) != 0 && errno == ENOENT)
        unlinkat(dirfd(d), e->d_name, 0);
      free(m);
      free(a);
    }
  }
  closedir(d);
}

/* A marker read back: its target's instance ("-": none known) and token,
 * and the n names of its objects. 0, or -1 (not a marker we wrote). */
struct marker {
  char instance[32];
  uint64_t token;
  long n;
  char **names;
};

static void marker_free(struct marker *m) {
  for (long i = 0; m->names && i < m->n; i++)
    free(m->names[i]);
  free(m->names);
  m->names = NULL;
}

static int marker_read(const char *dir, const char *rel, struct marker *m) {
  /* (a FIFO or a device named as a marker: not ours) */
  FILE *f = ucov_fdopen_regular(ucov_at_open(dir, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, 0));
  int version = 0;
  m->n = -1;
  m->names = NULL;
  snprintf(m->instance, sizeof(m->instance), "-");
  if (!f)
    return -1;
  if (fscanf(f, "ucov-pending %d\ntarget %*s\n", &version) != 1 || version < 1 || version > 2 ||
      (version == 2 && fscanf(f, "instance %31s\n", m->instance) != 1) ||
      fscanf(f, "token %" SCNu64 "\nobjects %ld\n", &m->token, &m->n) != 2 || m->n < 0 ||
      m->n >= 1000000 || !(m->names = calloc((size_t)m->n + 1, sizeof(*m->names)))) {
    fclose(f);
    m->n = 0;
    return -1;
  }
  char buf[UCOV_PROTO_MAX_REQUEST + 1];
  for (long i = 0; i < m->n; i++) {
    size_t k = 0;
    int ch;
    while ((ch = fgetc(f)) > 0 && k < UCOV_PROTO_MAX_REQUEST)
      buf[k++] = (char)ch;
    buf[k] = 0;
    if (ch != 0 || !object_name_is_safe(buf) || !(m->names[i] = strdup(buf))) {
      fclose(f);
      marker_free(m);
      m->n = 0;
      return -1;
    }
  }
  fclose(f);
  return 0;
}

/* The instance the target says it is ("-" when it says none). */
static void target_instance(struct ucov_ctl *c, char *out, size_t len) {
  struct ucov_ctl_reply r;
  char err[512];
  snprintf(out, len, "-");
  if (ucov_ctl_call(c, UCOV_OP_INFO, NULL, 0, &r, err, sizeof(err)))
    return;
  const char *e = r.status ? NULL : strstr((char *)r.data, "instance=");
  size_t k = e ? strspn(e + 9, "0123456789abcdef") : 0;
  if (e && (e == (char *)r.data || e[-1] == '\n') && k > 0 && k < len)
    snprintf(out, len, "%.*s", (int)k, e + 9);
  ucov_ctl_reply_free(&r);
}

/*
 * Finish the two-phase pulls of target that a killed or failed ucov left in
 * dir. c: the target, live (instance its instance), or NULL when it is gone.
 * A marker of another instance (the pid reused since) is a gone target's.
 * Returns the number of pulls that could not be finished.
 */
static int recover_pulls(struct ucov_ctl *c, const char *dir, const char *target,
                         const char *instance, int quiet) {
  char prefix[64];
  snprintf(prefix, sizeof(prefix), ".ucov-pending.%s.", target);
  DIR *d = opendir(dir);
  if (!d) { /* (no directory: nothing left there; unreadable: not known) */
    if (errno == ENOENT)
      return 0;
    UCOV_ERR("%s: %s: its interrupted pulls are not known\n", dir, strerror(errno));
    return 1;
  }
  int unfinished = 0;
  struct dirent *e;
  for (errno = 0; (e = readdir(d)); errno = 0) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
      continue;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
      continue;
    size_t len = strlen(e->d_name);
    struct marker m;
    if (len > 5 && !strcmp(e->d_name + len - 5, ".part")) {
      unlinkat(dirfd(d), e->d_name, 0); /* a marker never finished: its pull never committed */
    } else if (marker_read(dir, e->d_name, &m) == 0) {
      if (!quiet)
        UCOV_ERR("finishing an interrupted pull (%s)\n", e->d_name);
      int live = c && (!strcmp(m.instance, "-") || !strcmp(m.instance, instance));
      if (live) {
        unfinished += commit_pull(c, dir, target, m.instance, m.token, m.names, m.n, quiet) < 0;
      } else {
        int *fate = calloc((size_t)m.n + 1, sizeof(*fate));
        fates_from_record(target, m.instance, m.token, m.names, m.n, fate);
        unfinished += !fate || settle(dir, target, m.instance, m.token, m.names, m.n, fate, quiet);
        free(fate);
      }
      marker_free(&m);
    } else {
      UCOV_ERR("%s: not a marker of ucov pull: left alone\n", path);
      unfinished++;
    }
    free(path);
  }
  if (errno) { /* (the directory read whole, or not all its markers known) */
    UCOV_ERR("%s: %s: its interrupted pulls are not all known\n", dir, strerror(errno));
    unfinished++;
  }
  closedir(d);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    remove_orphans(dir, dfd, target, 0);
  return unfinished;
}

/*
 * ucov pull --resolve publish|discard -o DIR: the snapshots kept aside in DIR
 * (every target's) are published, or removed. The user decides, knowing what
 * ucov could not: whether the target's exit files hold their counts.
 */
static int resolve_aside(const char *dir, int publish_them) {
  DIR *d = opendir(dir);
  if (!d) {
    UCOV_ERR("%s: %s\n", dir, strerror(errno));
    return UCOV_EXIT_FAIL;
  }
  int status = UCOV_EXIT_OK;
  long settled = 0;
  struct dirent *e;
  static const char pre[] = ".ucov-unresolved.";
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, pre, sizeof(pre) - 1) != 0)
      continue;
    char target[64] = "", *path = NULL;
    const char *t = e->d_name + sizeof(pre) - 1, *dot = strrchr(t, '.');
    struct marker m;
    if (!dot || (size_t)(dot - t) >= sizeof(target) || asprintf(&path, "%s/%s", dir, e->d_name) < 0)
      continue;
    snprintf(target, sizeof(target), "%.*s", (int)(dot - t), t);
    if (marker_read(dir, e->d_name, &m) == 0) {
      /* (settle removes the pending marker: this one is its own) */
      if (settle_all(dir, target, m.instance, m.token, m.names, m.n,
                     publish_them ? FATE_PUBLISH : FATE_DROP, 1) == 0 &&
          unlinkat(dirfd(d), e->d_name, 0) == 0)
        settled += m.n;
      else
        status = UCOV_EXIT_FAIL;
      marker_free(&m);
    } else {
      UCOV_ERR("%s: not a marker of ucov pull: left alone\n", path);
      status = UCOV_EXIT_FAIL;
    }
    free(path);
  }
  closedir(d);
  UCOV_ERR("%s %ld objects kept aside in %s\n", publish_them ? "published" : "discarded", settled,
           dir);
  return status;
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
  /* The build directory, from the notes files of the units pulled. */
  char *target = lcov_marker_target((const char *const *)names, (size_t)n, 1);
  if (!target) {
    UCOV_ERR("%s/%s: %s\n", dir, UCOV_LCOV_MARKER, strerror(ENOMEM));
    return;
  }
  struct stat st;
  char now[PATH_MAX];
  ssize_t k = -1;
  int have = ucov_at_lstat(dir, UCOV_LCOV_MARKER, &st) == 0;
  if (have && S_ISLNK(st.st_mode))
    k = ucov_at_readlink(dir, UCOV_LCOV_MARKER, now, sizeof(now) - 1);
  if (k >= 0)
    now[k] = 0;
  if (have && !S_ISLNK(st.st_mode))
    UCOV_ERR("%s/%s: not a link: left as it is\n", dir, UCOV_LCOV_MARKER);
  else if (k < 0 || strcmp(now, target) != 0) {
    if ((have && ucov_at_unlink(dir, UCOV_LCOV_MARKER) != 0) ||
        ucov_at_symlink(target, dir, UCOV_LCOV_MARKER) != 0)
      UCOV_ERR("%s/%s: %s\n", dir, UCOV_LCOV_MARKER, strerror(errno));
  }
  free(target);
}

int pull_objects(pid_t pid, const char *serial_path, const char *dir, int reset, char **names,
                 int nnames, int quiet) {
  /* In quiet mode (ucov run) the target writes its final tree into dir at exit;
   * a pull answered before that must not overwrite it. */
  struct timespec asked;
  clock_gettime(CLOCK_REALTIME, &asked);
  struct ucov_ctl c;
  char err[512], target[32], instance[32];
  if (ucov_ctl_open_target(pid, serial_path, &c, err, sizeof(err))) {
    if (recover_only && !serial_path) {
      /* a gone target: its pulls are finished from what it left behind */
      snprintf(target, sizeof(target), "%d", (int)pid);
      int left = recover_pulls(NULL, dir, target, "-", quiet);
      if (!quiet)
        UCOV_ERR("process %d is gone: %s\n", (int)pid,
                 left ? "some pulls could not be finished" : "its pulls are finished");
      return left ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
    }
    if (!quiet)
      UCOV_ERR("%s\n", err);
    return UCOV_EXIT_FAIL;
  }
  target_id(&c, target, sizeof(target));
  target_instance(&c, instance, sizeof(instance));
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    UCOV_ERR("%s: %s\n", dir, strerror(errno));
    ucov_ctl_close(&c);
    return UCOV_EXIT_FAIL;
  }
  int left = recover_pulls(&c, dir, target, instance, quiet);
  if (recover_only) {
    ucov_ctl_close(&c);
    return left ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
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
    char *tmp = two_phase ? tmp_path(name, target, token ? token : 0) : NULL;
    if (!two_phase && asprintf(&tmp, "%s.ucov-tmp.%d", name, (int)getpid()) < 0)
      tmp = NULL;
    if (!tmp) {
      status = UCOV_EXIT_FAIL;
      break;
    }
    uint64_t t = token;
    int r = pull_into(&c, name, dir, tmp, two_phase ? &t : NULL, &bytes, quiet);
    if (r == 0 && two_phase) {
      if (!token) { /* the first snapshot: its file is named for the new token */
        char *named = tmp_path(name, target, t);
        if (!named || ucov_at_rename(dir, tmp, named) != 0)
          r = -1, ucov_at_unlink(dir, tmp);
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
  long nplain = npublished;
  if (reset && status != UCOV_EXIT_OK) {
    /* Not every object made it to disk: commit nothing, keep every count. */
    for (long i = 0; i < nsnapped; i++) {
      char *tmp = tmp_path(snapped[i], target, token);
      if (tmp)
        ucov_at_unlink(dir, tmp);
      free(tmp);
    }
    if (!quiet)
      UCOV_ERR("nothing reset: the target keeps every count\n");
    pulled = 0;
  } else if (nsnapped) {
    char *m = marker_path(target, token);
    if (!m || write_marker(dir, m, target, instance, token, snapped, nsnapped) != 0) {
      UCOV_ERR("%s/%s: %s\n", dir, m ? m : "", strerror(errno));
      status = UCOV_EXIT_FAIL;
      pulled = 0;
    } else if (commit_pull(&c, dir, target, instance, token, snapped, nsnapped, quiet) != 0) {
      status = UCOV_EXIT_FAIL;
      pulled = 0;
    } else {
      for (long i = 0; published && i < nsnapped; i++)
        published[npublished++] = snapped[i];
    }
    free(m);
  }
  for (long i = 0; i < nplain; i++) /* links last (settle made those of the snapshot's) */
    link_notes(dir, published[i]);
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

int pull_recover(pid_t pid, const char *serial_path, const char *dir, int quiet) {
  int saved = recover_only;
  recover_only = 1;
  int r = pull_objects(pid, serial_path, dir, 0, NULL, 0, quiet);
  recover_only = saved;
  return r;
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
    err_target("in place", (char *)r.data);
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
    err_target("xencov", (char *)r.data);
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
  if (resolve) {
    if (!out) {
      UCOV_ERR("--resolve wants -o DIR\n");
      return cli_try_help();
    }
    return resolve_aside(out, !strcmp(resolve, "publish"));
  }
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
