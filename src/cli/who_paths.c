/* SPDX-License-Identifier: MIT */
/* ucov who: a file the store does not know, and the known paths nearest it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store/store.h"

/* who's answer for a file the store may not know: whether a known path is
 * the file or ends with "/file", and the known paths closest to it (the
 * most trailing components in common, the file name at least) when none
 * is. */
struct who_paths {
  const char *file;
  int known;
  char *near[5];
  size_t score[5];
};

/* How many trailing path components a and b share ("x/src/a.c" and
 * "src/a.c": 2). */
static size_t common_ending(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), n = 0;
  while (la && lb) {
    size_t ca = la, cb = lb;
    while (ca && a[ca - 1] != '/')
      ca--;
    while (cb && b[cb - 1] != '/')
      cb--;
    if (la - ca != lb - cb || strncmp(a + ca, b + cb, la - ca))
      break;
    n++;
    la = ca ? ca - 1 : 0;
    lb = cb ? cb - 1 : 0;
    if (!ca || !cb)
      break;
  }
  return n;
}

static void who_path(void *arg, const char *path) {
  struct who_paths *w = arg;
  size_t lp = strlen(path), lf = strlen(w->file);
  if (!strcmp(path, w->file) ||
      (lp > lf && path[lp - lf - 1] == '/' && !strcmp(path + lp - lf, w->file)))
    w->known = 1;
  size_t n = common_ending(path, w->file);
  if (w->known || !n)
    return; /* (not the same file name) */
  size_t k = 5;
  while (k > 0 && (!w->near[k - 1] || w->score[k - 1] < n))
    k--;
  if (k == 5)
    return;
  free(w->near[4]);
  for (size_t j = 4; j > k; j--)
    w->near[j] = w->near[j - 1], w->score[j] = w->score[j - 1];
  w->near[k] = strdup(path);
  w->score[k] = n;
}

/* A file the store does not know: said with its nearest known paths; 1.
 * Known: 0; -1 if the store cannot be read. */
int cli_who_unknown(struct store *s, const char *file) {
  struct who_paths w = {.file = file};
  if (store_paths(s, who_path, &w))
    return -1;
  if (!w.known) {
    UCOV_ERR("%s: no source of that path in the store%s\n", file,
             w.near[0] ? "; its nearest known paths:" : "");
    for (size_t k = 0; k < 5 && w.near[k]; k++) {
      fputs("  ", stderr);
      print_escaped(stderr, w.near[k]);
      fputc('\n', stderr);
    }
  }
  for (size_t k = 0; k < 5; k++)
    free(w.near[k]);
  return !w.known;
}
