/* SPDX-License-Identifier: MIT */
/*
 * Xen's coverage blob (`xencov read`; input_session.h): "XCOV", then
 * {path NUL, u32 size, .gcda} records, split as xencov_split does.
 */
#define _GNU_SOURCE
#include "input_session.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/subprocess.h"
#include "base/util.h"

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
int input_xencov_read(struct input_session *s, struct cov_model *m, const char *path) {
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
    diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno));
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
      diag_at(DIAG_ERROR, path, 0, "truncated record at byte %zu", off);
      bad = 1;
      break;
    }
    memcpy(&size, nul + 1, 4);
    size_t data = (size_t)(nul + 1 - blob) + 4;
    if (size > len - data) {
      diag_at(DIAG_ERROR, path, 0, "record %s claims %u bytes, %zu remain", name, size, len - data);
      bad = 1;
      break;
    }
    if (!xencov_name_ok(name)) {
      diag_at(DIAG_ERROR, path, 0, "refusing record name '%s'", name);
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
        strlist_add(&gcdas, out);
      } else {
        if (w)
          fclose(w);
        diag_at(DIAG_ERROR, path, 0, "record %s: %s", name, strerror(errno));
        bad = 1;
      }
    }
    off = data + size;
  }
  char prefix[PATH_MAX + 8];
  snprintf(prefix, sizeof(prefix), "%s/gcov", tmp ? tmp : "");
  s->alias_tmp = prefix;
  s->alias_blob = path;
  if (gcdas.n)
    bad += input_gcdas_read(s, m, &gcdas);
  s->alias_tmp = s->alias_blob = NULL;
  strlist_free(&gcdas);
  if (tmp)
    rm_tree(tmp);
  free(blob);
  return bad;
}
