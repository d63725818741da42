/* SPDX-License-Identifier: MIT */
/*
 * ucov collect: a running target's coverage into a store, continuously and
 * losslessly. Each round is a two-phase pull (docs/protocol.md) into a
 * directory of its own, in a private waiting room: the target drops the
 * counts it gave only once their files are durable (COMMIT), and the round is
 * then pushed from those files under an identity of its own (the round's
 * random name), the store keeping that identity with the counts in the same
 * transaction. A push that fails, or a collector killed anywhere, leaves the
 * round for the next collector: an unfinished pull is finished as `ucov pull
 * --recover` finishes it, and a round pushed before adds nothing, under
 * whatever test name. Counts never wait in the store for a commit that may
 * not come, so a commit refused (ESTALE) counts nothing twice.
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
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "proto/client.h"
#include "proto/protocol.h"
#include "readers/inputs.h"
#include "base/subprocess.h"
#include "base/util.h"
#include "store/store.h"

static const char collect_usage[] =
    "usage: ucov collect --pid N | --serial PATH | --all [--every SECONDS] [--once]\n"
    "                    [--test NAME] [--shard S] [--revision R] [--config C]\n"
    "                    [--store URL]\n"
    "\n"
    "Move a running target's coverage into a coverage store (docs/store.md), round\n"
    "after round, losing nothing and doubling nothing: each round snapshots the\n"
    "target's counters to disk, resets what it took once that is durable, then\n"
    "pushes it. A failed push or a collector killed midway leaves the round for the\n"
    "next collector, and a round pushed twice counts once.\n"
    "\n"
    "  --pid N              the target process (--all: every ucov target here)\n"
    "  --serial PATH        a kernel or firmware behind a serial line\n"
    "  --dev PATH           a kernel behind a frame device (ucov.ko's /dev/ucov)\n"
    "  --every SECONDS      a round every SECONDS (default 60) until the target\n"
    "                       exits or ucov collect is stopped (SIGINT, SIGTERM: one\n"
    "                       last round first)\n"
    "  --once               one round: between the tests of a long-lived process,\n"
    "                       `ucov collect --pid N --test NAME --once` gives each test\n"
    "                       its own counts\n"
    "  --test NAME, --shard S, --revision R, --config C: the push's context and\n"
    "                       build\n"
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

int cli_push_tree(struct store **st, const char *url, const char *dir,
                  const struct store_push *meta, const struct input_opts *in, int quiet) {
  if (!*st && !(*st = store_open(url)))
    return -1;
  struct cov_model m;
  cov_init(&m);
  /* the gcov units read natively: their counters are stored with the lines */
  struct store_units units = {0};
  struct input_opts o = *in;
  o.unit = store_units_add, o.unit_arg = &units;
  m.path_seen = store_units_path, m.path_seen_arg = &units;
  in = &o;
  struct input_session *is = input_session_new(in);
  int bad = 1;
  if (!is) {
    diag_at(DIAG_ERROR, dir, 0, "out of memory");
  } else {
    bad = input_read(is, &m, dir);
    bad += input_add_build_notes(is);
    bad += input_finish(is, &m);
    input_session_free(is);
  }
  cov_finish(&m);
  int r = -1;
  char *ids = NULL;
  if (bad) {
    diag_at(DIAG_ERROR, dir, 0, "%d objects could not be read: not pushed", bad);
  } else {
    struct diag_context then = {.after = ": not pushed"};
    diag_context_begin(&then);
    char stamp[33];
    if (!store_build_ids(in->binaries, in->n_binaries, (char **)&dir, 1, &ids) &&
        !cli_run_stamp((char **)&dir, 1, stamp)) {
      struct store_push p = *meta;
      p.run = stamp;
      p.build_ids = ids;
      p.units = &units;
      r = store_push(*st, &m, &p);
    }
    diag_context_end(&then);
    if (r >= 0 && !quiet) {
      struct cov_summary s;
      cov_summary(&m, &s);
      UCOV_ERR("%s %zu files (%" PRIu64 " of %" PRIu64 " lines hit) into %s\n",
               r ? "already had" : "pushed", m.n_files, s.lines_hit, s.lines_found,
               store_engine(*st));
    }
  }
  free(ids);
  cov_free(&m);
  store_units_free(&units);
  return r < 0 ? -1 : 0;
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
    diag_at(DIAG_ERROR, d ? d : base, 0, "not a private directory of this user: refused");
    free(d);
    d = NULL;
  }
  free(base);
  return d;
}

/* Does dir hold an entry whose name starts with prefix (any: "")? 1 yes,
 * 0 no, -1 unknown (it could not be read: never taken for a no). */
static int holds(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  struct dirent *e;
  int found = 0;
  errno = 0;
  while (!found && (e = readdir(d)))
    found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            !strncmp(e->d_name, prefix, strlen(prefix));
  int err = errno;
  closedir(d);
  errno = err;
  return !found && err ? -1 : found;
}

/* Does a settled round hold counts: a regular file besides its module map,
 * the debugfs-style reset files and temporary files? (A pull that failed
 * before its commit leaves only those: with no marker left, a temporary
 * snapshot was never committed, its counts still in the target.) A round
 * that could not be walked whole may hold counts. */
static int is_temporary(const char *base) {
  const char *t = strstr(base, ".tmp");
  return strstr(base, ".ucov-tmp.") || (t && t[4] && strspn(t + 4, "0123456789") == strlen(t + 4));
}

static int counted_file(const char *path, const struct stat *sb, int type, struct FTW *ftw,
                        void *arg) {
  (void)arg;
  const char *base = path + ftw->base;
  return type == FTW_F && S_ISREG(sb->st_mode) && ftw->level > 0 && strcmp(base, "reset") &&
         !(ftw->level == 1 && !strcmp(base, "modules")) && strncmp(base, ".ucov-", 6) &&
         !is_temporary(base);
}

/* 1 counts (or maybe), 0 none: only a round walked whole is empty. */
static int holds_counts(const char *round) {
  return ucov_walk(round, counted_file, NULL) != 0;
}

/*
 * Push a round whose pull is settled (its files published: committed in the
 * target), under the round's identity, then remove it. Pushed before (a
 * collector killed after its push) adds nothing. 0 done, 1 not settled yet
 * (kept for a later round), -1 the push failed (kept: the next round pushes
 * it again).
 */
static int push_round(struct collect *c, const char *work, const char *name) {
  char *round = NULL, *identity = NULL, host[256] = "";
  gethostname(host, sizeof(host) - 1);
  if (asprintf(&round, "%s/%s", work, name) < 0 ||
      asprintf(&identity, "ucov-collect %s %d %s", host, (int)getuid(), name) < 0) {
    free(round);
    return -1;
  }
  int r = 0, pending = holds(round, ".ucov-pending."),
      aside = pending ? 0 : holds(round, ".ucov-unresolved.");
  if (pending < 0 || aside < 0) {
    diag_at(DIAG_ERROR, round, 0, "%s: kept for the next round", strerror(errno));
    r = -1;
  } else if (pending) {
    r = 1;
  } else if (aside) {
    diag_at(DIAG_ERROR, round, 0,
            "a snapshot whose outcome cannot be known is kept aside there, not pushed "
            "(`ucov pull --resolve publish|discard -o %s` settles it)",
            round);
    r = 1;
  } else if (holds_counts(round)) {
    struct store_push meta = c->meta;
    meta.identity = identity;
    r = cli_push_tree(&c->st, c->url, round, &meta, &c->in, c->quiet) ? -1 : 0;
    c->pushes += !r;
  }
  if (!r)
    rm_tree(round);
  free(round);
  free(identity);
  return r;
}

/* A new round's directory in work: round.<random>, its name the
 * identity its push carries. */
static char *new_round(const char *work, char *name, size_t len) {
  for (int tries = 0; tries < 16; tries++) {
    uint64_t id = 0;
    if (getrandom(&id, sizeof(id), 0) != sizeof(id))
      id = (uint64_t)time(NULL) << 32 ^ (uint64_t)getpid() << 16 ^ (uint64_t)tries;
    snprintf(name, len, "round.%016" PRIx64, id);
    char *d = NULL;
    if (asprintf(&d, "%s/%s", work, name) < 0)
      return NULL;
    if (mkdir(d, 0700) == 0)
      return d;
    free(d);
    if (errno != EEXIST)
      break;
  }
  diag_at(DIAG_ERROR, work, 0, "cannot make a round's directory: %s", strerror(errno));
  return NULL;
}

/*
 * The rounds an earlier collector left (killed, or its push failed): each
 * pull finished as `ucov pull --recover` would (committed: published; never
 * committed: dropped, the counts being still in the target), then pushed.
 * Oldest first is not needed: each round's counts are its own.
 */
static void settle_rounds(struct collect *c, const char *work, pid_t pid, const char *serial) {
  DIR *d = opendir(work);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "round.", 6) != 0)
      continue;
    char *round = NULL;
    if (asprintf(&round, "%s/%s", work, e->d_name) < 0)
      break;
    if (holds(round, ".ucov-pending."))
      pull_recover(pid, serial, round, 1);
    free(round);
    push_round(c, work, e->d_name);
  }
  if (d)
    closedir(d);
}

/*
 * One round: the rounds left before, then a two-phase pull into a round of
 * its own (committed, the target dropping what it gave, only once the files
 * are durable), then its push. The push comes after the commit, from those
 * files: a push that fails, or a collector killed before it, leaves the round
 * for the next one, and a push done twice adds nothing (its identity).
 */
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
  char *work = work_dir(what), name[64];
  if (!work)
    return UCOV_EXIT_FAIL;
  settle_rounds(c, work, pid, serial);
  char *round = new_round(work, name, sizeof(name));
  int r = UCOV_EXIT_FAIL;
  if (round) {
    r = pull_objects(pid, serial, round, 1, NULL, 0, 1);
    c->rounds++;
    if (push_round(c, work, name) < 0)
      r = UCOV_EXIT_FAIL;
  }
  free(round);
  free(work);
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

/* collect's options beyond what goes into struct collect. */
struct collect_opts {
  struct cli_target t;
  int all, once;
  double every;
  const char *bins[64];
};

/* The options: -1 to go on, else the exit status. */
static int collect_options(int argc, char **argv, struct collect *c, struct collect_opts *o) {
  static const struct option opts[] = {CLI_TARGET_OPTIONS,
                                       {"all", no_argument, 0, 'a'},
                                       {"every", required_argument, 0, 'e'},
                                       {"once", no_argument, 0, '1'},
                                       {"test", required_argument, 0, 't'},
                                       {"shard", required_argument, 0, 'S'},
                                       {"revision", required_argument, 0, 'r'},
                                       {"config", required_argument, 0, 'C'},
                                       {"store", required_argument, 0, 'u'},
                                       {"binary", required_argument, 0, 'b'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
    int r = cli_target_option(&o->t, ch, optarg, CLI_TARGET_ANY);
    char *end;
    if (r < 0)
      return cli_try_help();
    if (r > 0)
      continue;
    switch (ch) {
    case 'a':
      o->all = 1;
      break;
    case 'e':
      o->every = strtod(optarg, &end);
      if (*end || !(o->every > 0 && o->every < 1e7)) {
        UCOV_ERR("--every wants a number of seconds, not '%s'\n", optarg);
        return cli_try_help();
      }
      break;
    case '1':
      o->once = 1;
      break;
    case 't':
      c->meta.test = optarg;
      break;
    case 'S':
      c->meta.shard = optarg;
      break;
    case 'r':
      c->meta.revision = optarg;
      break;
    case 'C':
      c->meta.config = optarg;
      break;
    case 'u':
      c->url = optarg;
      break;
    case 'b':
      if (c->in.n_binaries == 64) {
        UCOV_ERR("at most 64 --binary\n");
        return cli_try_help();
      }
      o->bins[c->in.n_binaries++] = optarg;
      break;
    case 'q':
      c->quiet = 1;
      break;
    case 'h':
      fputs(collect_usage, stdout);
      return UCOV_EXIT_OK;
    default:
      return cli_bad_option(argc, argv, opts);
    }
  }
  if ((o->t.pid != 0) + (o->t.serial != NULL) + o->all != 1 || optind != argc) {
    UCOV_ERR(optind != argc ? "unexpected argument '%s'\n"
                            : "wants one of --pid N, --serial PATH and --all\n",
             optind != argc ? argv[optind] : "");
    return cli_try_help();
  }
  return -1;
}

/* One round from the one target: its status; *over when the target is
 * gone or never answered (said). */
static int collect_target(struct collect *c, const struct cli_target *t, int *over) {
  int status = round_one(c, t->pid, t->serial);
  if (status != UCOV_EXIT_OK && c->rounds == 1 && !c->pushes) {
    if (t->serial)
      UCOV_ERR("nothing collected from %s (a ucov target? ucov ls lists them)\n", t->serial);
    else
      UCOV_ERR("nothing collected from process %d (a ucov target? ucov ls lists them)\n",
               (int)t->pid);
    *over = 1;
  } else if (t->pid && kill(t->pid, 0) && errno == ESRCH) {
    if (!c->quiet)
      UCOV_ERR("process %d is gone: its last counts are in its exit files\n", (int)t->pid);
    *over = 1;
  }
  return status;
}

int cmd_collect(int argc, char **argv) {
  struct collect c = {0};
  struct collect_opts o = {.every = 60};
  c.in.binaries = o.bins;
  int status = collect_options(argc, argv, &c, &o);
  if (status >= 0)
    return status;
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  status = UCOV_EXIT_OK;
  for (;;) {
    int last = stopping, over = 0;
    if (o.all) {
      struct all a = {&c, UCOV_EXIT_OK};
      ucov_ctl_list_targets(each_target, &a);
      status = a.status;
    } else {
      status = collect_target(&c, &o.t, &over);
    }
    if (over || o.once || last)
      break;
    /* sleep until the next round, or until asked to stop (then one last round) */
    struct timespec nap = {(time_t)o.every, (long)((o.every - (double)(time_t)o.every) * 1e9)};
    while (!stopping && nanosleep(&nap, &nap) && errno == EINTR)
      ;
  }
  if (!c.quiet && !o.once)
    UCOV_ERR("%" PRIu64 " rounds, %" PRIu64 " pushes\n", c.rounds, c.pushes);
  store_close(c.st);
  return status;
}
