/* SPDX-License-Identifier: MIT */
/*
 * ucov pull: objects of a running target copied under DIR with their names
 * as paths (DIR/gcov/<absolute build path>/x.gcda, DIR/modules), as debugfs
 * shows them, with a .gcno link beside each .gcda whose notes file exists,
 * ready for gcov, lcov and gcovr (objfile.c); with --reset in two phases
 * (pull_commit.c); --in-place and --xencov.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
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
#include "pull.h"

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
    "                 snapshots are written to disk (syncfs) before the target\n"
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

/* What `ucov pull` was asked. */
struct pull_req {
  struct cli_target t;
  const char *dir;
  int reset;        /* --reset: two phases */
  int recover_only; /* --recover: only finish the interrupted pulls of DIR */
  int quiet;        /* (ucov run's pulls: the target writes its final tree at exit) */
  char **names;     /* the NAMEs (none: every object) */
  long n_names;
};

/* The options beyond the target. */
struct pull_opts {
  const char *out;     /* -o DIR */
  const char *xencov;  /* --xencov FILE: Xen's coverage blob of every gcov unit */
  const char *resolve; /* --resolve publish|discard: settle what DIR kept aside */
  int reset, recover, in_place;
};

/* Returns optind, or -1 (said). */
static int parse_pull(int argc, char **argv, struct cli_target *t, struct pull_opts *o) {
  static const struct option opts[] = {CLI_TARGET_OPTIONS,
                                       {"output", required_argument, 0, 'o'},
                                       {"reset", no_argument, 0, 'r'},
                                       {"help", no_argument, 0, 'h'},
                                       {"recover", no_argument, 0, 'R'},
                                       {"xencov", required_argument, 0, 'X'},
                                       {"in-place", no_argument, 0, 'I'},
                                       {"resolve", required_argument, 0, 'V'},
                                       {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "p:s:d:o:rh", opts, NULL)) != -1) {
    int r = cli_target_option(t, c, optarg, CLI_TARGET_ANY);
    if (r < 0)
      goto usage;
    if (r > 0)
      continue;
    switch (c) {
    case 'o':
      o->out = optarg;
      break;
    case 'r':
      o->reset = 1;
      break;
    case 'R':
      o->recover = 1;
      break;
    case 'X':
      o->xencov = optarg;
      break;
    case 'I':
      o->in_place = 1;
      break;
    case 'V':
      if (strcmp(optarg, "publish") && strcmp(optarg, "discard")) {
        UCOV_ERR("--resolve takes publish or discard, not '%s'\n", optarg);
        goto usage;
      }
      o->resolve = optarg;
      break;
    case 'h':
      fputs(pull_usage, stdout);
      exit(UCOV_EXIT_OK);
    default:
      goto usage;
    }
  }
  if (cli_target_check(t, o->resolve != NULL))
    goto usage;
  return optind;
usage:
  cli_try_help();
  return -1;
}

/*
 * Pull one object into dir/rel (a temporary file, created exclusively): READ,
 * or SNAPSHOT under *token (made durable with the others before the commit:
 * sync_tree). 0, or -1 with a message
 * printed (unless quiet); -4, nothing said, if the target has no such object
 * and gone_ok (an object listed a moment ago whose code was unloaded since).
 */
static int pull_into(struct ucov_ctl *c, const char *name, const char *dir, const char *rel,
                     uint64_t *token, uint64_t *bytes, int quiet, int gone_ok) {
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
    ucov_put64((uint8_t *)req, *token);
    memcpy(req + 8, name, nl);
    payload = req;
    plen = 8 + nl;
    op = UCOV_OP_SNAPSHOT;
  }
  struct ucov_ctl_reply r;
  int st = ucov_ctl_call_stream(c, op, payload, plen, -1, &r, pull_to_file, &fo, err, sizeof(err));
  int ok = st == 0 && r.status == 0;
  int malformed = 0;
  if (ok && token) { /* the token led the reply: 8 bytes, never 0 */
    uint64_t asked = *token;
    *token = ucov_get64((const uint8_t *)fo.tok);
    malformed = r.total < 8 || !*token || (asked && *token != asked);
    ok = !malformed;
  }
  int saved = errno;
  if (close(fo.fd) != 0 && ok)
    ok = 0, saved = errno;
  if (ok) {
    *bytes += r.total - (token ? 8 : 0);
    ucov_ctl_reply_free(&r);
    return 0;
  }
  ucov_at_unlink(dir, rel);
  if (st == 0 && r.status == UCOV_ST_NO_OBJECT && gone_ok) {
    ucov_ctl_reply_free(&r);
    return -4; /* gone since the listing: the caller says so */
  }
  if (!quiet) {
    char *en = cli_escaped(name);
    const char *shown = en ? en : "(out of memory)";
    if (malformed) {
      diag_at(DIAG_ERROR, shown, 0, "malformed SNAPSHOT reply (%zu bytes, token %s)", r.total,
              r.total < 8 ? "missing" : "not the one asked for");
    } else if (fo.err)
      UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(fo.err));
    else if (st)
      UCOV_ERR("%s\n", err);
    else if (r.status == UCOV_ST_ERRNO && r.len == 4)
      diag_at(DIAG_ERROR, name, 0, "%s", strerror((int)ucov_get32(r.data)));
    else if (r.status)
      err_target(shown, (char *)r.data);
    else
      UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(saved));
    free(en);
  }
  ucov_ctl_reply_free(&r);
  return st ? -2 : -1; /* -2: the connection is gone */
fail_errno:
  if (!quiet)
    UCOV_ERR("%s/%s: %s\n", dir, rel, strerror(errno));
  return -1;
}

/*
 * Connect to the target, then finish the interrupted pulls of DIR. A gone
 * target's pulls are finished from what it left behind (with --recover).
 * 0 connected (target, instance filled), 1 done (*status says how), -1
 * failed (said).
 */
static int pull_open(const struct pull_req *q, struct ucov_ctl *c, char *target, char *instance,
                     int *status) {
  char err[512];
  if (ucov_ctl_open_target(q->t.pid, q->t.serial, c, err, sizeof(err))) {
    if (q->recover_only && !q->t.serial) {
      snprintf(target, 32, "%d", (int)q->t.pid);
      int left = recover_pulls(NULL, q->dir, target, "-", q->quiet);
      if (!q->quiet)
        UCOV_ERR("process %d is gone: %s\n", (int)q->t.pid,
                 left ? "some pulls could not be finished" : "its pulls are finished");
      *status = left ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
      return 1;
    }
    if (!q->quiet)
      UCOV_ERR("%s\n", err);
    return -1;
  }
  target_id(c, target, 32);
  target_instance(c, instance, 32);
  if (mkdir(q->dir, 0755) != 0 && errno != EEXIST) {
    diag_at(DIAG_ERROR, q->dir, 0, "%s", strerror(errno));
    ucov_ctl_close(c);
    return -1;
  }
  int left = recover_pulls(c, q->dir, target, instance, q->quiet);
  if (q->recover_only) {
    ucov_ctl_close(c);
    *status = left ? UCOV_EXIT_FAIL : UCOV_EXIT_OK;
    return 1;
  }
  return 0;
}

/* One pull's progress: the objects snapshotted (a reset's, under token) and
 * those published, the bytes and objects pulled. */
struct pull_run {
  const struct pull_req *q;
  struct ucov_ctl *c;
  const char *target, *instance;
  struct timespec asked; /* when the pull began (ucov run: keep newer files) */
  char **snapped, **published;
  long n_snapped, n_published, pulled;
  uint64_t token, bytes;
  int dropped; /* the commit found the target reset meanwhile: nothing lost, pull again */
};

/* Pull object name: published now, or snapshotted for a reset. 0, -1
 * (failed), -2 (the connection is gone). */
static int pull_one(struct pull_run *p, const char *name) {
  const struct pull_req *q = p->q;
  if (!object_name_is_safe(name)) {
    char *en = cli_escaped(name);
    UCOV_ERR("refusing object name '%s'\n", en ? en : "(out of memory)");
    free(en);
    return -1;
  }
  /* Reset: a snapshot, committed once every file is safe on disk. */
  int two_phase = q->reset && strcmp(name, "modules") != 0;
  char *tmp = two_phase ? tmp_path(name, p->target, p->token ? p->token : 0) : NULL;
  if (!two_phase && asprintf(&tmp, "%s.ucov-tmp.%d", name, (int)getpid()) < 0)
    tmp = NULL;
  if (!tmp)
    return -3;
  uint64_t t = p->token;
  int r = pull_into(p->c, name, q->dir, tmp, two_phase ? &t : NULL, &p->bytes, q->quiet,
                    q->n_names == 0);
  if (r == -4) { /* listed, then gone: the rest is pulled (and reset) all the same */
    if (!q->quiet) {
      char *en = cli_escaped(name);
      diag_at(DIAG_ERROR, en ? en : "(out of memory)", 0,
              "gone since it was listed (its code was unloaded): skipped");
      free(en);
    }
    free(tmp);
    return 0;
  }
  if (r == 0 && two_phase) {
    if (!p->token) { /* the first snapshot: its file is named for the new token */
      char *named = tmp_path(name, p->target, t);
      if (!named || ucov_at_rename(q->dir, tmp, named) != 0)
        r = -1, ucov_at_unlink(q->dir, tmp);
      free(tmp);
      tmp = named;
      p->token = t;
    }
    if (r == 0)
      p->snapped[p->n_snapped++] = strdup(name);
  } else if (r == 0) {
    r = publish(tmp, q->dir, name, q->quiet ? &p->asked : NULL, 0);
    if (r == 0)
      p->published[p->n_published++] = (char *)name;
  }
  free(tmp);
  if (r == 0)
    p->pulled++;
  return r;
}

/* After the objects: a reset's snapshots committed (all on disk) or
 * dropped (not all: nothing reset, every count kept). Returns the status. */
static int pull_finish_reset(struct pull_run *p, int status) {
  const struct pull_req *q = p->q;
  int r;
  if (q->reset && status != UCOV_EXIT_OK) {
    for (long i = 0; i < p->n_snapped; i++) {
      char *tmp = tmp_path(p->snapped[i], p->target, p->token);
      if (tmp)
        ucov_at_unlink(q->dir, tmp);
      free(tmp);
    }
    if (!q->quiet)
      UCOV_ERR("nothing reset: the target keeps every count\n");
    p->pulled = 0;
  } else if (p->n_snapped) {
    char *m = marker_path(p->target, p->token);
    /* Every snapshot on disk, then the marker naming them, then the commit. */
    if (!m || sync_tree(q->dir) != 0 ||
        write_marker(q->dir, m, p->target, p->instance, p->token, p->snapped, p->n_snapped) != 0) {
      UCOV_ERR("%s/%s: %s\n", q->dir, m ? m : "", strerror(errno));
      status = UCOV_EXIT_FAIL;
      p->pulled = 0;
    } else if ((r = commit_pull(p->c, q->dir, p->target, p->instance, p->token, p->snapped,
                                p->n_snapped, q->quiet)) != 0) {
      status = UCOV_EXIT_FAIL;
      p->pulled = 0;
      p->dropped = r == 1;
    } else {
      for (long i = 0; i < p->n_snapped; i++)
        p->published[p->n_published++] = p->snapped[i];
    }
    free(m);
  }
  return status;
}

static int pull_attempt(const struct pull_req *q, int *dropped) {
  struct ucov_ctl c;
  char target[32], instance[32];
  int status = UCOV_EXIT_OK;
  struct pull_run p = {.q = q, .c = &c, .target = target, .instance = instance};
  /* In quiet mode (ucov run) the target writes its final tree into dir at exit;
   * a pull answered before that must not overwrite it. */
  clock_gettime(CLOCK_REALTIME, &p.asked);
  int r = pull_open(q, &c, target, instance, &status);
  if (r)
    return r > 0 ? status : UCOV_EXIT_FAIL;
  ucov_at_hold(q->dir); /* (DIR and its last directories opened once: a few, for every object) */
  struct ucov_ctl_object *objs = NULL;
  long n = 0;
  if (q->n_names == 0 && (n = cli_list_objects(&c, &objs, q->quiet)) < 0) {
    ucov_ctl_close(&c);
    return UCOV_EXIT_FAIL;
  }
  long total = q->n_names ? q->n_names : n;
  p.snapped = calloc((size_t)total + 1, sizeof(*p.snapped));
  p.published = calloc((size_t)total + 1, sizeof(*p.published));
  status = p.snapped && p.published ? UCOV_EXIT_OK : UCOV_EXIT_FAIL;
  for (long i = 0; p.snapped && p.published && i < total; i++) {
    const char *name = q->n_names ? q->names[i] : objs[i].name;
    if (!q->n_names && strcmp(name, "xencov") == 0)
      continue; /* every gcov unit again, in another form: only by name or --xencov */
    int one = pull_one(&p, name);
    if (one)
      status = UCOV_EXIT_FAIL;
    if (one == -2 || one == -3)
      break; /* the connection is gone; no memory */
  }
  long n_plain = p.n_published;
  status = pull_finish_reset(&p, status);
  for (long i = 0; i < n_plain; i++) /* links last (settle made those of the snapshot's) */
    link_notes(q->dir, p.published[i]);
  write_debugfs_names(q->dir, p.published, p.n_published);
  free(p.published);
  for (long i = 0; i < p.n_snapped; i++)
    free(p.snapped[i]);
  free(p.snapped);
  ucov_ctl_objects_free(objs, n);
  if (!q->quiet && !p.dropped)
    UCOV_ERR("pulled %ld objects (%" PRIu64 " bytes) from %s into %s\n", p.pulled, p.bytes, c.label,
             q->dir);
  ucov_ctl_close(&c);
  ucov_at_release();
  *dropped = p.dropped;
  return status;
}

/*
 * A pull; with --reset, pulled again when another client reset the target
 * between this one's snapshot and its commit (the commit is refused and
 * nothing is lost): concurrent collectors take turns, each try after a
 * short random wait that grows, PULL_TRIES in all.
 */
#define PULL_TRIES 10
static int pull_run(const struct pull_req *q) {
  int dropped = 0, status = UCOV_EXIT_FAIL;
  srand((unsigned)getpid() ^ (unsigned)time(NULL)); /* collectors wait apart */
  for (int tries = 1; tries <= PULL_TRIES; tries++) {
    status = pull_attempt(q, &dropped);
    if (!dropped)
      break;
    if (tries == PULL_TRIES) {
      UCOV_ERR("the target was reset by another client at each of %d tries: nothing pulled, no "
               "count lost\n",
               PULL_TRIES);
      break;
    }
    if (!q->quiet)
      UCOV_ERR("pulling again (try %d of %d)\n", tries + 1, PULL_TRIES);
    struct timespec ts = {0, (long)(1 + rand() % (5 * tries)) * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return status;
}

int pull_objects(pid_t pid, const char *serial_path, const char *dir, int reset, char **names,
                 int nnames, int quiet) {
  struct pull_req q = {.t = {pid, serial_path},
                       .dir = dir,
                       .reset = reset,
                       .quiet = quiet,
                       .names = names,
                       .n_names = nnames};
  return pull_run(&q);
}

int pull_recover(pid_t pid, const char *serial_path, const char *dir, int quiet) {
  struct pull_req q = {.t = {pid, serial_path}, .dir = dir, .recover_only = 1, .quiet = quiet};
  return pull_run(&q);
}

/*
 * ucov pull --in-place: the target writes every .gcda where its exit would
 * (its build tree, GCOV_PREFIX and GCOV_PREFIX_STRIP as it sees them), merged
 * into what is there, and resets to what it wrote: as __gcov_dump() then
 * __gcov_reset(), so its exit later adds only what came after.
 */
static int pull_in_place(const struct cli_target *t) {
  struct ucov_ctl c;
  char err[512];
  if (cli_target_open(t, &c))
    return UCOV_EXIT_FAIL;
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
static int pull_xencov(const struct cli_target *t, const char *file, int reset) {
  struct ucov_ctl c;
  char err[512];
  if (cli_target_open(t, &c))
    return UCOV_EXIT_FAIL;
  char *tmp = NULL;
  int ret = UCOV_EXIT_FAIL;
  if (asprintf(&tmp, "%s.ucov-tmp.%d", file, (int)getpid()) < 0) {
    ucov_ctl_close(&c);
    return ret;
  }
  struct file_out fo = {open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 0, {0}, 0};
  struct ucov_ctl_reply r;
  memset(&r, 0, sizeof(r));
  int st = fo.fd < 0
               ? -1
               : ucov_ctl_call_stream(&c, reset ? UCOV_OP_READ_AND_RESET : UCOV_OP_READ, "xencov",
                                      6, -1, &r, pull_to_file, &fo, err, sizeof(err));
  if (fo.fd < 0 || fo.err)
    diag_at(DIAG_ERROR, tmp, 0, "%s", strerror(fo.fd < 0 ? errno : fo.err));
  else if (st)
    UCOV_ERR("%s\n", err);
  else if (r.status)
    err_target("xencov", (char *)r.data);
  else if (close(fo.fd) == 0 && (fo.fd = -1, rename(tmp, file) == 0))
    ret = UCOV_EXIT_OK;
  else
    diag_at(DIAG_ERROR, file, 0, "%s", strerror(errno));
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
  struct cli_target tg = {0};
  struct pull_opts o = {0};
  int i = parse_pull(argc, argv, &tg, &o);
  if (i < 0)
    return UCOV_EXIT_USAGE;
  if (o.xencov)
    return pull_xencov(&tg, o.xencov, o.reset);
  if (o.in_place)
    return pull_in_place(&tg);
  if (o.resolve) {
    if (!o.out) {
      UCOV_ERR("--resolve wants -o DIR\n");
      return cli_try_help();
    }
    return resolve_aside(o.out, !strcmp(o.resolve, "publish"));
  }
  char defdir[64];
  if (!o.out) {
    if (tg.serial)
      snprintf(defdir, sizeof(defdir), "ucov-serial");
    else
      snprintf(defdir, sizeof(defdir), "ucov-%d", (int)tg.pid);
    o.out = defdir;
  }
  struct pull_req q = {.t = tg,
                       .dir = o.out,
                       .reset = o.reset,
                       .recover_only = o.recover,
                       .names = argv + i,
                       .n_names = argc - i};
  return pull_run(&q);
}
