/* SPDX-License-Identifier: MIT */
/*
 * The two phases of `ucov pull --reset`, and their recovery: a durable
 * marker names the snapshots written, COMMIT moves the target's baselines,
 * and each object is then published, dropped, or kept aside when its
 * outcome cannot be known. A pull killed anywhere is finished by the next
 * one into the same DIR (or --recover), from the target's answer or, when
 * it is gone, from its commit record; --resolve settles what was kept aside.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "pull.h"

/* What becomes of each object of a snapshot once its outcome is known:
 * committed, its file is the object (PUBLISH); never committed, its counts
 * are still in the target or in the target's exit files (DROP); not
 * knowable, kept aside and said (ASIDE): never deleted on a guess. */
enum fate { FATE_PUBLISH, FATE_DROP, FATE_ASIDE };

/* Names beneath DIR (every file a pull writes is resolved beneath it, no
 * link followed: posix/beneath.h). */
char *marker_path(const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, ".ucov-pending.%s.%" PRIu64, target, token) < 0 ? NULL : p;
}

char *tmp_path(const char *name, const char *target, uint64_t token) {
  char *p = NULL;
  return asprintf(&p, "%s.ucov-tmp.%s.%" PRIu64, name, target, token) < 0 ? NULL : p;
}

void target_id(const struct ucov_ctl *c, char *out, size_t len) {
  if (c->serial)
    snprintf(out, len, "serial");
  else
    snprintf(out, len, "%d", (int)c->pid);
}

int write_marker(const char *dir, const char *path, const char *target, const char *instance,
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

/* COMMIT token for n objects: FATE_PUBLISH (committed now or before),
 * FATE_DROP (never committed, and now never will be), FATE_ASIDE (the target
 * forgot), or -1: no answer (all is left for a later recovery). */
static int commit_outcome(struct ucov_ctl *c, uint64_t token, long n, int quiet) {
  uint8_t req[12];
  ucov_put64(req, token);
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
    if (fate[i] == FATE_PUBLISH && have && publish(tmp, dir, names[i], NULL, 0))
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
    diag_at(DIAG_ERROR, dir, 0,
            "the target committed this pull, but not every object could be published: "
            "the next `ucov pull` or `ucov pull --recover` into it publishes them");
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
        diag_at(DIAG_ERROR, dir, 0,
                "%ld objects of an interrupted pull (target %s, token %" PRIu64
                ") are kept aside: whether the target committed them cannot be known (it is "
                "gone and left no record of its commits, or forgot). They are in no report until "
                "`ucov pull --resolve publish -o %s` (the target died without writing them "
                "anywhere else) or `ucov pull --resolve discard -o %s` (its exit files hold "
                "them)",
                aside, target, token, dir, dir);
    }
    /* The renames durable (all at once) before the marker that lists them goes. */
    if (!failed && sync_tree(dir) != 0) {
      UCOV_ERR("%s: %s: the next `ucov pull` or `ucov pull --recover` into %s finishes it\n", dir,
               strerror(errno), dir);
      failed = 1;
    } else if (!failed && ucov_at_unlink(dir, m) != 0 && errno != ENOENT) {
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

int commit_pull(struct ucov_ctl *c, const char *dir, const char *target, const char *instance,
                uint64_t token, char **names, long n, int quiet) {
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

void target_instance(struct ucov_ctl *c, char *out, size_t len) {
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

int recover_pulls(struct ucov_ctl *c, const char *dir, const char *target, const char *instance,
                  int quiet) {
  char prefix[64];
  snprintf(prefix, sizeof(prefix), ".ucov-pending.%s.", target);
  DIR *d = opendir(dir);
  if (!d) { /* (no directory: nothing left there; unreadable: not known) */
    if (errno == ENOENT)
      return 0;
    diag_at(DIAG_ERROR, dir, 0, "%s: its interrupted pulls are not known", strerror(errno));
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
      diag_at(DIAG_ERROR, path, 0, "not a marker of ucov pull: left alone");
      unfinished++;
    }
    free(path);
  }
  if (errno) { /* (the directory read whole, or not all its markers known) */
    diag_at(DIAG_ERROR, dir, 0, "%s: its interrupted pulls are not all known", strerror(errno));
    unfinished++;
  }
  closedir(d);
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    remove_orphans(dir, dfd, target, 0);
  return unfinished;
}

int resolve_aside(const char *dir, int publish_them) {
  DIR *d = opendir(dir);
  if (!d) {
    diag_at(DIAG_ERROR, dir, 0, "%s", strerror(errno));
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
      diag_at(DIAG_ERROR, path, 0, "not a marker of ucov pull: left alone");
      status = UCOV_EXIT_FAIL;
    }
    free(path);
  }
  closedir(d);
  UCOV_ERR("%s %ld objects kept aside in %s\n", publish_them ? "published" : "discarded", settled,
           dir);
  return status;
}
