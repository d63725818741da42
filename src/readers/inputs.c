/* SPDX-License-Identifier: MIT */
/*
 * Report inputs: detect what a path holds and read it into the model (see
 * inputs.h): one table of input kinds, the directory walk, a file alone by
 * its name or first bytes; the session that keeps what the inputs read so
 * far (input_session.h, whose files hold each kind's reader).
 */
#define _GNU_SOURCE
#include "input_session.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readers.h"
#include "base/json.h"
#include "symbols/modmap.h"
#include "base/util.h"

void strlist_add(struct strlist *l, const char *s) {
  char *c = strdup(s);
  if (!c || UCOV_GROW(l->v, l->cap, l->n, 64)) {
    UCOV_ERR("out of memory: %s left out\n", s);
    free(c);
    return;
  }
  l->v[l->n++] = c;
}

void strlist_free(struct strlist *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof(*l));
}

static size_t ident_slot(const struct ident *v, size_t cap, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4full);
  size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
  while ((v[i].dev || v[i].ino) && !(v[i].dev == dev && v[i].ino == ino))
    i = (i + 1) & (cap - 1);
  return i;
}

/* 1 when st's file was read before in this report; else it is noted, 0. */
static int read_before(struct input_session *s, const struct stat *st) {
  if (!st->st_dev && !st->st_ino)
    return 0;
  if (2 * (s->n_ids + 1) > s->cap_ids) {
    size_t cap = s->cap_ids ? 2 * s->cap_ids : 256;
    struct ident *v = calloc(cap, sizeof(*v));
    if (!v)
      return 0; /* out of memory: read it (as before) */
    for (size_t i = 0; i < s->cap_ids; i++)
      if (s->ids[i].dev || s->ids[i].ino)
        v[ident_slot(v, cap, s->ids[i].dev, s->ids[i].ino)] = s->ids[i];
    free(s->ids);
    s->ids = v, s->cap_ids = cap;
  }
  size_t i = ident_slot(s->ids, s->cap_ids, st->st_dev, st->st_ino);
  if (s->ids[i].dev == st->st_dev && s->ids[i].ino == st->st_ino)
    return 1;
  s->ids[i] = (struct ident){st->st_dev, st->st_ino};
  s->n_ids++;
  return 0;
}

/* ---- report files named as inputs ---- */

/*
 * The module a pulled profile pgo/<name>.profraw belongs to: the module of
 * the map whose file is named <name> (a shared object's), else the first
 * one (the program). 0, or -1 if the map gives none.
 */
static int profile_module(const char *map_path, const char *profile, char *out, size_t len) {
  struct modmap map;
  if (input_modmap_load(map_path, &map, 1))
    return -1;
  const char *base = strrchr(profile, '/');
  base = base ? base + 1 : profile;
  size_t name_len = strlen(base) - strlen(".profraw");
  int ret = map.count && map.entries[0].path[0] == '/' ? 0 : -1;
  if (!ret)
    snprintf(out, len, "%s", map.entries[0].path);
  for (size_t i = 0; !ret && ucov_ends_with(base, ".profraw") && i < map.count; i++) {
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
    diag_at(DIAG_ERROR, path, 0, "%s", ucov_strerror(errno));
    return 1;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, r;
  do {
    if (UCOV_GROW(buf, cap, len + 65536, 1 << 20)) {
      fclose(f);
      free(buf);
      diag_at(DIAG_ERROR, path, 0, "out of memory");
      return 1;
    }
    r = fread(buf + len, 1, cap - len, f);
    len += r;
  } while (r > 0);
  fclose(f);
  struct json_doc doc;
  int bad = 0;
  if (json_parse(&doc, buf, len, NULL)) {
    diag_at(DIAG_ERROR, path, 0, "not JSON: %s", doc.error);
    bad = 1;
  } else if (json_get(doc.root, "gcovr/format_version")) {
    struct diag_context about = {.file = path};
    diag_context_begin(&about);
    bad = gcovr_json_read(m, doc.root) != 0;
    diag_context_end(&about);
  } else if (json_get(doc.root, "format")) {
    struct diag_context about = {.file = path};
    diag_context_begin(&about);
    bad = ucov_json_read(m, doc.root) != 0;
    diag_context_end(&about);
  } else {
    struct diag_context about = {.file = path, .before = "neither ucov JSON, gcov's nor gcovr's: "};
    diag_context_begin(&about);
    bad = gcov_json_read(m, doc.root) != 0;
    diag_context_end(&about);
  }
  json_free(&doc);
  free(buf);
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
  return ucov_ends_with(path, ".gcda");
}

static int name_is_gcno(const char *path, const char *base) {
  (void)base;
  return ucov_ends_with(path, ".gcno");
}

static int name_is_prof(const char *path, const char *base) {
  (void)base;
  return ucov_ends_with(path, ".profraw") || ucov_ends_with(path, ".profdata");
}

/* Tracefiles and JSON are reports, someone's (ucov's own earlier output, an
 * lcov capture): inputs only when named as files, never found in a
 * directory, whose raw data they would count again. */
static int name_is_report(const char *path) {
  return ucov_ends_with(path, ".info") || ucov_ends_with(path, ".json");
}

/* KCOV buffer dumps (kcov/<id>.kcov), hex PC dumps (.pcs), syzkaller's rawcover files. */
static int name_is_pcs(const char *path, const char *base) {
  return ucov_ends_with(path, ".pcs") || ucov_ends_with(path, ".kcov") ||
         strncmp(base, "rawcover", 8) == 0;
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

static int batch_gcda(struct input_session *s, struct cov_model *m, struct strlist *l,
                      const char *dir) {
  (void)dir;
  return input_gcdas_read(s, m, l);
}

/* A pulled tree's LLVM profiles are its modules' (pgo/<module>.profraw),
 * whose paths the module map gives when --binary does not. */
static int batch_prof(struct input_session *s, struct cov_model *m, struct strlist *l,
                      const char *dir) {
  (void)m;
  const struct input_opts *o = s->o;
  char map_path[PATH_MAX], exe[PATH_MAX] = "";
  int bad = 0;
  if (dir)
    snprintf(map_path, sizeof(map_path), "%s/modules", dir);
  for (size_t i = 0; i < l->n; i++) {
    const char *exe_list[1] = {exe};
    int from_map =
        dir && !o->n_binaries && profile_module(map_path, l->v[i], exe, sizeof(exe)) == 0;
    if (input_prof_add(s, l->v[i], from_map ? exe_list : o->binaries,
                       from_map ? 1 : o->n_binaries)) {
      diag_at(DIAG_ERROR, l->v[i], 0, "out of memory");
      bad++;
    }
  }
  return bad;
}

static int batch_lcov(struct input_session *s, struct cov_model *m, struct strlist *l,
                      const char *dir) {
  (void)s;
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += lcov_read(m, l->v[i]) != 0;
  return bad;
}

static int batch_json(struct input_session *s, struct cov_model *m, struct strlist *l,
                      const char *dir) {
  (void)s;
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += read_json_file(m, l->v[i]);
  return bad;
}

/* PC dumps: the module map beside them in a tree, unless --modules says otherwise. */
static int batch_pcs(struct input_session *s, struct cov_model *m, struct strlist *l,
                     const char *dir) {
  char map[PATH_MAX];
  const char *modules = s->o->modules;
  if (dir && !modules) {
    snprintf(map, sizeof(map), "%s/modules", dir);
    struct stat st; /* (a folder named modules is no module map) */
    modules = stat(map, &st) == 0 && S_ISREG(st.st_mode) && access(map, R_OK) == 0 ? map : NULL;
  }
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += input_pcs_read(s, m, l->v[i], modules);
  return bad;
}

/* Notes files are kept until every input is read (input_finish): those no
 * .gcda paired with are units that never ran. A dangling link (a pulled
 * tree's lcov marker) is no unit. */
static int batch_gcno(struct input_session *s, struct cov_model *m, struct strlist *l,
                      const char *dir) {
  (void)m;
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += input_gcno_seen(s, l->v[i]);
  return bad;
}

static int batch_xencov(struct input_session *s, struct cov_model *m, struct strlist *l,
                        const char *dir) {
  (void)dir;
  int bad = 0;
  for (size_t i = 0; i < l->n; i++)
    bad += input_xencov_read(s, m, l->v[i]);
  return bad;
}

/*
 * The input kinds: the one interface every reader has. In the order a
 * directory's files are read; named: a file in a directory by its name
 * (NULL: never picked from a directory); looks: a file given alone, by its
 * first bytes or name (NULL: by name only); rank: the order looks are tried
 * in for a file alone (a Xen blob first, by its magic; 0: not tried); read:
 * a batch of files; finish: what the kind kept for the end, read once every
 * input is (input_finish, in the table's order); release: the kind's state
 * freed. A family of kinds sharing one state (.gcda and .gcno) finishes and
 * releases it in one row. Designated: a row says what it has.
 */
static const struct input_kind {
  int (*named)(const char *path, const char *base);
  int (*looks)(const struct head *h);
  unsigned rank;
  int (*read)(struct input_session *s, struct cov_model *m, struct strlist *l, const char *dir);
  int (*finish)(struct input_session *s, struct cov_model *m);
  void (*release)(struct input_session *s);
} kinds[INPUT_KINDS] = {
    {.named = name_is_gcda, /* (also alone, by name) */
     .read = batch_gcda,
     .finish = input_gcov_finish,
     .release = input_gcov_free},
    {.named = name_is_prof,
     .looks = head_is_prof,
     .rank = 2,
     .read = batch_prof,
     .finish = input_profiles_read,
     .release = input_profiles_free},
    {.looks = head_is_lcov, .rank = 4, .read = batch_lcov},
    {.looks = head_is_json, .rank = 3, .read = batch_json},
    {.named = name_is_pcs,
     .looks = head_is_pcs,
     .rank = 5,
     .read = batch_pcs,
     .release = input_trace_free},
    {.named = name_is_xencov, .looks = head_is_xencov, .rank = 1, .read = batch_xencov},
    {.named = name_is_gcno, .read = batch_gcno}, /* (also alone, by name) */
};

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw,
                      void *arg) {
  struct input_session *s = arg;
  if (type != FTW_F)
    return 0;
  if (!strncmp(path + ftw->base, ".ucov-unresolved.", 17) ||
      !strncmp(path + ftw->base, ".ucov-pending.", 14)) {
    strlist_add(&s->walk_unsettled, path);
    return 0;
  }
  if (!S_ISREG(st->st_mode)) { /* a FIFO would block the read, a device never end */
    diag_at(DIAG_ERROR, path, 0, "not a regular file: skipped");
    return 0;
  }
  if (name_is_report(path)) {
    s->walk_reports++;
    return 0;
  }
  if (read_before(s, st)) {
    s->walk_again++;
    return 0;
  }
  for (size_t k = 0; k < INPUT_KINDS; k++)
    if (kinds[k].named && kinds[k].named(path, path + ftw->base)) {
      strlist_add(&s->walk[k], path);
      break;
    }
  return 0;
}

int strlist_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int read_dir(struct input_session *s, struct cov_model *m, const char *path) {
  int bad = 0;
  s->walk_reports = s->walk_again = 0;
  /* A directory named through a link is walked where it is; links inside
   * are followed, as gcovr does, each real directory walked once (and each
   * file read once: read_before). */
  struct stat lst;
  char *real = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
  int walked = ucov_walk_links(real ? real : path, walk_entry, s);
  free(real);
  if (walked) {
    diag_at(DIAG_ERROR, path, 0, "not read whole: %s", strerror(errno));
    bad++;
  }
  for (size_t i = 0; i < s->walk_unsettled.n; i++) {
    const char *mk = s->walk_unsettled.v[i], *b = strrchr(mk, '/');
    int aside = !strncmp(b ? b + 1 : mk, ".ucov-unresolved.", 17);
    diag_at(DIAG_ERROR, mk, 0, "%s: its counts are not in this report (%s)",
            aside ? "an unresolved snapshot, kept aside" : "an interrupted pull",
            aside ? "ucov pull --resolve publish|discard -o DIR settles it"
                  : "ucov pull --recover finishes it");
  }
  strlist_free(&s->walk_unsettled);
  size_t found = 0;
  for (size_t k = 0; k < INPUT_KINDS; k++) {
    struct strlist *w = &s->walk[k];
    if (w->n)
      qsort(w->v, w->n, sizeof(char *), strlist_cmp);
    found += w->n;
  }
  if (!found && !s->walk_again) {
    diag_at(DIAG_ERROR, path, 0, "no .gcda, .gcno, .profraw, PC dump or Xen blob inside%s",
            s->walk_reports ? " (tracefiles and JSON are inputs only when named as files)" : "");
    bad++;
  }
  for (size_t k = 0; k < INPUT_KINDS; k++) {
    if (s->walk[k].n)
      bad += kinds[k].read(s, m, &s->walk[k], path);
    strlist_free(&s->walk[k]);
  }
  return bad;
}

int input_read(struct input_session *s, struct cov_model *m, const char *path) {
  struct stat st;
  if (stat(path, &st)) {
    diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    diag_at(DIAG_ERROR, path, 0, "not a regular file: refused");
    return 1;
  }
  if (read_before(s, &st))
    return 0; /* the same directory or file again: counted once */
  if (S_ISDIR(st.st_mode))
    return read_dir(s, m, path);
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  struct strlist one = {0};
  strlist_add(&one, path);
  int bad = -1;
  if (name_is_gcda(path, base)) {
    bad = batch_gcda(s, m, &one, NULL);
  } else if (name_is_gcno(path, base)) {
    bad = batch_gcno(s, m, &one, NULL);
  } else { /* other files by their first bytes */
    unsigned char b[16] = {0};
    FILE *f = ucov_fopen_regular(path);
    size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
    if (!f) {
      diag_at(DIAG_ERROR, path, 0, "%s", ucov_strerror(errno));
      strlist_free(&one);
      return 1;
    }
    fclose(f);
    struct head h = {path, base, b, n, 0};
    while (h.text < n &&
           (b[h.text] == ' ' || b[h.text] == '\n' || b[h.text] == '\t' || b[h.text] == '\r'))
      h.text++;
    for (unsigned rank = 1; bad < 0 && rank <= INPUT_KINDS; rank++)
      for (size_t k = 0; bad < 0 && k < INPUT_KINDS; k++)
        if (kinds[k].rank == rank && kinds[k].looks(&h))
          bad = kinds[k].read(s, m, &one, NULL);
  }
  strlist_free(&one);
  if (bad >= 0)
    return bad;
  diag_at(DIAG_ERROR, path, 0,
          "not a .gcda, LLVM profile, lcov tracefile, ucov/gcov JSON or PC dump: "
          "skipped");
  return 1;
}

struct input_session *input_session_new(const struct input_opts *o) {
  struct input_session *s = calloc(1, sizeof(*s));
  if (s)
    s->o = o;
  return s;
}

int input_finish(struct input_session *s, struct cov_model *m) {
  int bad = 0;
  for (size_t k = 0; k < INPUT_KINDS; k++)
    if (kinds[k].finish)
      bad += kinds[k].finish(s, m);
  free(s->ids);
  s->ids = NULL, s->n_ids = s->cap_ids = 0;
  return bad;
}

void input_session_free(struct input_session *s) {
  if (!s)
    return;
  for (size_t k = 0; k < INPUT_KINDS; k++)
    if (kinds[k].release)
      kinds[k].release(s);
  free(s->ids);
  free(s);
}
