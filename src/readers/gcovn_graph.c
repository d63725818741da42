/* SPDX-License-Identifier: MIT */
/*
 * The native reader's graph: its memory, an arena per unit freed at once, and
 * the small helpers every step uses (gcovn.h).
 */
#define _GNU_SOURCE
#include "gcovn_int.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ---- the graph ---- */

void *gcovn_arena(struct unit *u, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n > u->left) {
    /* Chunks of 64 KiB, 256 KiB and 1 MiB, then of 2 MiB doubling to 32 on
     * huge pages where the kernel has them: touching 30 MiB of small pages
     * was half of reading SQLite, and a huge page for a small unit (most of
     * a kernel's) was half of reading 20,000 of them (the kernel zeroes
     * 2 MiB at the first touch) */
    size_t k = u->chunks.n;
    size_t chunk = k < 3 ? (size_t)64 << 10 << (2 * k) : (size_t)2 << (k < 7 ? k - 3 : 4) << 20;
    size_t size = n > chunk ? n : chunk;
    int huge = chunk >= ((size_t)2 << 20);
    void *b = NULL;
    if (!huge)
      b = malloc(size);
    else if (posix_memalign(&b, (size_t)2 << 20, size))
      b = NULL;
#ifdef MADV_HUGEPAGE
    if (b && huge)
      madvise(b, size, MADV_HUGEPAGE);
#endif
    if (!b || UCOV_GROW(u->chunks.v, u->chunks.cap, u->chunks.n, 64)) {
      free(b);
      return NULL;
    }
    u->chunks.v[u->chunks.n++] = b;
    if (n == size) /* a large one: the current chunk goes on */
      return b;
    u->cur = b;
    u->left = size;
  }
  void *p = u->cur;
  u->cur += n;
  u->left -= n;
  return p;
}

/* Room for element n of an arena array (doubled; the old copy is left). 0 or -1. */
int gcovn_agrow(struct unit *u, void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 4;
  if (c > ((size_t)1 << 40) / elem)
    return -1;
  void *p = gcovn_arena(u, c * elem);
  if (!p)
    return -1;
  if (n)
    memcpy(p, *arr, n * elem);
  *arr = p;
  *cap = c;
  return 0;
}

void *gcovn_arena0(struct unit *u, size_t n) {
  void *p = gcovn_arena(u, n);
  if (p)
    memset(p, 0, n);
  return p;
}

int gcovn_apush(struct unit *u, struct ptrvec *v, void *p) {
  if (gcovn_agrow(u, (void **)&v->v, &v->cap, v->n, sizeof(void *)))
    return -1;
  v->v[v->n++] = p;
  return 0;
}

int gcovn_say(struct unit *u, const char *fmt, const char *what) {
  snprintf(u->err, u->errlen, fmt, what);
  return -1;
}

int gcovn_pv_push(struct ptrvec *v, void *p) {
  if (UCOV_GROW(v->v, v->cap, v->n, 4))
    return -1;
  v->v[v->n++] = p;
  return 0;
}

int gcovn_pv_has(const struct ptrvec *v, const void *p) {
  for (size_t i = 0; i < v->n; i++)
    if (v->v[i] == p)
      return 1;
  return 0;
}

/* The record of line ln (made, with the index grown to hold it); NULL without memory. */
struct line *gcovn_line_at(struct lines *l, uint32_t ln) {
  if (ln >= l->size)
    return NULL;
  if (!l->slot[ln]) {
    if (UCOV_GROW(l->rec, l->cap_rec, l->n_rec, 64))
      return NULL;
    memset(&l->rec[l->n_rec], 0, sizeof(l->rec[0]));
    l->slot[ln] = (uint32_t)++l->n_rec;
  }
  return &l->rec[l->slot[ln] - 1];
}

struct line *gcovn_line_if(const struct lines *l, uint32_t ln) {
  return ln < l->size && l->slot[ln] ? &l->rec[l->slot[ln] - 1] : NULL;
}

int gcovn_lines_resize(struct lines *l, size_t size) {
  if (size <= l->size)
    return 0;
  uint32_t *s = realloc(l->slot, size * sizeof(*s));
  if (!s)
    return -1;
  memset(s + l->size, 0, (size - l->size) * sizeof(*s));
  l->slot = s;
  l->size = size;
  return 0;
}

static void lines_free(struct lines *l) {
  free(l->rec);
  free(l->slot);
}

void gcovn_unit_free(struct unit *u) {
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    free(fn->name);
    lines_free(&fn->lines);
  }
  free(u->fns);
  for (size_t i = 0; i < u->n_srcs; i++) {
    free(u->srcs[i].name);
    lines_free(&u->srcs[i].lines);
    free(u->srcs[i].fns.v);
  }
  free(u->srcs);
  free(u->last_raw);
  for (size_t i = 0; i < u->chunks.n; i++)
    free(u->chunks.v[i]);
  free(u->chunks.v);
  free(u->cwd);
}

/* A source name as gcov keys it: "." components and repeated slashes gone. */
static char *canonical(const char *name) {
  size_t n = strlen(name);
  char *out = malloc(n + 1), *o = out;
  if (!out)
    return NULL;
  const char *p = name;
  if (*p == '/')
    *o++ = '/';
  while (*p) {
    while (*p == '/')
      p++;
    const char *e = p;
    while (*e && *e != '/')
      e++;
    size_t len = (size_t)(e - p);
    if (len && !(len == 1 && p[0] == '.')) {
      if (o > out && o[-1] != '/')
        *o++ = '/';
      memcpy(o, p, len);
      o += len;
    }
    p = e;
  }
  *o = 0;
  return out;
}

/* The index of a source (added if new), or -1 without memory. */
long gcovn_find_source(struct unit *u, const char *name) {
  if (!name)
    name = "<unknown>";
  char *canon = canonical(name);
  if (!canon)
    return -1;
  if (u->last_src < u->n_srcs && strcmp(u->srcs[u->last_src].name, canon) == 0) {
    free(canon);
    return (long)u->last_src;
  }
  for (size_t i = 0; i < u->n_srcs; i++)
    if (strcmp(u->srcs[i].name, canon) == 0) {
      free(canon);
      u->last_src = i;
      return (long)i;
    }
  if (UCOV_GROW(u->srcs, u->cap_srcs, u->n_srcs, 8)) {
    free(canon);
    return -1;
  }
  memset(&u->srcs[u->n_srcs], 0, sizeof(u->srcs[0]));
  u->srcs[u->n_srcs].name = canon;
  u->last_src = u->n_srcs;
  return (long)u->n_srcs++;
}
