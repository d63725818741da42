/* SPDX-License-Identifier: MIT */
/*
 * .gcda files with their notes, read natively (gcovn.h): kept until
 * input_finish, where each unit's runs, whatever inputs they came in, are
 * summed and solved once; notes files no .gcda paired with are units that
 * never ran; and for a push, the notes of the build trees the .gcda paired
 * with in another directory (input_add_build_notes).
 */
#define _GNU_SOURCE
#include "input_session.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>

#include "gcovn.h"
#include "base/subprocess.h"
#include "base/util.h"

/*
 * Messages name the user's input, never a temporary file: while the records
 * of a Xen blob are read from a temporary tree, a path in it is said as the
 * blob's record ("BLOB: record /path/x.gcda").
 */
/* A .gcda and its notes, read natively once every input is read. */
struct pending {
  char *gcno, *gcda;
};
struct pend_list {
  struct pending *v;
  size_t n, cap;
};

/* The gcov family's state (input_session.h): the notes files a .gcda of this
 * run paired with, and those the inputs held (real paths; sorted by
 * input_gcov_finish): a .gcno seen in the inputs is a never-run unit only if
 * no .gcda used it. Of used_gcno, away_gcno: those in another directory than
 * their .gcda (a pulled or exit tree's units, at their build paths):
 * input_add_build_notes. */
struct gcov_state {
  struct strlist used_gcno, seen_gcno, away_gcno;
  struct pend_list pend; /* the .gcda to read natively at input_gcov_finish */
};

/* s's gcov state, made at its first use; NULL without memory (said). */
static struct gcov_state *gcov_of(struct input_session *s) {
  if (!s->gcov && !(s->gcov = calloc(1, sizeof(*s->gcov))))
    UCOV_ERR("out of memory\n");
  return s->gcov;
}

static void unalias(const struct input_session *s, const char *msg, char *out, size_t len) {
  const char *alias_tmp = s->alias_tmp, *alias_blob = s->alias_blob;
  size_t tl = alias_tmp ? strlen(alias_tmp) : 0, o = 0;
  for (const char *p = msg; *p && o + 1 < len;) {
    if (tl && !strncmp(p, alias_tmp, tl)) {
      o += (size_t)snprintf(out + o, len - o, "%s: record ", alias_blob);
      p += tl;
    } else {
      out[o++] = *p++;
    }
  }
  out[o < len ? o : len - 1] = 0;
}

void input_say(const struct input_session *s, const char *fmt, ...) {
  char msg[3 * PATH_MAX], out[4 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  unalias(s, msg, out, sizeof(out));
  UCOV_ERR("%s", out);
}

/* The same for what a call says: a sink current around it. */
struct unaliasing {
  struct diag_sink sink;
  struct diag_sink *outer;
  const struct input_session *s;
};

static void unalias_emit(struct diag_sink *sink, const struct diag *d) {
  struct unaliasing *u = (struct unaliasing *)sink;
  char file[2 * PATH_MAX], out[4 * PATH_MAX];
  unalias(u->s, d->message, out, sizeof(out));
  if (d->file)
    unalias(u->s, d->file, file, sizeof(file));
  diag_to(u->outer, d->severity, d->file ? file : NULL, d->line, "%s", out);
}

void input_progress(const struct input_session *s, const char *what, size_t done, size_t total) {
  if (!s->o->progress || !total)
    return;
  fprintf(stderr, "\rucov: report: %s %zu/%zu", what, done, total);
  if (done == total)
    fputc('\n', stderr);
  fflush(stderr);
}

/* Whether two real paths are in different directories. */
static int other_dirs(const char *a, const char *b) {
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  return !sa || !sb || sa - a != sb - b || strncmp(a, b, (size_t)(sa - a)) != 0;
}

/* Is --gcov-tool an llvm-cov (run as `TOOL gcov`, for clang's notes)? */
static int input_is_llvm_cov(const char *tool) {
  const char *base = tool ? strrchr(tool, '/') : NULL;
  base = base ? base + 1 : tool;
  return base && strncmp(base, "llvm-cov", 8) == 0;
}

/* A unit read natively from its n .gcda files (none: at zero), told to a
 * push first. 0, or -1 said. */
static int read_unit(struct cov_model *m, const char *gcno, const char *const *gcdas, size_t n,
                     const struct input_session *s) {
  const struct input_opts *o = s->o;
  for (size_t i = 0; o->unit && i < (n ? n : 1); i++)
    if (o->unit(o->unit_arg, gcno, n ? gcdas[i] : NULL)) {
      input_say(s, "%s: out of memory", n ? gcdas[i] : gcno);
      return -1;
    }
  m->reading_unit = o->unit != NULL;
  cov_begin_unit(m);
  struct unaliasing un = {.sink = {.emit = unalias_emit}, .s = s};
  un.outer = diag_sink_set(&un.sink);
  int r = gcovn_read_many(m, gcno, gcdas, n);
  diag_sink_set(un.outer);
  m->reading_unit = 0;
  return r;
}

/* The .gcda files to read natively, kept until input_finish: the runs of
 * one unit, whatever inputs they came in, are summed and solved once (the
 * lines of one run doing all their work). (A Xen blob's, split into a
 * temporary directory, are read before it goes: summed within the blob.) */
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

static int read_pending(struct input_session *s, struct cov_model *m, struct pend_list *l) {
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
    if (!gcdas) {
      input_say(s, "%s: out of memory\n", v[i].gcno);
      bad++;
    } else if (read_unit(m, v[i].gcno, gcdas, n, s)) {
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
int input_gcdas_read(struct input_session *s, struct cov_model *m, struct strlist *gcdas) {
  const struct input_opts *o = s->o;
  struct strlist via_gcov = {0};
  struct pend_list now = {0}; /* (a Xen blob's: read before its directory goes) */
  int bad = 0, llvm_tool = input_is_llvm_cov(o->gcov_tool);
  char tmpl[PATH_MAX] = "", *tmp = NULL;
  struct gcov_state *gs = gcov_of(s);
  if (!gs)
    return (int)gcdas->n;
  for (size_t i = 0; i < gcdas->n; i++) {
    const char *g = gcdas->v[i];
    char gcno[PATH_MAX], gcno_abs[PATH_MAX], abs[PATH_MAX];
    if (input_find_gcno(g, gcno, sizeof(gcno))) {
      input_say(s, "%s: no .gcno beside it or at its build path: skipped\n", g);
      bad++;
      continue;
    }
    if (!realpath(g, abs) || !realpath(gcno, gcno_abs)) {
      input_say(s, "%s: %s\n", g, strerror(errno));
      bad++;
      continue;
    }
    struct stat st;
    if (stat(gcno_abs, &st) == 0 && !S_ISREG(st.st_mode)) {
      input_say(s, "%s: its notes %s: not a regular file: skipped\n", g, gcno);
      bad++;
      continue;
    }
    strlist_add(&gs->used_gcno, gcno_abs);
    if (other_dirs(gcno_abs, abs))
      strlist_add(&gs->away_gcno, gcno_abs);
    enum gcovn_kind kind = gcovn_kind(gcno_abs);
    if (kind == GCOVN_LLVM && llvm_tool) {
      if (!tmp)
        tmp = temp_dir(tmpl, sizeof(tmpl), "report");
      bad += tmp ? input_llvm_gcda(m, abs, gcno_abs, tmp, i, o->gcov_tool) : 1;
    } else if ((kind == GCOVN_GCC && (!o->gcov_tool || llvm_tool)) ||
               (kind == GCOVN_LLVM && !llvm_tool)) {
      if (pend_add(s->alias_tmp ? &now : &gs->pend, gcno_abs, abs)) {
        input_say(s, "%s: out of memory\n", g);
        bad++;
      }
    } else {
      strlist_add(&via_gcov, g);
    }
    input_progress(s, ".gcda", i + 1, gcdas->n);
  }
  if (now.n)
    bad += read_pending(s, m, &now);
  if (via_gcov.n)
    bad += input_gcdas_gcov(s, m, &via_gcov);
  strlist_free(&via_gcov);
  if (tmp)
    rm_tree(tmp);
  return bad;
}

/* The notes files found by a walk of a build tree (real paths). */
static int add_notes(const char *path, const struct stat *st, int type, struct FTW *ftw,
                     void *arg) {
  (void)ftw;
  struct input_session *s = arg;
  char abs[PATH_MAX];
  if (type == FTW_F && S_ISREG(st->st_mode) && ucov_ends_with(path, ".gcno") && realpath(path, abs))
    strlist_add(&s->gcov->seen_gcno, abs);
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

int input_add_build_notes(struct input_session *s) {
  struct strlist trees = {0};
  for (size_t i = 0; s->gcov && i < s->gcov->away_gcno.n; i++) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", s->gcov->away_gcno.v[i]);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
      continue;
    *slash = 0;
    size_t k = 0;
    while (k < trees.n && strcmp(trees.v[k], dir)) /* (the same directory: looked up once) */
      k++;
    if (k < trees.n)
      continue;
    strlist_add(&trees, dir);
  }
  struct strlist roots = {0};
  for (size_t i = 0; i < trees.n; i++) {
    if (!build_tree_of(trees.v[i]))
      continue;
    size_t k = 0;
    while (k < roots.n && strcmp(roots.v[k], trees.v[i]))
      k++;
    if (k == roots.n)
      strlist_add(&roots, trees.v[i]);
  }
  int bad = 0;
  for (size_t i = 0; i < roots.n; i++)
    if (ucov_walk_links(roots.v[i], add_notes, s)) {
      diag_at(DIAG_ERROR, roots.v[i], 0, "%s: its notes files are not all counted",
              strerror(errno));
      bad++;
    }
  strlist_free(&trees);
  strlist_free(&roots);
  return bad;
}

/* The .gcda kept for the end, and the notes files no .gcda paired with. */
int input_gcov_finish(struct input_session *s, struct cov_model *m) {
  const struct input_opts *o = s->o;
  struct gcov_state *gs = s->gcov;
  if (!gs)
    return 0; /* (no .gcda or .gcno among the inputs) */
  int bad = read_pending(s, m, &gs->pend);
  struct strlist via_gcov = {0};
  struct strlist *seen = &gs->seen_gcno, *used = &gs->used_gcno;
  if (seen->n > 1)
    qsort(seen->v, seen->n, sizeof(char *), strlist_cmp);
  if (used->n > 1)
    qsort(used->v, used->n, sizeof(char *), strlist_cmp);
  for (size_t i = 0; i < seen->n; i++) {
    const char *gcno = seen->v[i];
    if ((i && strcmp(seen->v[i - 1], gcno) == 0) ||
        (used->n && bsearch(&gcno, used->v, used->n, sizeof(char *), strlist_cmp)))
      continue; /* (seen twice, or read with its .gcda) */
    enum gcovn_kind kind = gcovn_kind(gcno);
    if (kind == GCOVN_BAD) {
      diag_at(DIAG_ERROR, gcno, 0, "not a notes file: its never-run unit is not counted");
      bad++;
    } else if (kind == GCOVN_OTHER ||
               (kind == GCOVN_GCC && o->gcov_tool && !input_is_llvm_cov(o->gcov_tool))) {
      strlist_add(&via_gcov, gcno);
    } else if (read_unit(m, gcno, NULL, 0, s)) {
      bad++;
    }
  }
  if (via_gcov.n)
    bad += input_gcdas_gcov(s, m, &via_gcov);
  strlist_free(&via_gcov);
  strlist_free(&gs->seen_gcno);
  strlist_free(&gs->used_gcno);
  strlist_free(&gs->away_gcno);
  return bad;
}

int input_gcno_seen(struct input_session *s, const char *path) {
  struct gcov_state *gs = gcov_of(s);
  char abs[PATH_MAX];
  if (!gs)
    return 1;
  if (realpath(path, abs))
    strlist_add(&gs->seen_gcno, abs);
  return 0;
}

void input_gcov_free(struct input_session *s) {
  struct gcov_state *gs = s->gcov;
  if (!gs)
    return;
  strlist_free(&gs->used_gcno);
  strlist_free(&gs->seen_gcno);
  strlist_free(&gs->away_gcno);
  for (size_t i = 0; i < gs->pend.n; i++) {
    free(gs->pend.v[i].gcno);
    free(gs->pend.v[i].gcda);
  }
  free(gs->pend.v);
  free(gs);
  s->gcov = NULL;
}
