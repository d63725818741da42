/* SPDX-License-Identifier: MIT */
/* Report inputs: detect what a path holds and read it into the model (see inputs.h). */
#define _GNU_SOURCE
#include "inputs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dwarf.h"
#include "formats.h"
#include "gcov_native.h"
#include "json.h"
#include "modmap.h"
#include "ucov/kcov.h"

struct strlist {
  char **v;
  size_t n, cap;
};

/* Add a copy of s; out of memory, a message and nothing added. */
static void sl_add(struct strlist *l, const char *s) {
  char *c = strdup(s);
  if (!c || UCOV_GROW(l->v, l->cap, l->n, 64)) {
    UCOV_ERR("out of memory: %s left out\n", s);
    free(c);
    return;
  }
  l->v[l->n++] = c;
}

static void sl_free(struct strlist *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof(*l));
}

/*
 * Files and directories already read in this report, by identity (device,
 * inode): the same data reached twice (a directory and a link to it, a file
 * named twice, a hard link) counts once. An open-addressed set.
 */
static struct ident {
  dev_t dev;
  ino_t ino;
} * seen_ids;
static size_t n_seen_ids, cap_seen_ids; /* cap: 0 or a power of two */

static size_t ident_slot(const struct ident *v, size_t cap, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
  size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
  while ((v[i].dev || v[i].ino) && !(v[i].dev == dev && v[i].ino == ino))
    i = (i + 1) & (cap - 1);
  return i;
}

/* 1 when st's file was read before in this report; else it is noted, 0. */
static int read_before(const struct stat *st) {
  if (!st->st_dev && !st->st_ino)
    return 0;
  if (2 * (n_seen_ids + 1) > cap_seen_ids) {
    size_t cap = cap_seen_ids ? 2 * cap_seen_ids : 256;
    struct ident *v = calloc(cap, sizeof(*v));
    if (!v)
      return 0; /* out of memory: read it (as before) */
    for (size_t i = 0; i < cap_seen_ids; i++)
      if (seen_ids[i].dev || seen_ids[i].ino)
        v[ident_slot(v, cap, seen_ids[i].dev, seen_ids[i].ino)] = seen_ids[i];
    free(seen_ids);
    seen_ids = v, cap_seen_ids = cap;
  }
  size_t i = ident_slot(seen_ids, cap_seen_ids, st->st_dev, st->st_ino);
  if (seen_ids[i].dev == st->st_dev && seen_ids[i].ino == st->st_ino)
    return 1;
  seen_ids[i] = (struct ident){st->st_dev, st->st_ino};
  n_seen_ids++;
  return 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A temporary path a tool sees, and the user's path it stands for. */
struct path_map {
  const char *from, *to;
};

/* Write the tool's error text with each temporary path replaced by the
 * user's: a message about a corrupt .gcda names the file the user gave. */
static void print_mapped(const char *text, size_t n, const struct path_map *map, size_t n_map) {
  size_t i = 0;
  while (i < n) {
    size_t best = 0, k = 0;
    for (size_t j = 0; j < n_map; j++) {
      size_t fl = strlen(map[j].from);
      if (fl > best && fl <= n - i && memcmp(text + i, map[j].from, fl) == 0)
        best = fl, k = j;
    }
    if (best) {
      fputs(map[k].to, stderr);
      i += best;
    } else {
      fputc(text[i++], stderr);
    }
  }
}

/* How long a tool (gcov, llvm-cov, llvm-profdata) may run on one input. */
static int tool_timeout_ms(void) {
  const char *e = getenv("UCOV_TOOL_TIMEOUT");
  long s = e && *e ? strtol(e, NULL, 10) : 300;
  return s > 0 && s < 86400 ? (int)(s * 1000) : 300000;
}

/* Append what fd has to *buf (grown), 0; or -1 at EOF or an error. */
static int drain(int fd, char **buf, size_t *n, size_t *cap) {
  if (ucov_grow((void **)buf, cap, *n + 65536, 1, 65536 * 2))
    return -1;
  ssize_t r = read(fd, *buf + *n, 65536);
  if (r < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  if (r <= 0)
    return -1;
  *n += (size_t)r;
  return 0;
}

#define RUN_TIMEOUT (-2)

/*
 * Run argv (in cwd if not NULL) and take its standard output; its standard
 * error is printed once it ends, with temporary paths mapped back to the
 * user's (map). A tool that runs longer than UCOV_TOOL_TIMEOUT seconds (300)
 * is killed: RUN_TIMEOUT. Returns the exit status (127: could not run), -1 on
 * a local failure.
 */
static int run_capture(char *const argv[], const char *cwd, char **out, size_t *len,
                       const struct path_map *map, size_t n_map) {
  int fds[2], efds[2];
  if (pipe2(fds, O_CLOEXEC))
    return -1;
  if (pipe2(efds, O_CLOEXEC)) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    close(efds[0]);
    close(efds[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(efds[1], 2);
    if (cwd && chdir(cwd))
      _exit(127);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  close(efds[1]);
  char *buf = NULL, *ebuf = NULL;
  size_t n = 0, cap = 0, en = 0, ecap = 0;
  int open_out = 1, open_err = 1, failed = 0, timed_out = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int limit = tool_timeout_ms();
  while (open_out || open_err) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    long spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
    if (spent >= limit) {
      timed_out = 1;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd p[2] = {{open_out ? fds[0] : -1, POLLIN, 0},
                          {open_err ? efds[0] : -1, POLLIN, 0}};
    int r = poll(p, 2, (int)(limit - spent));
    if (r < 0 && errno != EINTR) {
      failed = 1;
      break;
    }
    if (r <= 0)
      continue;
    if (open_out && p[0].revents && drain(fds[0], &buf, &n, &cap))
      open_out = 0, failed |= !buf;
    if (open_err && p[1].revents && drain(efds[0], &ebuf, &en, &ecap))
      open_err = 0;
  }
  close(fds[0]);
  close(efds[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (en)
    print_mapped(ebuf, en, map, n_map);
  free(ebuf);
  if (timed_out) {
    free(buf);
    return RUN_TIMEOUT;
  }
  if (failed || (!buf && !(buf = malloc(1)))) {
    free(buf);
    return -1;
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void progress(const struct input_opts *o, const char *what, size_t done, size_t total) {
  if (!o->progress || !total)
    return;
  fprintf(stderr, "\rucov: report: %s %zu/%zu", what, done, total);
  if (done == total)
    fputc('\n', stderr);
  fflush(stderr);
}

/* ---- .gcda through gcov ---- */

/* The .gcno of a .gcda: beside it, or at the build path of a pulled tree. */
static int find_gcno(const char *gcda, char *out, size_t len) {
  size_t n = strlen(gcda) - 5;
  snprintf(out, len, "%.*s.gcno", (int)n, gcda);
  if (access(out, R_OK) == 0)
    return 0;
  for (const char *p = strstr(gcda, "/gcov/"); p; p = strstr(p + 1, "/gcov/")) {
    snprintf(out, len, "%.*s.gcno", (int)(gcda + n - (p + 5)), p + 5);
    if (access(out, R_OK) == 0)
      return 0;
  }
  return -1;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

#define GCOV_BATCH 256

/*
 * One clang .gcda through `llvm-cov gcov -b -t` (which prints gcov's text
 * format: no JSON there), turned into an lcov record for the model. base is
 * the directory relative source names are relative to (the .gcno's).
 */
static int read_llvm_gcda(struct cov_model *m, const char *gcda_abs, const char *gcno_abs,
                          const char *tmp, size_t idx, const char *tool) {
  char dir[PATH_MAX], link[PATH_MAX + 32], base[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/l%zu", tmp, idx);
  mkdir(dir, 0700);
  snprintf(link, sizeof(link), "%s/x.gcno", dir);
  if (symlink(gcno_abs, link))
    return 1;
  snprintf(link, sizeof(link), "%s/x.gcda", dir);
  if (symlink(gcda_abs, link))
    return 1;
  snprintf(base, sizeof(base), "%s", gcno_abs);
  char *slash = strrchr(base, '/');
  if (slash)
    *slash = 0;
  char *out = NULL;
  size_t len = 0;
  char gcno_link[PATH_MAX + 32];
  snprintf(gcno_link, sizeof(gcno_link), "%s/x.gcno", dir);
  struct path_map map[] = {{link, gcda_abs}, {gcno_link, gcno_abs}};
  char *argv[] = {(char *)tool, "gcov", "-b", "-c", "-t", link, NULL};
  /* relative sources: from the .gcno's place */
  int st = run_capture(argv, base, &out, &len, map, 2);
  if (st == RUN_TIMEOUT) {
    UCOV_ERR("%s: llvm-cov gcov ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)\n", gcda_abs,
             tool_timeout_ms() / 1000);
    return 1;
  }
  if (st) {
    UCOV_ERR("%s: clang's gcov format: %s gcov does not read it\n", gcda_abs, tool);
    free(out);
    return 1;
  }
  char info[PATH_MAX + 32];
  snprintf(info, sizeof(info), "%s/x.info", dir);
  FILE *w = fopen(info, "w");
  if (!w) {
    free(out);
    return 1;
  }
  /* Lines: "COUNT:LINE:SOURCE" (COUNT "-" not code, "#####" never run, a
   * trailing '*' unexecuted blocks); "function NAME called N ..." before a
   * function's first line; "branch K taken N" / "branch K never executed". */
  int in_file = 0, last_line = 0, branch_no = 0;
  char fn_name[512] = "";
  long long fn_count = 0;
  /* the functions announced before the next line (several can start on one) */
  struct announced {
    char name[512];
    long long count;
  } *pending = NULL;
  size_t n_pending = 0, cap_pending = 0;
  for (char *line = out, *next; line && line < out + len; line = next) {
    next = memchr(line, '\n', (size_t)(out + len - line));
    if (next)
      *next++ = 0;
    long long count, taken;
    int k, lineno, used = 0;
    if (sscanf(line, "function %511s called %lld", fn_name, &fn_count) == 2) {
      if (!UCOV_GROW(pending, cap_pending, n_pending, 8)) {
        snprintf(pending[n_pending].name, sizeof(pending[0].name), "%s", fn_name);
        pending[n_pending++].count = fn_count;
      }
      continue;
    }
    if (sscanf(line, "branch %d taken %lld", &k, &taken) == 2 && in_file && last_line) {
      fprintf(w, "BRDA:%d,0,%d,%lld\n", last_line, branch_no++, taken);
      continue;
    }
    if (sscanf(line, "branch %d never executed", &k) == 1 && in_file && last_line) {
      fprintf(w, "BRDA:%d,0,%d,-\n", last_line, branch_no++);
      continue;
    }
    char cnt[32];
    if (sscanf(line, " %31[^:]:%d:%n", cnt, &lineno, &used) < 2 || !used)
      continue;
    if (lineno == 0) {
      if (strncmp(line + used, "Source:", 7) == 0) {
        const char *src = line + used + 7;
        if (in_file)
          fputs("end_of_record\n", w);
        if (src[0] == '/')
          fprintf(w, "SF:%s\n", src);
        else
          fprintf(w, "SF:%s/%s\n", base, src);
        in_file = 1;
        n_pending = 0;
        last_line = 0;
      }
      continue;
    }
    if (!in_file)
      continue;
    for (size_t f = 0; f < n_pending; f++)
      fprintf(w, "FN:%d,%s\nFNDA:%lld,%s\n", lineno, pending[f].name, pending[f].count,
              pending[f].name);
    n_pending = 0;
    if (cnt[0] == '-')
      continue;
    last_line = lineno;
    branch_no = 0;
    count = cnt[0] == '#' || cnt[0] == '=' ? 0 : strtoll(cnt, NULL, 10);
    fprintf(w, "DA:%d,%lld\n", lineno, count);
  }
  if (in_file)
    fputs("end_of_record\n", w);
  free(pending);
  free(out);
  if (fclose(w))
    return 1;
  return lcov_read(m, info) != 0;
}

/* Parse gcov's stream of JSON documents (one per .gcda). */
static int read_gcov_stream(struct cov_model *m, const char *out, size_t len) {
  int bad = 0;
  size_t at = 0;
  while (at < len) {
    struct json_doc doc;
    size_t used;
    char msg[200];
    if (json_parse(&doc, out + at, len - at, &used)) {
      UCOV_ERR("gcov output: %s\n", doc.error);
      return bad + 1;
    }
    if (gcov_json_read(m, doc.root, msg, sizeof(msg))) {
      UCOV_ERR("gcov output: %s\n", msg);
      bad++;
    }
    json_free(&doc);
    at += used;
  }
  return bad;
}

/* A private temporary directory under $TMPDIR (else /tmp) into buf, or NULL (said why). */
static char *temp_dir(char *buf, size_t len, const char *what) {
  const char *base = getenv("TMPDIR");
  snprintf(buf, len, "%s/ucov-%s-XXXXXX", base && *base ? base : "/tmp", what);
  char *d = mkdtemp(buf);
  if (!d)
    UCOV_ERR("report: no temporary directory (%s): %s\n", buf, strerror(errno));
  return d;
}

/* .gcda through gcov --json-format (--gcov-tool, or a notes format the
 * native reader does not know), in batches of GCOV_BATCH. */
/*
 * Messages name the user's input, never a temporary file: while the records
 * of a Xen blob are read from a temporary tree, a path in it is said as the
 * blob's record ("BLOB: record /path/x.gcda").
 */
static const char *alias_tmp, *alias_blob;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  char msg[3 * PATH_MAX], out[4 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  size_t tl = alias_tmp ? strlen(alias_tmp) : 0, o = 0;
  for (const char *p = msg; *p && o + 1 < sizeof(out);) {
    if (tl && !strncmp(p, alias_tmp, tl)) {
      o += (size_t)snprintf(out + o, sizeof(out) - o, "%s: record ", alias_blob);
      p += tl;
    } else {
      out[o++] = *p++;
    }
  }
  out[o < sizeof(out) ? o : sizeof(out) - 1] = 0;
  UCOV_ERR("%s", out);
}

static int read_gcdas_gcov(struct cov_model *m, struct strlist *gcdas, const struct input_opts *o) {
  int bad = 0;
  char tmpl[PATH_MAX];
  char *tmp = temp_dir(tmpl, sizeof(tmpl), "report");
  if (!tmp)
    return 1;
  const char *tool = o->gcov_tool ? o->gcov_tool : "gcov";
  /* gcov runs in a temporary directory: a relative path to it would not. */
  char tool_abs[PATH_MAX];
  if (strchr(tool, '/') && tool[0] != '/' && realpath(tool, tool_abs))
    tool = tool_abs;
  int cannot_run = 0; /* said once: the batches after it are not tried */
  for (size_t start = 0; start < gcdas->n && !cannot_run; start += GCOV_BATCH) {
    size_t end = start + GCOV_BATCH < gcdas->n ? start + GCOV_BATCH : gcdas->n;
    char **argv = calloc(end - start + 5, sizeof(*argv));
    struct path_map *map = calloc(2 * (end - start) + 1, sizeof(*map));
    /* the strings the map points at: links, and copies of the user's notes paths */
    char **users = calloc(3 * (end - start) + 1, sizeof(*users));
    size_t n_users = 0;
    size_t n_map = 0;
    if (!argv || !map || !users) {
      free(argv);
      free(map);
      free(users);
      bad++;
      break;
    }
    int argc = 0;
    argv[argc++] = (char *)tool;
    argv[argc++] = "--json-format";
    argv[argc++] = "--stdout";
    argv[argc++] = "--branch-probabilities";
    for (size_t i = start; i < end; i++) {
      const char *g = gcdas->v[i];
      char gcno[PATH_MAX], gcno_abs[PATH_MAX], dir[64], link[PATH_MAX + 64], abs[PATH_MAX];
      /* a .gcno alone: a unit that never ran (gcov assumes "not executed") */
      int notes_only = ends_with(g, ".gcno");
      if (notes_only) {
        snprintf(gcno, sizeof(gcno), "%s", g);
      } else if (find_gcno(g, gcno, sizeof(gcno))) {
        say("%s: no .gcno beside it or at its build path: skipped\n", g);
        bad++;
        continue;
      }
      if (!realpath(gcno, gcno_abs) || (!notes_only && !realpath(g, abs)))
        continue;
      /* gcov wants both side by side: links in a directory of their own. */
      const char *base = strrchr(gcno, '/');
      base = base ? base + 1 : gcno;
      snprintf(dir, sizeof(dir), "%s/%zu", tmp, i);
      mkdir(dir, 0700);
      if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, base) >= sizeof(link))
        continue;
      size_t bl = strlen(link);
      int ok = symlink(gcno_abs, link) == 0;
      char *gcno_link = strdup(link);
      snprintf(link + bl - 5, 6, ".gcda");
      if (ok && (notes_only || symlink(abs, link) == 0) && gcno_link) {
        argv[argc++] = strdup(link);
        /* gcov names what it reads: its messages name the user's files. */
        char *gcda_link = strdup(link), *user_gcno = strdup(gcno);
        users[n_users++] = gcno_link;
        if (user_gcno) {
          users[n_users++] = user_gcno;
          map[n_map++] = (struct path_map){gcno_link, user_gcno};
        }
        if (gcda_link) {
          users[n_users++] = gcda_link;
          map[n_map++] = (struct path_map){gcda_link, g};
        }
      } else {
        free(gcno_link);
      }
    }
    char *out = NULL;
    size_t len = 0;
    int st = argc > 4 ? run_capture(argv, tmp, &out, &len, map, n_map) : 0;
    if (st == RUN_TIMEOUT)
      say("%s ran longer than %d s on %s%s: killed (UCOV_TOOL_TIMEOUT)\n", tool,
          tool_timeout_ms() / 1000, gcdas->v[start],
          end - start > 1 ? " and the .gcda after it" : "");
    else if (st == 127)
      say("cannot run %s (--gcov-tool): %zu .gcda not read\n", tool, gcdas->n);
    else if (st)
      say("%s failed (exit %d): some .gcda not read\n", tool, st);
    bad += st != 0;
    cannot_run = st == 127;
    if (out)
      bad += read_gcov_stream(m, out, len);
    free(out);
    for (int i = 4; i < argc; i++)
      free(argv[i]);
    free(argv);
    for (size_t i = 0; i < n_users; i++)
      free(users[i]);
    free(users);
    free(map);
    progress(o, ".gcda", end, gcdas->n);
  }
  nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return bad;
}

/* The notes files a .gcda of this run paired with, and those the inputs
 * held (real paths; sorted by input_finish): a .gcno seen in the inputs is
 * a never-run unit only if no .gcda used it. */
static struct strlist used_gcno, seen_gcno;
/* Of used_gcno, those in another directory than their .gcda (a pulled or
 * exit tree's units, at their build paths): input_add_build_notes. */
static struct strlist away_gcno;

/* Whether two real paths are in different directories. */
static int other_dirs(const char *a, const char *b) {
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  return !sa || !sb || sa - a != sb - b || strncmp(a, b, (size_t)(sa - a)) != 0;
}

/* Is --gcov-tool an llvm-cov (run as `TOOL gcov`, for clang's notes)? */
static int tool_is_llvm_cov(const char *tool) {
  const char *base = tool ? strrchr(tool, '/') : NULL;
  base = base ? base + 1 : tool;
  return base && strncmp(base, "llvm-cov", 8) == 0;
}

/* A unit read natively from its n .gcda files (none: at zero), told to a
 * push first. */
static int read_unit(struct cov_model *m, const char *gcno, const char *const *gcdas, size_t n,
                     const struct input_opts *o, char *err, size_t len) {
  for (size_t i = 0; o->unit && i < (n ? n : 1); i++)
    if (o->unit(o->unit_arg, gcno, n ? gcdas[i] : NULL)) {
      snprintf(err, len, "%s: out of memory", n ? gcdas[i] : gcno);
      return -1;
    }
  m->reading_unit = o->unit != NULL;
  int r = gcovn_read_many(m, gcno, gcdas, n, err, len);
  m->reading_unit = 0;
  return r;
}

/* The .gcda files to read natively, kept until input_finish: the runs of
 * one unit, whatever inputs they came in, are summed and solved once (the
 * lines of one run doing all their work). (A Xen blob's, split into a
 * temporary directory, are read before it goes: summed within the blob.) */
struct pending {
  char *gcno, *gcda;
};
struct pend_list {
  struct pending *v;
  size_t n, cap;
};
static struct pend_list pend;

static int pend_add(struct pend_list *l, const char *gcno, const char *gcda) {
  char *a = strdup(gcno), *b = strdup(gcda);
  if (!a || !b || UCOV_GROW(l->v, l->cap, l->n, 64)) {
    free(a);
    free(b);
    return -1;
  }
  l->v[l->n++] = (struct pending){a, b};
  return 0;
}

static int cmp_pending(const void *x, const void *y) {
  const struct pending *a = x, *b = y;
  int c = strcmp(a->gcno, b->gcno);
  return c ? c : strcmp(a->gcda, b->gcda);
}

static int read_pending(struct cov_model *m, struct pend_list *l, const struct input_opts *o) {
  int bad = 0;
  struct pending *v = l->v;
  if (l->n > 1)
    qsort(v, l->n, sizeof(*v), cmp_pending);
  const char **gcdas = malloc((l->n + 1) * sizeof(*gcdas));
  for (size_t i = 0, e; i < l->n; i = e) {
    size_t n = 0;
    for (e = i; e < l->n && !strcmp(v[e].gcno, v[i].gcno); e++)
      if (gcdas)
        gcdas[n++] = v[e].gcda;
    char err[PATH_MAX + 256];
    if (!gcdas) {
      say("%s: out of memory\n", v[i].gcno);
      bad++;
    } else if (read_unit(m, v[i].gcno, gcdas, n, o, err, sizeof(err))) {
      say("%s\n", err);
      bad++;
    }
  }
  free(gcdas);
  for (size_t i = 0; i < l->n; i++) {
    free(v[i].gcno);
    free(v[i].gcda);
  }
  free(v);
  memset(l, 0, sizeof(*l));
  return bad;
}

/*
 * .gcda files are read natively with their notes (gcc's GCC 12-15, clang's).
 * --gcov-tool names the tool that reads them instead: a gcov for gcc's, an
 * llvm-cov (`llvm-cov gcov`) for clang's; a gcc version the native reader
 * does not know goes through gcov.
 */
static int read_gcdas(struct cov_model *m, struct strlist *gcdas, const struct input_opts *o) {
  struct strlist via_gcov = {0};
  struct pend_list now = {0}; /* (a Xen blob's: read before its directory goes) */
  int bad = 0, llvm_tool = tool_is_llvm_cov(o->gcov_tool);
  char tmpl[PATH_MAX] = "", *tmp = NULL;
  for (size_t i = 0; i < gcdas->n; i++) {
    const char *g = gcdas->v[i];
    char gcno[PATH_MAX], gcno_abs[PATH_MAX], abs[PATH_MAX];
    if (find_gcno(g, gcno, sizeof(gcno))) {
      say("%s: no .gcno beside it or at its build path: skipped\n", g);
      bad++;
      continue;
    }
    if (!realpath(g, abs) || !realpath(gcno, gcno_abs)) {
      say("%s: %s\n", g, strerror(errno));
      bad++;
      continue;
    }
    struct stat st;
    if (stat(gcno_abs, &st) == 0 && !S_ISREG(st.st_mode)) {
      say("%s: its notes %s: not a regular file: skipped\n", g, gcno);
      bad++;
      continue;
    }
    sl_add(&used_gcno, gcno_abs);
    if (other_dirs(gcno_abs, abs))
      sl_add(&away_gcno, gcno_abs);
    enum gcovn_kind kind = gcovn_kind(gcno_abs);
    if (kind == GCOVN_LLVM && llvm_tool) {
      if (!tmp)
        tmp = temp_dir(tmpl, sizeof(tmpl), "report");
      bad += tmp ? read_llvm_gcda(m, abs, gcno_abs, tmp, i, o->gcov_tool) : 1;
    } else if ((kind == GCOVN_GCC && (!o->gcov_tool || llvm_tool)) ||
               (kind == GCOVN_LLVM && !llvm_tool)) {
      if (pend_add(alias_tmp ? &now : &pend, gcno_abs, abs)) {
        say("%s: out of memory\n", g);
        bad++;
      }
    } else {
      sl_add(&via_gcov, g);
    }
    progress(o, ".gcda", i + 1, gcdas->n);
  }
  if (now.n)
    bad += read_pending(m, &now, o);
  if (via_gcov.n)
    bad += read_gcdas_gcov(m, &via_gcov, o);
  sl_free(&via_gcov);
  if (tmp)
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return bad;
}

/* ---- raw and indexed LLVM profiles ---- */

/*
 * The profiles the inputs held, by program: each kept until every input is
 * read (input_finish), then all of one program's merged once and exported
 * once, in JSON (regions, branches, MC/DC).
 */
struct prof_group {
  char *key; /* the program and its shared objects, a line each */
  const char **bins;
  int n_bins;
  struct strlist paths;
};

static struct prof_group *prof_groups;
static size_t n_prof_groups, cap_prof_groups;

static int prof_pending(const char *path, const char *const *bins, int n_bins) {
  size_t klen = 1;
  for (int b = 0; b < n_bins; b++)
    klen += strlen(bins[b]) + 1;
  char *key = malloc(klen);
  if (!key)
    return -1;
  key[0] = 0;
  for (int b = 0; b < n_bins; b++)
    strcat(strcat(key, bins[b]), "\n");
  size_t g = 0;
  while (g < n_prof_groups && strcmp(prof_groups[g].key, key) != 0)
    g++;
  if (g == n_prof_groups) {
    const char **copy = calloc((size_t)n_bins + 1, sizeof(*copy));
    if (!copy || UCOV_GROW(prof_groups, cap_prof_groups, n_prof_groups, 4)) {
      free(copy);
      free(key);
      return -1;
    }
    for (int b = 0; b < n_bins; b++)
      copy[b] = strdup(bins[b]);
    prof_groups[n_prof_groups++] = (struct prof_group){key, copy, n_bins, {0}};
  } else {
    free(key);
  }
  sl_add(&prof_groups[g].paths, path);
  return 0;
}

/* The llvm tools' suffixes to try for a profile: raw version 8 is clang
 * 14-17, 9 clang 18, 10 clang 19+; an indexed profile, any. -1: unreadable. */
static int profile_suffixes(const char *path, const char *const **out) {
  static const char *v8[] = {"", "-16", "-17", "-15", "-14", NULL};
  static const char *v9[] = {"-18", "", NULL};
  static const char *v10[] = {"-19", "-20", "-21", "", NULL};
  static const char *any[] = {"", "-19", "-18", "-17", "-16", "-15", "-14", NULL};
  FILE *f = ucov_fopen_regular(path);
  uint64_t hdr[2] = {0, 0};
  if (!f || fread(hdr, 8, 2, f) != 2) {
    UCOV_ERR("%s: %s\n", path, f ? "too short for an LLVM profile" : ucov_strerror(errno));
    if (f)
      fclose(f);
    return -1;
  }
  fclose(f);
  *out = any;
  if (hdr[0] == 0xff6c70726f667281ull) {
    uint32_t v = (uint32_t)hdr[1];
    *out = v == 8 ? v8 : v == 9 ? v9 : v == 10 ? v10 : any;
  }
  return 0;
}

/* The major version of an llvm-cov ("LLVM version 14.0.6"); 0 if unknown. */
static int llvm_cov_major(const char *cov) {
  char *argv[] = {(char *)cov, "--version", NULL}, *out = NULL;
  size_t len;
  int major = 0;
  if (run_capture(argv, NULL, &out, &len, NULL, 0) == 0 && out) {
    const char *v = strstr(out, "LLVM version ");
    major = v ? atoi(v + 13) : 0;
  }
  free(out);
  return major;
}

/* One program's profiles: `llvm-profdata merge` of them all, then one
 * `llvm-cov export -format=text`, read into the model. */
static int read_profiles(struct cov_model *m, struct prof_group *g) {
  if (!g->n_bins) {
    for (size_t i = 0; i < g->paths.n; i++)
      UCOV_ERR("%s: an LLVM profile needs --binary PROG (the instrumented program)\n",
               g->paths.v[i]);
    return (int)g->paths.n;
  }
  int bad = 0;
  const char *const *suffixes = NULL;
  struct strlist ok = {0};
  for (size_t i = 0; i < g->paths.n; i++) {
    const char *const *s;
    if (profile_suffixes(g->paths.v[i], &s)) {
      bad++;
      continue;
    }
    if (!suffixes || (s[0][0] && !suffixes[0][0]))
      suffixes = s; /* a raw profile's version names the tools */
    sl_add(&ok, g->paths.v[i]);
  }
  char tmpl[PATH_MAX];
  char *tmp = ok.n ? temp_dir(tmpl, sizeof(tmpl), "profile") : NULL;
  char **argv = tmp ? calloc(ok.n + 2 * (size_t)g->n_bins + 8, sizeof(*argv)) : NULL;
  if (!argv) {
    bad += (int)ok.n;
    ok.n = 0;
  }
  char merged[PATH_MAX];
  if (tmp)
    snprintf(merged, sizeof(merged), "%s/merged.profdata", tmp);
  int done = !ok.n;
  for (int i = 0; !done && suffixes[i]; i++) {
    char profdata[64], cov[64];
    snprintf(profdata, sizeof(profdata), "llvm-profdata%s", suffixes[i]);
    snprintf(cov, sizeof(cov), "llvm-cov%s", suffixes[i]);
    int argc = 0;
    argv[argc++] = profdata;
    argv[argc++] = "merge";
    argv[argc++] = "-o";
    argv[argc++] = merged;
    for (size_t k = 0; k < ok.n; k++)
      argv[argc++] = ok.v[k];
    argv[argc] = NULL;
    char *out = NULL;
    size_t len;
    int st = run_capture(argv, NULL, &out, &len, NULL, 0);
    free(out);
    if (st == RUN_TIMEOUT) {
      UCOV_ERR("%s: %s ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)\n", ok.v[0], profdata,
               tool_timeout_ms() / 1000);
      break;
    }
    if (st)
      continue;
    argc = 0;
    argv[argc++] = cov;
    argv[argc++] = "export";
    argv[argc++] = "-format=text";
    argv[argc++] = "-skip-expansions"; /* (they repeat whole functions: 50x the size) */
    argv[argc++] = "-instr-profile";
    argv[argc++] = merged;
    argv[argc++] = (char *)g->bins[0];
    for (int b = 1; b < g->n_bins; b++) {
      argv[argc++] = "-object";
      argv[argc++] = (char *)g->bins[b];
    }
    argv[argc] = NULL;
    out = NULL;
    struct path_map pmap[] = {{merged, "(the merged profiles)"}};
    st = run_capture(argv, NULL, &out, &len, pmap, 1);
    if (st == RUN_TIMEOUT) {
      UCOV_ERR("%s: %s ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)\n", g->bins[0], cov,
               tool_timeout_ms() / 1000);
      break;
    }
    if (st == 0 && out) {
      struct json_doc doc;
      size_t used;
      char msg[200];
      int major = llvm_cov_major(cov);
      if (json_parse(&doc, out, len, &used))
        UCOV_ERR("%s: %s\n", cov, doc.error);
      else if (llvm_export_read(m, doc.root, major, msg, sizeof(msg)))
        UCOV_ERR("%s: %s\n", cov, msg);
      else
        done = 1;
      json_free(&doc);
    }
    free(out);
    done |= st == 0; /* (a tool that ran and said why it failed: not tried again) */
  }
  if (!done) {
    UCOV_ERR("%s%s: no llvm-profdata/llvm-cov pair here reads %s with %s\n", ok.v[0],
             ok.n > 1 ? " and the profiles with it" : "", ok.n > 1 ? "them" : "it", g->bins[0]);
    bad += (int)ok.n;
  }
  free(argv);
  sl_free(&ok);
  if (tmp)
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return bad;
}

static int read_all_profiles(struct cov_model *m) {
  int bad = 0;
  for (size_t g = 0; g < n_prof_groups; g++) {
    bad += read_profiles(m, &prof_groups[g]);
    for (int b = 0; b < prof_groups[g].n_bins; b++)
      free((char *)prof_groups[g].bins[b]);
    free(prof_groups[g].bins);
    free(prof_groups[g].key);
    sl_free(&prof_groups[g].paths);
  }
  free(prof_groups);
  prof_groups = NULL;
  n_prof_groups = cap_prof_groups = 0;
  return bad;
}

/* ---- traces: PCs against the trace-pc call sites of their modules ---- */

/* Read a module map file; quiet: no message when it cannot be read. 0 or -1. */
static int load_modmap(const char *path, struct modmap *map, int quiet) {
  FILE *f = ucov_fopen_regular(path);
  char err[512];
  int ret = f ? modmap_read(map, f, path, err, sizeof(err)) : -1;
  if (ret && !quiet)
    UCOV_ERR("%s: %s\n", path, f ? err : ucov_strerror(errno));
  if (f)
    fclose(f);
  return ret ? -1 : 0;
}

struct trace_module {
  char *path;
  struct dw_module dw;
  uint64_t *sites, *hits; /* calls and tail jumps (tail[i]), in address order */
  uint8_t *tail;
  long n_sites;
  struct dw_tail_return *rets; /* calls into functions with tail jumps */
  size_t n_rets;
  struct dw_tail_return *tail_fns; /* functions with tail jumps */
  size_t n_tail_fns;
  uint64_t *indirect; /* returns after indirect calls */
  size_t n_indirect;
  long recent[64]; /* the sites counted last, in trace order (a ring) */
  unsigned n_recent;
  int ok, used, warned;
};

static struct trace_module *tmods;
static size_t n_tmods;

/* A module's call sites and DWARF, loaded once; quiet: a module without the
 * hook (libc, the vdso) is left out without a word. */
static struct trace_module *trace_module_q(const char *path, int quiet) {
  for (size_t i = 0; i < n_tmods; i++)
    if (strcmp(tmods[i].path, path) == 0)
      return tmods[i].ok ? &tmods[i] : NULL;
  struct trace_module *v = realloc(tmods, (n_tmods + 1) * sizeof(*v));
  if (!v)
    return NULL;
  tmods = v;
  struct trace_module *t = &tmods[n_tmods++];
  memset(t, 0, sizeof(*t));
  t->path = strdup(path);
  char err[512];
  struct dw_hook_sites hs;
  int st = dw_hook_sites(path, &hs, err, sizeof(err));
  if (st) {
    if (!(quiet && st == -2))
      UCOV_ERR("%s\n", err);
    return NULL;
  }
  if (dw_load(&t->dw, path, err, sizeof(err))) {
    UCOV_ERR("%s\n", err);
    dw_hook_sites_free(&hs);
    return NULL;
  }
  t->sites = hs.at;
  t->tail = hs.tail;
  t->n_sites = (long)hs.n;
  t->rets = hs.rets;
  t->n_rets = hs.n_rets;
  t->tail_fns = hs.tail_fns;
  t->n_tail_fns = hs.n_tail_fns;
  t->indirect = hs.indirect;
  t->n_indirect = hs.n_indirect;
  if (!t->dw.has_dwarf)
    UCOV_ERR("%s: no DWARF debug info (build with -g): its PCs have no lines\n", path);
  t->hits = calloc((size_t)t->n_sites + 1, sizeof(*t->hits));
  t->ok = t->hits != NULL;
  return t->ok ? t : NULL;
}

static struct trace_module *trace_module(const char *path) {
  return trace_module_q(path, 0);
}

/* The index of the first of v[0..n) (sorted) at or after a. */
static size_t lower_u64(const uint64_t *v, size_t n, uint64_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid] < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The first site at or after address a. */
static long site_from(const struct trace_module *t, uint64_t a) {
  return (long)lower_u64(t->sites, (size_t)t->n_sites, a);
}

static void count_site(struct trace_module *t, long s) {
  t->hits[s]++;
  t->recent[t->n_recent++ % 64] = s;
}

/* The function with tail jumps that holds address a, or NULL. */
static const struct dw_tail_return *tail_fn_of(const struct trace_module *t, uint64_t a) {
  size_t lo = 0, hi = t->n_tail_fns;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->tail_fns[mid].lo <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && a < t->tail_fns[lo - 1].hi ? &t->tail_fns[lo - 1] : NULL;
}

/* Count the first tail jump after site r and before site end: 0, or -1 if none. */
static int count_tail_after(struct trace_module *t, long r, long end) {
  for (long s = r + 1; s < end; s++)
    if (t->tail[s]) {
      count_site(t, s);
      return 0;
    }
  return -1;
}

/* After an indirect call, the callee is the function of the latest site
 * traced that a tail jump of its function follows: count that jump. */
static int count_indirect(struct trace_module *t, uint64_t ret) {
  size_t at = lower_u64(t->indirect, t->n_indirect, ret);
  if (at == t->n_indirect || t->indirect[at] != ret)
    return -1;
  for (unsigned k = 0; k < 64 && k < t->n_recent; k++) {
    long r = t->recent[(t->n_recent - 1 - k) % 64];
    const struct dw_tail_return *fn = tail_fn_of(t, t->sites[r]);
    if (fn && count_tail_after(t, r, site_from(t, fn->hi)) == 0)
      return 0;
  }
  return -1;
}

/*
 * Count a traced PC (a return address) at its site: the 5-byte call just
 * before it. Else, if it returns from a direct call to a function whose
 * hook call became a tail jump, at one of that function's tail jumps: the
 * first after the function's own site traced last (its path's block before
 * the jump); with no such site among the recent ones (a deduplicated or
 * sorted dump), at each of them. Else after an indirect call (above).
 * 0, or -1: no site of this module.
 */
static int count_pc(struct trace_module *t, uint64_t ret) {
  long s = site_from(t, ret - 5);
  if (s < t->n_sites && t->sites[s] == ret - 5 && !t->tail[s]) {
    count_site(t, s);
    return 0;
  }
  size_t lo = 0, hi = t->n_rets;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->rets[mid].ret < ret)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == t->n_rets || t->rets[lo].ret != ret)
    return count_indirect(t, ret);
  long first = site_from(t, t->rets[lo].lo), end = site_from(t, t->rets[lo].hi);
  for (unsigned k = 0; k < 64 && k < t->n_recent; k++) {
    long r = t->recent[(t->n_recent - 1 - k) % 64];
    if (r >= first && r < end) {
      if (count_tail_after(t, r, end) == 0)
        return 0;
      break;
    }
  }
  int found = -1;
  for (s = first; s < end; s++)
    if (t->tail[s]) {
      count_site(t, s);
      found = 0;
    }
  return found;
}

struct line_hit {
  const char *file;
  uint32_t line;
  uint64_t count;
};

static int cmp_line_hit(const void *a, const void *b) {
  const struct line_hit *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  return c ? c : (x->line < y->line ? -1 : x->line > y->line);
}

/*
 * A module's sites into the model: each site's line (the innermost frame's),
 * hit as often as its PC came back (a line with several sites: the most
 * hits); each function once, counted by its first site.
 */
static void trace_flush(struct cov_model *m, struct trace_module *t) {
  struct line_hit *lh = malloc(((size_t)t->n_sites + 1) * sizeof(*lh));
  size_t n = 0;
  char **seen = NULL;
  size_t n_seen = 0;
  long no_line = 0;
  for (long i = 0; lh && i < t->n_sites; i++) {
    struct dw_frame fr[16];
    if (dw_lookup(&t->dw, t->sites[i], fr, 16) <= 0 || !fr[0].file || !fr[0].line) {
      no_line++;
      continue;
    }
    lh[n++] = (struct line_hit){fr[0].file, fr[0].line, t->hits[i]};
    if (!fr[0].function)
      continue;
    size_t k = 0;
    while (k < n_seen && strcmp(seen[k], fr[0].function) != 0)
      k++;
    if (k < n_seen)
      continue;
    char **ns = realloc(seen, (n_seen + 1) * sizeof(*ns));
    if (!ns)
      continue;
    seen = ns;
    seen[n_seen++] = (char *)fr[0].function;
    struct cov_file *f = cov_file(m, fr[0].fn_file ? fr[0].fn_file : fr[0].file, NULL);
    if (f)
      cov_add_func(f, fr[0].function, fr[0].fn_line ? fr[0].fn_line : fr[0].line, t->hits[i]);
  }
  if (n > 1)
    qsort(lh, n, sizeof(*lh), cmp_line_hit);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t most = 0;
    for (; j < n && !cmp_line_hit(&lh[i], &lh[j]); j++)
      most = lh[j].count > most ? lh[j].count : most;
    struct cov_file *f = cov_file(m, lh[i].file, NULL);
    if (f)
      cov_add_line(f, lh[i].line, most);
    i = j;
  }
  if (no_line && t->dw.has_dwarf && !t->warned) {
    UCOV_ERR("%s: %ld of %ld trace-pc call sites have no line information%s\n", t->path, no_line,
             t->n_sites, no_line == t->n_sites ? " (build with -g)" : "");
    t->warned = 1;
  }
  free(seen);
  free(lh);
  memset(t->hits, 0, ((size_t)t->n_sites + 1) * sizeof(*t->hits));
}

/* PCs of one dump: text (hex per line) or a KCOV buffer (.kcov). */
static int read_pcs(struct cov_model *m, const char *path, const struct input_opts *o,
                    const char *modules) {
  struct modmap map = {0};
  int have_map = 0, bad = 0;
  if (modules) {
    if (load_modmap(modules, &map, 0))
      return 1;
    have_map = 1;
  } else if (!o->n_binaries) {
    UCOV_ERR("%s: PCs need --binary PROG or --modules MAP\n", path);
    return 1;
  }
  FILE *f = ucov_fopen_regular(path);
  if (!f) {
    UCOV_ERR("%s: %s\n", path, ucov_strerror(errno));
    if (have_map)
      modmap_free(&map);
    return 1;
  }
  for (size_t i = 0; i < n_tmods; i++)
    tmods[i].used = 0, tmods[i].n_recent = 0;
  /* Every instrumented module counts, hit or not: the binaries, or the
   * mapped files that call the hook. */
  if (!have_map)
    for (int i = 0; i < o->n_binaries; i++) {
      struct trace_module *t = trace_module(o->binaries[i]);
      if (t)
        t->used = 1;
    }
  for (size_t i = 0; have_map && i < map.count; i++) {
    const struct modmap_entry *e = &map.entries[i];
    struct trace_module *t =
        e->perms[2] == 'x' && e->path[0] == '/' ? trace_module_q(e->path, 1) : NULL;
    if (t)
      t->used = 1;
  }
  int kcov = ends_with(path, ".kcov");
  uint64_t total = 0, unknown = 0, words = 0, limit = 0;
  char *line = NULL;
  size_t cap = 0;
  unsigned long lineno = 0;
  for (;;) {
    uint64_t pc;
    if (kcov) {
      if (fread(&pc, 8, 1, f) != 1)
        break;
      if (words++ == 0) { /* the count word: PCs after it are stale */
        limit = pc;
        continue;
      }
      if (words - 1 > limit)
        break;
    } else {
      if (getline(&line, &cap, f) < 0)
        break;
      lineno++;
      char *p = line, *end;
      while (*p == ' ' || *p == '\t')
        p++;
      if (!*p || *p == '\n' || *p == '#')
        continue;
      errno = 0;
      pc = strtoull(p, &end, 16);
      if (end == p || errno) {
        if (bad++ < 3)
          UCOV_ERR("%s:%lu: not a hexadecimal PC\n", path, lineno);
        continue;
      }
    }
    pc = KCOV_RECORD_PC(pc); /* (a kernel's PCs keep their top byte) */
    total++;
    const char *mod = o->n_binaries ? o->binaries[0] : NULL;
    uint64_t addr = pc;
    if (have_map) {
      const struct modmap_entry *e = modmap_find(&map, pc);
      mod = e ? e->path : NULL;
      addr = e ? pc - e->bias : 0;
    }
    struct trace_module *t = mod ? trace_module(mod) : NULL;
    if (!t || count_pc(t, addr)) {
      unknown++;
      continue;
    }
    t->used = 1;
  }
  free(line);
  fclose(f);
  for (size_t i = 0; i < n_tmods; i++)
    if (tmods[i].ok && tmods[i].used)
      trace_flush(m, &tmods[i]);
  if (unknown)
    UCOV_ERR("%s: %" PRIu64 " of %" PRIu64 " PCs are no trace-pc call site of %s%s\n", path,
             unknown, total, have_map ? "their module" : o->binaries[0],
             have_map ? "" : " (another build? PIE or shared objects need --modules)");
  if (total && unknown == total)
    bad++;
  if (have_map)
    modmap_free(&map);
  return bad;
}

/* ---- files and directories ---- */

/* The path of the first module of a module map (the executable). */
/*
 * The module a pulled profile pgo/<name>.profraw belongs to: the module of
 * the map whose file is named <name> (a shared object's), else the first
 * one (the program). 0, or -1 if the map gives none.
 */
static int profile_module(const char *map_path, const char *profile, char *out, size_t len) {
  struct modmap map;
  if (load_modmap(map_path, &map, 1))
    return -1;
  const char *base = strrchr(profile, '/');
  base = base ? base + 1 : profile;
  size_t name_len = strlen(base) - strlen(".profraw");
  int ret = map.count && map.entries[0].path[0] == '/' ? 0 : -1;
  if (!ret)
    snprintf(out, len, "%s", map.entries[0].path);
  for (size_t i = 0; !ret && ends_with(base, ".profraw") && i < map.count; i++) {
    const char *p = map.entries[i].path, *slash = strrchr(p, '/');
    const char *file = slash ? slash + 1 : p;
    if (p[0] == '/' && strlen(file) == name_len && strncmp(file, base, name_len) == 0) {
      snprintf(out, len, "%s", p);
      break;
    }
  }
  modmap_free(&map);
  return ret;
}

static int read_json_file(struct cov_model *m, const char *path) {
  FILE *f = ucov_fopen_regular(path);
  if (!f) {
    UCOV_ERR("%s: %s\n", path, ucov_strerror(errno));
    return 1;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, r;
  do {
    if (UCOV_GROW(buf, cap, len + 65536, 1 << 20)) {
      fclose(f);
      free(buf);
      UCOV_ERR("%s: out of memory\n", path);
      return 1;
    }
    r = fread(buf + len, 1, cap - len, f);
    len += r;
  } while (r > 0);
  fclose(f);
  struct json_doc doc;
  char msg[200];
  int bad = 0;
  if (json_parse(&doc, buf, len, NULL)) {
    UCOV_ERR("%s: not JSON: %s\n", path, doc.error);
    bad = 1;
  } else if (json_get(doc.root, "gcovr/format_version")) {
    if (gcovr_json_read(m, doc.root, msg, sizeof(msg))) {
      UCOV_ERR("%s: %s\n", path, msg);
      bad = 1;
    }
  } else if (json_get(doc.root, "format")) {
    if (ucov_json_read(m, doc.root, msg, sizeof(msg))) {
      UCOV_ERR("%s: %s\n", path, msg);
      bad = 1;
    }
  } else if (gcov_json_read(m, doc.root, msg, sizeof(msg))) {
    UCOV_ERR("%s: neither ucov JSON, gcov's nor gcovr's: %s\n", path, msg);
    bad = 1;
  }
  json_free(&doc);
  free(buf);
  return bad;
}

/* ---- Xen's coverage blob (xencov read): "XCOV", then {path NUL, u32 size, .gcda} ---- */

#define XENCOV_MAGIC 0x58434f56u

/* A blob's record name must be an absolute path with no "." or ".." part. */
static int xencov_name_ok(const char *p) {
  if (p[0] != '/')
    return 0;
  for (const char *c = p; *c; c++)
    if (c[0] == '/' && c[1] == '.' &&
        (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3]))))
      return 0;
  return 1;
}

/*
 * Split the blob as xencov_split does, into a pulled tree's layout in a
 * temporary directory (gcov/<path>.gcda, the notes file found at <path>.gcno),
 * and read that. Every length is bounded by the file.
 */
static int read_xencov(struct cov_model *m, const char *path, const struct input_opts *o) {
  FILE *f = ucov_fopen_regular(path);
  char *blob = NULL;
  size_t len = 0;
  if (f) {
    FILE *mem = open_memstream(&blob, &len);
    char buf[65536];
    size_t k;
    while (mem && (k = fread(buf, 1, sizeof(buf), f)) > 0)
      fwrite(buf, 1, k, mem);
    if (mem)
      fclose(mem);
    fclose(f);
  }
  if (!blob) {
    UCOV_ERR("%s: %s\n", path, strerror(errno));
    return 1;
  }
  char tmpl[PATH_MAX];
  char *tmp = temp_dir(tmpl, sizeof(tmpl), "xencov");
  struct strlist gcdas = {0};
  int bad = !tmp;
  size_t off = 4;
  while (tmp && off < len) {
    const char *name = blob + off;
    const char *nul = memchr(name, 0, len - off);
    uint32_t size = 0;
    if (!nul || (size_t)(nul - name) >= PATH_MAX - 64 || len - (size_t)(nul + 1 - blob) < 4) {
      UCOV_ERR("%s: truncated record at byte %zu\n", path, off);
      bad = 1;
      break;
    }
    memcpy(&size, nul + 1, 4);
    size_t data = (size_t)(nul + 1 - blob) + 4;
    if (size > len - data) {
      UCOV_ERR("%s: record %s claims %u bytes, %zu remain\n", path, name, size, len - data);
      bad = 1;
      break;
    }
    if (!xencov_name_ok(name)) {
      UCOV_ERR("%s: refusing record name '%s'\n", path, name);
      bad = 1;
    } else {
      char out[PATH_MAX + 64];
      snprintf(out, sizeof(out), "%s/gcov%s", tmp, name);
      for (char *c = out + strlen(tmp) + 1; *c; c++)
        if (*c == '/') {
          *c = 0;
          mkdir(out, 0700);
          *c = '/';
        }
      FILE *w = fopen(out, "wb");
      if (w && fwrite(blob + data, 1, size, w) == size && fclose(w) == 0) {
        sl_add(&gcdas, out);
      } else {
        if (w)
          fclose(w);
        UCOV_ERR("%s: record %s: %s\n", path, name, strerror(errno));
        bad = 1;
      }
    }
    off = data + size;
  }
  char prefix[PATH_MAX + 8];
  snprintf(prefix, sizeof(prefix), "%s/gcov", tmp ? tmp : "");
  alias_tmp = prefix;
  alias_blob = path;
  if (gcdas.n)
    bad += read_gcdas(m, &gcdas, o);
  alias_tmp = alias_blob = NULL;
  sl_free(&gcdas);
  if (tmp)
    nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(blob);
  return bad;
}

/* ---- input kinds: one table (how a file is recognised, how a batch is read) ---- */

/* What a file's first bytes hold (up to 16), with leading blanks skipped in text. */
struct head {
  const char *path, *base; /* base: the file's name */
  const unsigned char *b;
  size_t n, text; /* bytes read; index of the first non-blank */
};

static int name_is_gcda(const char *path, const char *base) {
  (void)base;
  return ends_with(path, ".gcda");
}

static int name_is_gcno(const char *path, const char *base) {
  (void)base;
  return ends_with(path, ".gcno");
}

static int name_is_prof(const char *path, const char *base) {
  (void)base;
  return ends_with(path, ".profraw") || ends_with(path, ".profdata");
}

/* Tracefiles and JSON are reports, someone's (ucov's own earlier output, an
 * lcov capture): inputs only when named as files, never found in a
 * directory, whose raw data they would count again. */
static int name_is_report(const char *path) {
  return ends_with(path, ".info") || ends_with(path, ".json");
}

/* KCOV buffer dumps (kcov/<id>.kcov), hex PC dumps (.pcs), syzkaller's rawcover files. */
static int name_is_pcs(const char *path, const char *base) {
  return ends_with(path, ".pcs") || ends_with(path, ".kcov") || strncmp(base, "rawcover", 8) == 0;
}

static int head_is_xencov(const struct head *h) {
  uint32_t magic32;
  memcpy(&magic32, h->b, 4);
  return h->n >= 4 && magic32 == XENCOV_MAGIC;
}

/* In a directory, a Xen blob is known by its magic (`xencov read` names its
 * file as told). */
static int name_is_xencov(const char *path, const char *base) {
  (void)base;
  unsigned char b[4] = {0};
  FILE *f = ucov_fopen_regular(path);
  size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
  if (f)
    fclose(f);
  struct head h = {path, base, b, n, 0};
  return head_is_xencov(&h);
}

static int head_is_prof(const struct head *h) {
  uint64_t magic;
  memcpy(&magic, h->b, 8);
  return (h->n >= 8 && magic == 0xff6c70726f667281ull) || name_is_prof(h->path, h->base);
}

static int head_is_json(const struct head *h) {
  return h->text < h->n && h->b[h->text] == '{';
}

static int head_is_lcov(const struct head *h) {
  return h->n >= 3 && (memcmp(h->b, "TN:", 3) == 0 || memcmp(h->b, "SF:", 3) == 0);
}

/* By name, or hex PCs: "0x..." or hex digits, a line each. */
static int head_is_pcs(const struct head *h) {
  if (name_is_pcs(h->path, h->base))
    return 1;
  size_t i = h->text, n = h->n;
  const unsigned char *b = h->b;
  size_t k = i + (i + 1 < n && b[i] == '0' && (b[i + 1] == 'x' || b[i + 1] == 'X') ? 2 : 0);
  int hex = k < n;
  for (; k < n && b[k] != '\n' && b[k] != '\r'; k++)
    hex &= (b[k] >= '0' && b[k] <= '9') || (b[k] >= 'a' && b[k] <= 'f') ||
           (b[k] >= 'A' && b[k] <= 'F');
  return hex;
}

/* Readers of a batch of one kind's files (sorted), from a directory `dir`
 * (a pulled tree: its module map is dir/modules) or given alone (dir NULL). */

static int batch_gcda(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                      const char *dir) {
  (void)dir;
  return read_gcdas(m, l, o);
}

/* A pulled tree's LLVM profiles are its modules' (pgo/<module>.profraw),
 * whose paths the module map gives when --binary does not. */
static int batch_prof(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                      const char *dir) {
  (void)m;
  char map_path[PATH_MAX], exe[PATH_MAX] = "";
  int bad = 0;
  if (dir)
    snprintf(map_path, sizeof(map_path), "%s/modules", dir);
  for (size_t i = 0; i < l->n; i++) {
    const char *exe_list[1] = {exe};
    int from_map =
        dir && !o->n_binaries && profile_module(map_path, l->v[i], exe, sizeof(exe)) == 0;
    if (prof_pending(l->v[i], from_map ? exe_list : o->binaries, from_map ? 1 : o->n_binaries)) {
      UCOV_ERR("%s: out of memory\n", l->v[i]);
      bad++;
    }
  }
  return bad;
}

static int batch_lcov(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                      const char *dir) {
  (void)o;
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += lcov_read(m, l->v[i]) != 0;
  return bad;
}

static int batch_json(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                      const char *dir) {
  (void)o;
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += read_json_file(m, l->v[i]);
  return bad;
}

/* PC dumps: the module map beside them in a tree, unless --modules says otherwise. */
static int batch_pcs(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                     const char *dir) {
  char map[PATH_MAX];
  const char *modules = o->modules;
  if (dir && !modules) {
    snprintf(map, sizeof(map), "%s/modules", dir);
    modules = access(map, R_OK) == 0 ? map : NULL;
  }
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += read_pcs(m, l->v[i], o, modules);
  return bad;
}

/* Notes files are kept until every input is read (input_finish): those no
 * .gcda paired with are units that never ran. A dangling link (a pulled
 * tree's lcov marker) is no unit. */
static int batch_gcno(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                      const char *dir) {
  (void)m;
  (void)o;
  (void)dir;
  for (size_t i = 0; i < l->n; i++) {
    char abs[PATH_MAX];
    if (realpath(l->v[i], abs))
      sl_add(&seen_gcno, abs);
  }
  return 0;
}

static int batch_xencov(struct cov_model *m, struct strlist *l, const struct input_opts *o,
                        const char *dir) {
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += read_xencov(m, l->v[i], o);
  return bad;
}

/*
 * The kinds, in the order a directory's files are read. named: a file in a
 * directory by its name (NULL: never picked from a directory); looks: a file
 * given alone, by its first bytes or name, tried in `order`.
 */
static const struct input_kind {
  int (*named)(const char *path, const char *base);
  int (*looks)(const struct head *h);
  int (*read)(struct cov_model *m, struct strlist *l, const struct input_opts *o, const char *dir);
} kinds[] = {
    {name_is_gcda, NULL, batch_gcda}, /* (.gcda: by name only, also alone) */
    {name_is_prof, head_is_prof, batch_prof},
    {NULL, head_is_lcov, batch_lcov},
    {NULL, head_is_json, batch_json},
    {name_is_pcs, head_is_pcs, batch_pcs},
    {name_is_xencov, head_is_xencov, batch_xencov},
    {name_is_gcno, NULL, batch_gcno},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
/* A file alone: a Xen blob first (by its magic), then the others as listed. */
static const unsigned order[] = {5, 1, 3, 2, 4};

static struct strlist walk[N_KINDS];
/* Markers of ucov pull's snapshots met in the walk: counts not in the tree. */
static struct strlist walk_unsettled;
/* Tracefiles and JSON met in the walk (left out), and files read before. */
static size_t walk_reports, walk_again;

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  if (type != FTW_F)
    return 0;
  if (!strncmp(path + ftw->base, ".ucov-unresolved.", 17) ||
      !strncmp(path + ftw->base, ".ucov-pending.", 14)) {
    sl_add(&walk_unsettled, path);
    return 0;
  }
  if (!S_ISREG(st->st_mode)) { /* a FIFO would block the read, a device never end */
    UCOV_ERR("%s: not a regular file: skipped\n", path);
    return 0;
  }
  if (name_is_report(path)) {
    walk_reports++;
    return 0;
  }
  if (read_before(st)) {
    walk_again++;
    return 0;
  }
  for (size_t k = 0; k < N_KINDS; k++)
    if (kinds[k].named && kinds[k].named(path, path + ftw->base)) {
      sl_add(&walk[k], path);
      break;
    }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_dir(struct cov_model *m, const char *path, const struct input_opts *o) {
  int bad = 0;
  walk_reports = walk_again = 0;
  /* A directory named through a link is walked where it is (links inside
   * are not followed). */
  struct stat lst;
  char *real = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
  int walked = ucov_walk(real ? real : path, walk_entry);
  free(real);
  if (walked) {
    UCOV_ERR("%s: not read whole: %s\n", path, strerror(errno));
    bad++;
  }
  for (size_t i = 0; i < walk_unsettled.n; i++) {
    const char *mk = walk_unsettled.v[i], *b = strrchr(mk, '/');
    int aside = !strncmp(b ? b + 1 : mk, ".ucov-unresolved.", 17);
    UCOV_ERR("%s: %s: its counts are not in this report (%s)\n", mk,
             aside ? "an unresolved snapshot, kept aside" : "an interrupted pull",
             aside ? "ucov pull --resolve publish|discard -o DIR settles it"
                   : "ucov pull --recover finishes it");
  }
  sl_free(&walk_unsettled);
  size_t found = 0;
  for (size_t k = 0; k < N_KINDS; k++) {
    if (walk[k].n)
      qsort(walk[k].v, walk[k].n, sizeof(char *), cmp_str);
    found += walk[k].n;
  }
  if (!found && !walk_again) {
    UCOV_ERR("%s: no .gcda, .gcno, .profraw, PC dump or Xen blob inside%s\n", path,
             walk_reports ? " (tracefiles and JSON are inputs only when named as files)" : "");
    bad++;
  }
  for (size_t k = 0; k < N_KINDS; k++) {
    if (walk[k].n)
      bad += kinds[k].read(m, &walk[k], o, path);
    sl_free(&walk[k]);
  }
  return bad;
}

int input_read(struct cov_model *m, const char *path, const struct input_opts *o) {
  struct stat st;
  if (stat(path, &st)) {
    UCOV_ERR("%s: %s\n", path, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    UCOV_ERR("%s: not a regular file: refused\n", path);
    return 1;
  }
  if (read_before(&st))
    return 0; /* the same directory or file again: counted once */
  if (S_ISDIR(st.st_mode))
    return read_dir(m, path, o);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  struct strlist one = {0};
  sl_add(&one, path);
  int bad = -1;
  if (name_is_gcda(path, base)) {
    bad = batch_gcda(m, &one, o, NULL);
  } else if (name_is_gcno(path, base)) {
    bad = batch_gcno(m, &one, o, NULL);
  } else { /* other files by their first bytes */
    unsigned char b[16] = {0};
    FILE *f = ucov_fopen_regular(path);
    size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
    if (!f) {
      UCOV_ERR("%s: %s\n", path, ucov_strerror(errno));
      sl_free(&one);
      return 1;
    }
    fclose(f);
    struct head h = {path, base, b, n, 0};
    while (h.text < n &&
           (b[h.text] == ' ' || b[h.text] == '\n' || b[h.text] == '\t' || b[h.text] == '\r'))
      h.text++;
    for (size_t i = 0; bad < 0 && i < sizeof(order) / sizeof(order[0]); i++)
      if (kinds[order[i]].looks(&h))
        bad = kinds[order[i]].read(m, &one, o, NULL);
  }
  sl_free(&one);
  if (bad >= 0)
    return bad;
  UCOV_ERR("%s: not a .gcda, LLVM profile, lcov tracefile, ucov/gcov JSON or PC dump: "
           "skipped\n",
           path);
  return 1;
}

/* The notes files found by a walk of a build tree (real paths). */
static int add_notes(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)ftw;
  char abs[PATH_MAX];
  if (type == FTW_F && S_ISREG(st->st_mode) && ends_with(path, ".gcno") && realpath(path, abs))
    sl_add(&seen_gcno, abs);
  return 0;
}

/*
 * The build tree of a notes file (dir: its directory, changed in place), as
 * its build system laid it out: CMake's objects are in
 * <tree>/CMakeFiles/<target>.dir/, Meson's in <tree>/.../<target>.p/ below
 * its build.ninja, autoconf's below its config.status. 0 when it is none of
 * these: a directory of notes files made by hand (or by a plain Makefile)
 * says nothing of which other notes files are of the same build, so none is
 * taken. (Not any directory above with a Makefile or build.ninja either: a
 * directory of notes files made inside another project's build tree is not
 * that project's.)
 */
static int build_tree_of(char *dir) {
  char *cm = strstr(dir, "/CMakeFiles/");
  if (!cm && strlen(dir) >= 11 && !strcmp(dir + strlen(dir) - 11, "/CMakeFiles"))
    cm = dir + strlen(dir) - 11;
  if (cm && cm > dir) {
    *cm = 0;
    return 1;
  }
  int meson = 0;
  for (const char *p = dir; (p = strstr(p, ".p")); p += 2)
    meson |= p[2] == '/' || p[2] == 0;
  char try[PATH_MAX + 32], d[PATH_MAX];
  snprintf(d, sizeof(d), "%s", dir);
  for (;;) {
    const char *mark = meson ? "build.ninja" : "config.status";
    if ((size_t)snprintf(try, sizeof(try), "%s/%s", d[1] ? d : "", mark) < sizeof(try) &&
        access(try, F_OK) == 0) {
      snprintf(dir, PATH_MAX, "%s", d);
      return 1;
    }
    char *slash = strrchr(d, '/');
    if (!slash || slash == d)
      return 0;
    *slash = 0;
  }
}

int input_add_build_notes(void) {
  struct strlist trees = {0};
  for (size_t i = 0; i < away_gcno.n; i++) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", away_gcno.v[i]);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
      continue;
    *slash = 0;
    size_t k = 0;
    while (k < trees.n && strcmp(trees.v[k], dir)) /* (the same directory: looked up once) */
      k++;
    if (k < trees.n)
      continue;
    sl_add(&trees, dir);
  }
  struct strlist roots = {0};
  for (size_t i = 0; i < trees.n; i++) {
    if (!build_tree_of(trees.v[i]))
      continue;
    size_t k = 0;
    while (k < roots.n && strcmp(roots.v[k], trees.v[i]))
      k++;
    if (k == roots.n)
      sl_add(&roots, trees.v[i]);
  }
  int bad = 0;
  for (size_t i = 0; i < roots.n; i++)
    if (ucov_walk(roots.v[i], add_notes)) {
      UCOV_ERR("%s: %s: its notes files are not all counted\n", roots.v[i], strerror(errno));
      bad++;
    }
  sl_free(&trees);
  sl_free(&roots);
  return bad;
}

int input_finish(struct cov_model *m, const struct input_opts *o) {
  int bad = read_pending(m, &pend, o);
  struct strlist via_gcov = {0};
  if (seen_gcno.n > 1)
    qsort(seen_gcno.v, seen_gcno.n, sizeof(char *), cmp_str);
  if (used_gcno.n > 1)
    qsort(used_gcno.v, used_gcno.n, sizeof(char *), cmp_str);
  for (size_t i = 0; i < seen_gcno.n; i++) {
    const char *gcno = seen_gcno.v[i];
    if ((i && strcmp(seen_gcno.v[i - 1], gcno) == 0) ||
        (used_gcno.n && bsearch(&gcno, used_gcno.v, used_gcno.n, sizeof(char *), cmp_str)))
      continue; /* (seen twice, or read with its .gcda) */
    char err[PATH_MAX + 256];
    enum gcovn_kind kind = gcovn_kind(gcno);
    if (kind == GCOVN_BAD) {
      UCOV_ERR("%s: not a notes file: its never-run unit is not counted\n", gcno);
      bad++;
    } else if (kind == GCOVN_OTHER ||
               (kind == GCOVN_GCC && o->gcov_tool && !tool_is_llvm_cov(o->gcov_tool))) {
      sl_add(&via_gcov, gcno);
    } else if (read_unit(m, gcno, NULL, 0, o, err, sizeof(err))) {
      UCOV_ERR("%s\n", err);
      bad++;
    }
  }
  if (via_gcov.n)
    bad += read_gcdas_gcov(m, &via_gcov, o);
  sl_free(&via_gcov);
  sl_free(&seen_gcno);
  bad += read_all_profiles(m);
  sl_free(&used_gcno);
  sl_free(&away_gcno);
  free(seen_ids);
  seen_ids = NULL, n_seen_ids = cap_seen_ids = 0;
  return bad;
}
