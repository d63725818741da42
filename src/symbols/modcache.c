/* SPDX-License-Identifier: MIT */
/* The host tool's one cache of modules' symbols, DWARF and call sites (modcache.h). */
#define _GNU_SOURCE
#include "modcache.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

enum { PART_SYMBOLS, PART_DWARF, PART_SITES, PARTS };

struct modcache_entry {
  char *path;
  int state[PARTS]; /* 0 not tried, 1 loaded, else the failure (-2: tried before) */
  struct elfsym_table sym;
  struct dw_module dw;
  struct dw_hook_sites sites;
};

static struct modcache_entry *entry_of(struct modcache *c, const char *path) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->v[i]->path, path) == 0)
      return c->v[i];
  struct modcache_entry *e = calloc(1, sizeof(*e));
  if (!e || !(e->path = strdup(path)) || UCOV_GROW(c->v, c->cap, c->n, 8)) {
    if (e)
      free(e->path);
    free(e);
    return NULL;
  }
  c->v[c->n++] = e;
  return e;
}

/* The part: 0 loaded before, 1 loaded now, or its failure (modcache.h). */
static int part(struct modcache *c, const char *path, int which, struct modcache_entry **out) {
  struct modcache_entry *e = entry_of(c, path);
  if (!e) {
    diag_at(DIAG_ERROR, path, 0, "out of memory");
    return -1;
  }
  *out = e;
  if (e->state[which] == 1)
    return 0;
  if (e->state[which])
    return e->state[which] == -3 ? -3 : -2;
  int r = which == PART_SYMBOLS ? elfsym_load(&e->sym, path)
          : which == PART_DWARF ? dw_load(&e->dw, path)
                                : dw_hook_sites(path, &e->sites);
  e->state[which] = r == 0 ? 1 : which == PART_SITES && r == -2 ? -3 : -1;
  return e->state[which] == 1 ? 1 : e->state[which];
}

int modcache_symbols(struct modcache *c, const char *path, const struct elfsym_table **out) {
  struct modcache_entry *e;
  int r = part(c, path, PART_SYMBOLS, &e);
  if (r >= 0)
    *out = &e->sym;
  return r;
}

int modcache_dwarf(struct modcache *c, const char *path, const struct dw_module **out) {
  struct modcache_entry *e;
  int r = part(c, path, PART_DWARF, &e);
  if (r >= 0)
    *out = &e->dw;
  return r;
}

int modcache_sites(struct modcache *c, const char *path, const struct dw_hook_sites **out) {
  struct modcache_entry *e;
  int r = part(c, path, PART_SITES, &e);
  if (r >= 0)
    *out = &e->sites;
  return r;
}

void modcache_free(struct modcache *c) {
  for (size_t i = 0; i < c->n; i++) {
    struct modcache_entry *e = c->v[i];
    if (e->state[PART_SYMBOLS] == 1)
      elfsym_free(&e->sym);
    if (e->state[PART_DWARF] == 1)
      dw_free(&e->dw);
    if (e->state[PART_SITES] == 1)
      dw_hook_sites_free(&e->sites);
    free(e->path);
    free(e);
  }
  free(c->v);
  memset(c, 0, sizeof(*c));
}
