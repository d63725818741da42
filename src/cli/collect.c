/* SPDX-License-Identifier: MIT */
/*
 * ucov collect: a running target's coverage into a store, continuously and
 * losslessly. Each round is a two-phase pull (a snapshot of every object, the
 * reset committed later); between the two phases the snapshot is read and
 * pushed, and only when the store has the rows does the target drop the
 * counts it gave. A push that fails leaves them in the target for the next
 * round; a collector killed between its push and the commit finishes the
 * round when it starts again, pushing the same snapshot (counted once, as the
 * push carries the snapshot's token) before committing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
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
#include "posix/client.h"
#include "posix/protocol.h"
#include "report/inputs.h"
#include "store/store.h"

static const char collect_usage[] =
    "usage: ucov collect --pid N | --serial PATH | --all [--every SECONDS] [--once]\n"
    "                    [--test NAME] [--shard S] [--revision R] [--store URL]\n"
    "\n"
    "Move a running target's coverage into a coverage store (docs/store.md), round\n"
    "after round, losing nothing: each round snapshots the target's counters, pushes\n"
    "the snapshot, and only then resets what it took. A failed push leaves the counts\n"
    "in the target; a collector killed midway finishes the round when run again.\n"
    "\n"
    "  --pid N              the target process (--all: every ucov target here)\n"
    "  --serial PATH        a kernel or firmware behind a serial line\n"
    "  --every SECONDS      a round every SECONDS (default 60) until the target\n"
    "                       exits or ucov collect is stopped (SIGINT, SIGTERM: one\n"
    "                       last round first)\n"
    "  --once               one round: between the tests of a long-lived process,\n"
    "                       `ucov collect --pid N --test NAME --once` gives each test\n"
    "                       its own counts\n"
    "  --test NAME, --shard S, --revision R: the push's context and build\n"
    "  --store URL          a SQLite file or postgresql://... (default $UCOV_STORE,\n"
    "                       else ./ucov.db)\n"
    "  --binary PROG        the target's program, for its profiles and PCs\n"
    "  -q, --quiet\n"
    "  -h, --help\n";

struct collect {
  const char *url;
  struct store *st;
  struct store_push meta;
  struct input_opts in;
  int quiet;
  uint64_t rounds, pushes;
};

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)ftw;
  return type == FTW_DP ? rmdir(path) : unlink(path);
}

void cli_rm_tree(const char *dir) {
  nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int cli_push_tree(struct store **st, const char *url, const char *dir,
                  const struct store_push *meta, const struct input_opts *in, int quiet) {
  char msg[512];
  if (!*st && !(*st = store_open(url, msg, sizeof(msg)))) {
    UCOV_ERR("%s\n", msg);
    return -1;
  }
  struct cov_model m;
  cov_init(&m);
  int bad = input_read(&m, dir, in);
  bad += input_finish(&m, in);
  cov_finish(&m);
  int r = -1;
  char *ids = NULL;
  if (bad) {
    UCOV_ERR("%s: %d objects could not be read: not pushed\n", dir, bad);
  } else if (store_build_ids(in->binaries, in->n_binaries, (char **)&dir, 1, &ids, msg,
                             sizeof(msg))) {
    UCOV_ERR("%s: not pushed\n", msg);
  } else {
    struct store_push p = *meta;
    p.build_ids = ids;
    r = store_push(*st, &m, &p, msg, sizeof(msg));
    if (r < 0)
      UCOV_ERR("%s: not pushed\n", msg);
    else if (!quiet) {
      struct cov_summary s;
      cov_summary(&m, &s);
      UCOV_ERR("%s %zu files (%" PRIu64 " of %" PRIu64 " lines hit) into %s\n",
               r ? "already had" : "pushed", m.n_files, s.lines_hit, s.lines_found,
               store_engine(*st));
    }
  }
  free(ids);
  cov_free(&m);
  return r < 0 ? -1 : 0;
}

/* Between the snapshot and the commit: the snapshot, as a tree, into the store. */
static int push_snapshot(void *arg, const char *dir, const char *target, uint64_t token,
                         char **names, long n) {
  struct collect *c = arg;
  char *stage = NULL, *nonce = NULL;
  if (asprintf(&stage, "%s/.ucov-stage.%s.%" PRIu64, dir, target, token) < 0 ||
      asprintf(&nonce, "%s.%" PRIu64, target, token) < 0) {
    free(stage);
    return -1;
  }
  /* Files of the snapshot already published: the round was committed before
   * (its push came first), and an interrupted collector only left its marker. */
  for (long i = 0; i < n; i++) {
    char *src = pull_snapshot_path(names[i], target, token);
    struct stat st;
    int gone = src && ucov_at_lstat(dir, src, &st) && errno == ENOENT;
    free(src);
    if (gone) {
      free(stage);
      free(nonce);
      return 0;
    }
  }
  cli_rm_tree(stage);
  int err = mkdir(stage, 0700) && errno != EEXIST;
  for (long i = 0; !err && i < n; i++) {
    char *src = pull_snapshot_path(names[i], target, token);
    if (!src || ucov_at_link(dir, src, stage, names[i]))
      err = 1;
    free(src);
  }
  /* the module map (published as it is, never two-phase) */
  struct stat st;
  if (!err && ucov_at_lstat(dir, "modules", &st) == 0 &&
      ucov_at_link(dir, "modules", stage, "modules"))
    err = 1;
  struct store_push meta = c->meta;
  meta.nonce = nonce;
  if (err)
    UCOV_ERR("%s: cannot lay the snapshot out: %s\n", stage, strerror(errno));
  else
    err = cli_push_tree(&c->st, c->url, stage, &meta, &c->in, c->quiet) != 0;
  c->pushes += !err;
  cli_rm_tree(stage);
  free(stage);
  free(nonce);
  return err;
}

static volatile sig_atomic_t stopping;

static void on_stop(int sig) {
  (void)sig;
  stopping = 1;
}

/*
 * The directory every collector of this user keeps its snapshots in, the same
 * every run so that an interrupted round is found: $UCOV_COLLECT_DIR, else
 * $TMPDIR/ucov-collect.<uid>. It must be private, as the runtime directory
 * (ucov_private_dir: owned by the user, mode 0700, no link): a directory
 * another user made could hold planted snapshots. A configured one that is
 * not is refused; a squatted default gives way to a private fallback beside
 * it. NULL with a message printed.
 */
static char *collect_base(void) {
  const char *conf = getenv("UCOV_COLLECT_DIR"), *tmp = getenv("TMPDIR");
  char dir[UCOV_CONTROL_DIR_MAX], out[UCOV_CONTROL_DIR_MAX], why[3 * UCOV_CONTROL_DIR_MAX];
  int configured = conf && *conf;
  int n = configured ? snprintf(dir, sizeof(dir), "%s", conf)
                     : snprintf(dir, sizeof(dir), "%s/ucov-collect.%d", tmp && *tmp ? tmp : "/tmp",
                                (int)getuid());
  if (n < 0 || (size_t)n >= sizeof(dir)) {
    UCOV_ERR("collect directory path too long\n");
    return NULL;
  }
  int r =
      ucov_private_dir(dir, configured, "keeping snapshots in", out, sizeof(out), why, sizeof(why));
  if (why[0])
    UCOV_ERR("%s\n", why);
  return r ? NULL : strdup(out);
}

/* Where one target's snapshots wait for their commit, in the private base. */
static char *work_dir(const char *what) {
  char *base = collect_base(), *d = NULL;
  if (base && (asprintf(&d, "%s/%s", base, what) < 0 || (mkdir(d, 0700) && errno != EEXIST) ||
               !ucov_dir_is_private(d))) {
    UCOV_ERR("%s: not a private directory of this user: refused\n", d ? d : base);
    free(d);
    d = NULL;
  }
  free(base);
  return d;
}

static int round_one(struct collect *c, pid_t pid, const char *serial) {
  char what[PATH_MAX];
  if (serial) {
    snprintf(what, sizeof(what), "serial");
    for (const char *p = serial; *p && strlen(what) < sizeof(what) - 2; p++)
      snprintf(what + strlen(what), sizeof(what) - strlen(what), "%c",
               (*p == '/' || *p == '.') ? '_' : *p);
  } else {
    snprintf(what, sizeof(what), "pid-%d", (int)pid);
  }
  char *dir = work_dir(what);
  if (!dir)
    return UCOV_EXIT_FAIL;
  int r = pull_objects(pid, serial, dir, 1, NULL, 0, 1);
  c->rounds++;
  /* what the commit published is in the store: only the waiting room stays */
  if (r == UCOV_EXIT_OK) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (strncmp(e->d_name, ".ucov-", 6) && strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0)
          cli_rm_tree(p);
        free(p);
      }
    if (d)
      closedir(d);
  }
  free(dir);
  return r;
}

struct all {
  struct collect *c;
  int status;
};

static int each_target(pid_t pid, void *arg) {
  struct all *a = arg;
  if (round_one(a->c, pid, NULL) != UCOV_EXIT_OK)
    a->status = UCOV_EXIT_FAIL;
  return 0;
}

int cmd_collect(int argc, char **argv) {
  static const struct option opts[] = {{"pid", required_argument, 0, 'p'},
                                       {"serial", required_argument, 0, 's'},
                                       {"all", no_argument, 0, 'a'},
                                       {"every", required_argument, 0, 'e'},
                                       {"once", no_argument, 0, '1'},
                                       {"test", required_argument, 0, 't'},
                                       {"shard", required_argument, 0, 'S'},
                                       {"revision", required_argument, 0, 'r'},
                                       {"store", required_argument, 0, 'u'},
                                       {"binary", required_argument, 0, 'b'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  struct collect c = {0};
  pid_t pid = 0;
  const char *serial = NULL;
  int all = 0, once = 0, ch;
  double every = 60;
  const char *bins[64];
  c.in.binaries = bins;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    switch (ch) {
    case 'p':
      if (ucov_parse_pid(optarg, &pid)) {
        UCOV_ERR("bad pid '%s'\n", optarg);
        return cli_try_help();
      }
      break;
    case 's':
      serial = optarg;
      break;
    case 'a':
      all = 1;
      break;
    case 'e': {
      char *end;
      every = strtod(optarg, &end);
      if (*end || !(every > 0 && every < 1e7)) {
        UCOV_ERR("--every wants a number of seconds, not '%s'\n", optarg);
        return cli_try_help();
      }
      break;
    }
    case '1':
      once = 1;
      break;
    case 't':
      c.meta.test = optarg;
      break;
    case 'S':
      c.meta.shard = optarg;
      break;
    case 'r':
      c.meta.revision = optarg;
      break;
    case 'u':
      c.url = optarg;
      break;
    case 'b':
      if (c.in.n_binaries == 64) {
        UCOV_ERR("at most 64 --binary\n");
        return cli_try_help();
      }
      bins[c.in.n_binaries++] = optarg;
      break;
    case 'q':
      c.quiet = 1;
      break;
    case 'h':
      fputs(collect_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_try_help();
    }
  }
  if ((pid != 0) + (serial != NULL) + all != 1 || optind != argc) {
    UCOV_ERR(optind != argc ? "unexpected argument '%s'\n"
                            : "wants one of --pid N, --serial PATH and --all\n",
             optind != argc ? argv[optind] : "");
    return cli_try_help();
  }
  pull_set_hook(push_snapshot, &c);
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  int status = UCOV_EXIT_OK;
  for (;;) {
    int last = stopping;
    if (all) {
      struct all a = {&c, UCOV_EXIT_OK};
      ucov_ctl_list_targets(each_target, &a);
      status = a.status;
    } else {
      status = round_one(&c, pid, serial);
      if (status != UCOV_EXIT_OK && c.rounds == 1 && !c.pushes) {
        if (serial)
          UCOV_ERR("nothing collected from %s (a ucov target? ucov ls lists them)\n", serial);
        else
          UCOV_ERR("nothing collected from process %d (a ucov target? ucov ls lists them)\n",
                   (int)pid);
        break;
      }
      if (pid && kill(pid, 0) && errno == ESRCH) {
        if (!c.quiet)
          UCOV_ERR("process %d is gone: its last counts are in its exit files\n", (int)pid);
        break;
      }
    }
    if (once || last)
      break;
    /* sleep until the next round, or until asked to stop (then one last round) */
    struct timespec t = {(time_t)every, (long)((every - (double)(time_t)every) * 1e9)};
    while (!stopping && nanosleep(&t, &t) && errno == EINTR)
      ;
  }
  if (!c.quiet && !once)
    UCOV_ERR("%" PRIu64 " rounds, %" PRIu64 " pushes\n", c.rounds, c.pushes);
  pull_set_hook(NULL, NULL);
  store_close(c.st);
  return status;
}
