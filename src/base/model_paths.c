/* SPDX-License-Identifier: MIT */
/*
 * The model's path rules (model.h): prefix maps, include and exclude globs,
 * the root, lexical normalization. A glob is matched against the path as
 * written (made absolute and normal, after the prefix maps) and against the
 * real path behind it when a link leads there, as gcovr matches its filters
 * against real paths: --include keeps a file either matches, --exclude
 * drops a file either matches. A path left out is remembered, so that its
 * next records cost a lookup, not a realpath.
 */
#define _GNU_SOURCE
#include "model.h"
#include "model_int.h"
#include "util.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cov_add_prefix_map(struct cov_model *m, const char *rule) {
  const char *eq = strchr(rule, '=');
  if (!eq || eq == rule)
    return -1;
  struct cov_rule *r = realloc(m->maps, (m->n_maps + 1) * sizeof(*r));
  if (!r)
    return -1;
  m->maps = r;
  r[m->n_maps].from = strndup(rule, (size_t)(eq - rule));
  r[m->n_maps].to = strdup(eq + 1);
  m->n_maps++;
  return 0;
}

static void add_glob(char ***list, size_t *n, const char *glob) {
  char **l = realloc(*list, (*n + 1) * sizeof(*l));
  if (!l)
    return;
  *list = l;
  l[(*n)++] = strdup(glob);
}

void cov_add_include(struct cov_model *m, const char *glob) {
  add_glob(&m->include, &m->n_include, glob);
}

void cov_add_exclude(struct cov_model *m, const char *glob) {
  add_glob(&m->exclude, &m->n_exclude, glob);
}

static int anchor(char **glob, const char *base) {
  char *g = *glob, *a;
  if (!g || g[0] == '/' || g[0] == '*' || g[0] == '?' || g[0] == '[')
    return 0;
  if (asprintf(&a, "%s/%s", base, g) < 0)
    return -1;
  size_t n = strlen(a);
  int slash = a[n - 1] == '/';
  cov_normalize(a);
  if (slash) /* (normalizing took that slash off: there is room for it) */
    strcat(a, "/");
  free(g);
  *glob = a;
  return 0;
}

int cov_anchor_globs(struct cov_model *m, const char *base) {
  for (size_t i = 0; i < m->n_include; i++)
    if (anchor(&m->include[i], base))
      return -1;
  for (size_t i = 0; i < m->n_exclude; i++)
    if (anchor(&m->exclude[i], base))
      return -1;
  return 0;
}

/* Lexical normalization in place: "//" and "/./" collapse, "x/.." goes. */
void cov_normalize(char *p) {
  int abs = p[0] == '/';
  char *seg[4096];
  int n = 0;
  char *save, *tok = strtok_r(p, "/", &save);
  char buf[8192];
  size_t o = 0;
  for (; tok && n < 4096; tok = strtok_r(NULL, "/", &save)) {
    if (strcmp(tok, ".") == 0)
      continue;
    if (strcmp(tok, "..") == 0 && n > 0 && strcmp(seg[n - 1], "..") != 0) {
      n--;
      continue;
    }
    if (strcmp(tok, "..") == 0 && abs)
      continue;
    seg[n++] = tok;
  }
  if (abs)
    buf[o++] = '/';
  for (int i = 0; i < n && o < sizeof(buf) - 1; i++) {
    size_t l = strlen(seg[i]);
    if (o + l + 2 > sizeof(buf))
      break;
    memcpy(buf + o, seg[i], l);
    o += l;
    if (i + 1 < n)
      buf[o++] = '/';
  }
  if (o == 0)
    buf[o++] = '.';
  buf[o] = 0;
  strcpy(p, buf);
}

char *cov_absolute(const char *path) {
  char *abs = NULL;
  if (path[0] == '/') {
    abs = strdup(path);
  } else {
    char *cwd = getcwd(NULL, 0);
    if (cwd && asprintf(&abs, "%s/%s", cwd, path) < 0)
      abs = NULL;
    free(cwd);
  }
  if (abs)
    cov_normalize(abs);
  return abs;
}

int cov_set_root(struct cov_model *m, const char *dir) {
  char *abs = cov_absolute(dir);
  if (!abs)
    return -1;
  size_t n = strlen(abs);
  while (n > 1 && abs[n - 1] == '/')
    abs[--n] = 0;
  free(m->root);
  m->root = abs;
  return 0;
}

const char *cov_display(const struct cov_model *m, const char *path) {
  if (!m->root)
    return path;
  size_t n = strlen(m->root);
  if (n == 1) /* root "/" */
    return path[0] == '/' && path[1] ? path + 1 : path;
  if (strncmp(path, m->root, n) == 0 && path[n] == '/' && path[n + 1])
    return path + n + 1;
  return path;
}

const char *cov_source_path(const struct cov_model *m, const char *path, char *buf, size_t len) {
  if (path[0] == '/' || !m->root)
    return path;
  int w = snprintf(buf, len, "%s/%s", m->root, path);
  return w > 0 && (size_t)w < len ? buf : path;
}

static int matches(char **globs, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++)
    if (fnmatch(globs[i], path, 0) == 0)
      return 1;
  return 0;
}

/* p's real path when it differs from p (malloc'd), else NULL. */
static char *real_other(const char *p) {
  char *r = realpath(p, NULL);
  if (r && !strcmp(r, p)) {
    free(r);
    r = NULL;
  }
  return r;
}

static int rejected(const struct cov_model *m, const char *p) {
  if (!m->n_rslots)
    return 0;
  size_t s = ucov_hash_str(p) & (m->n_rslots - 1);
  for (; m->rslots[s]; s = (s + 1) & (m->n_rslots - 1))
    if (!strcmp(m->rejected[m->rslots[s] - 1], p))
      return 1;
  return 0;
}

/* Remember p as left out (nothing if there is no memory: it is looked at again). */
static void reject(struct cov_model *m, const char *p) {
  if (2 * (m->n_rejected + 1) > m->n_rslots) {
    size_t n = m->n_rslots ? 2 * m->n_rslots : 64;
    size_t *t = calloc(n, sizeof(*t));
    if (!t)
      return;
    for (size_t i = 0; i < m->n_rejected; i++) {
      size_t s = ucov_hash_str(m->rejected[i]) & (n - 1);
      while (t[s])
        s = (s + 1) & (n - 1);
      t[s] = i + 1;
    }
    free(m->rslots);
    m->rslots = t;
    m->n_rslots = n;
  }
  char *c = strdup(p);
  if (!c || UCOV_GROW(m->rejected, m->cap_rejected, m->n_rejected, 64)) {
    free(c);
    return;
  }
  size_t s = ucov_hash_str(c) & (m->n_rslots - 1);
  while (m->rslots[s])
    s = (s + 1) & (m->n_rslots - 1);
  m->rejected[m->n_rejected++] = c;
  m->rslots[s] = m->n_rejected;
}

int cov_path_kept(struct cov_model *m, const char *p) {
  if (!m->n_include && !m->n_exclude)
    return 1;
  if (rejected(m, p))
    return 0;
  int in = !m->n_include || matches(m->include, m->n_include, p);
  int out = matches(m->exclude, m->n_exclude, p);
  if (!out && (!in || m->n_exclude)) {
    char *r = real_other(p);
    if (r) {
      in = in || matches(m->include, m->n_include, r);
      out = matches(m->exclude, m->n_exclude, r);
      free(r);
    }
  }
  if (in && !out)
    return 1;
  reject(m, p);
  return 0;
}

void cov_free_rejected(struct cov_model *m) {
  for (size_t i = 0; i < m->n_rejected; i++)
    free(m->rejected[i]);
  free(m->rejected);
  free(m->rslots);
  m->rejected = NULL;
  m->rslots = NULL;
  m->n_rejected = m->cap_rejected = m->n_rslots = 0;
}
