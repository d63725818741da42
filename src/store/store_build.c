/* SPDX-License-Identifier: MIT */
/*
 * A push's build: the build-ids of the programs it names (--binary: the ELF's
 * GNU build-id note) and of the programs of the pulled trees among its inputs
 * (DIR/modules: the first module, the program itself). A --binary whose id
 * differs from the running module of the same name refuses the push: its
 * counts are not that program's.
 */
#define _GNU_SOURCE
#include "base/util.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/buildid.h"
#include "symbols/modmap.h"

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int store_build_ids(const char **bins, int n_bins, char **inputs, int n_inputs, char **out) {
  char **ids = calloc((size_t)(n_bins + n_inputs) + 1, sizeof(*ids));
  size_t n = 0;
  int err = ids ? 0 : -1;
  if (!ids)
    UCOV_ERR("out of memory");
  for (int i = 0; !err && i < n_bins; i++) {
    char id[130];
    elf_build_id_hex(bins[i], id, sizeof(id));
    if (id[0] && !(ids[n++] = strdup(id)))
      err = -1;
  }
  for (int i = 0; !err && i < n_inputs; i++) {
    char *path;
    if (asprintf(&path, "%s/modules", inputs[i]) < 0)
      continue;
    /* (a directory or other file named modules is no module map: a source
     * tree's folder) */
    FILE *f = ucov_fopen_regular(path);
    struct modmap mm;
    if (!f && errno != ENOENT && errno != ENOTDIR && errno != EISDIR &&
        errno != UCOV_ENOTREG) { /* there, unreadable: a wrong build */
      diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
      err = -1;
    } else if (f && modmap_read(&mm, f, path) != 0) {
      err = -1;
    } else if (f) {
      for (size_t k = 0; !err && k < mm.count; k++) {
        const struct modmap_entry *me = &mm.entries[k];
        if (!strcmp(me->build_id, "-"))
          continue;
        /* a --binary of the same name must be the program that ran */
        for (int b = 0; b < n_bins; b++) {
          char id[130];
          if (strcmp(base_name(bins[b]), base_name(me->path)))
            continue;
          elf_build_id_hex(bins[b], id, sizeof(id));
          if (id[0] && strcmp(id, me->build_id)) {
            diag_at(DIAG_ERROR, bins[b], 0,
                    "build-id %s, but the program that ran (%s in %s) is %s", id, me->path, path,
                    me->build_id);
            err = -1;
          }
        }
        if (k == 0 && !err && !(ids[n++] = strdup(me->build_id)))
          err = -1;
      }
      modmap_free(&mm);
    }
    if (f)
      fclose(f);
    free(path);
  }
  char *joined = NULL;
  if (!err) {
    qsort(ids, n, sizeof(*ids), cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
      total += strlen(ids[i]) + 1;
    joined = calloc(total, 1);
    for (size_t i = 0; joined && i < n; i++)
      if (!i || strcmp(ids[i], ids[i - 1])) {
        if (joined[0])
          strcat(joined, ",");
        strcat(joined, ids[i]);
      }
    if (!joined) {
      UCOV_ERR("out of memory");
      err = -1;
    }
  }
  for (size_t i = 0; ids && i < n; i++)
    free(ids[i]);
  free(ids);
  *out = joined;
  return err;
}
