/* SPDX-License-Identifier: MIT */
/* ucov JSON, read (docs/formats.md; see readers.h; written: src/writers/ucov_json_write.c). */
#include "readers.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int number(const struct json *v, uint64_t max, uint64_t *out) {
  if (!v || v->type != JSON_NUMBER || !v->is_u64 || v->u64 > max)
    return -1;
  *out = v->u64;
  return 0;
}

/* A file's "lines" and "functions" into f. 0, or -1 (said). */
static int read_lines_funcs(struct cov_file *f, const struct json *fj, size_t idx,
                            const char *path) {
  const struct json *a = json_get(fj, "lines");
  for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
    uint64_t ln, c;
    if (e->type != JSON_ARRAY || e->len != 2 || number(e->first, UINT32_MAX, &ln) ||
        number(e->first->next, UINT64_MAX, &c))
      return SAY("files[%zu] (%s): a line is not [line, count]", idx, path);
    cov_add_line(f, (uint32_t)ln, c);
  }
  a = json_get(fj, "functions");
  for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
    uint64_t ln, c, end = 0;
    if (e->type != JSON_ARRAY || (e->len != 3 && e->len != 4) || !json_str(e->first) ||
        number(e->first->next, UINT32_MAX, &ln) || number(e->first->next->next, UINT64_MAX, &c) ||
        (e->len == 4 && number(e->first->next->next->next, UINT32_MAX, &end)))
      return SAY("files[%zu] (%s): a function is not [name, line, count(, end line)]", idx, path);
    cov_add_func_end(f, json_str(e->first), (uint32_t)ln, (uint32_t)end, c);
  }
  return 0;
}

/* A file's "branches", "mcdc" and "regions" into f. 0, or -1 (said). */
static int read_branches(struct cov_file *f, const struct json *fj, size_t idx, const char *path) {
  const struct json *a;
  a = json_get(fj, "branches");
  for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
    uint64_t ln, blk, br, taken = 0;
    int arr = e->type == JSON_ARRAY && (e->len == 4 || e->len == 5);
    const struct json *t = arr ? e->first->next->next->next : 0, *x = t ? t->next : 0;
    if (!t || number(e->first, UINT32_MAX, &ln) || number(e->first->next, UINT32_MAX, &blk) ||
        number(e->first->next->next, UINT32_MAX, &br) ||
        (t->type != JSON_NULL && number(t, UINT64_MAX, &taken)) || (x && x->type != JSON_BOOL))
      return SAY("files[%zu] (%s): a branch is not [line, block, branch, taken or null"
                 "(, exception)]",
                 idx, path);
    cov_add_branch_e(f, (uint32_t)ln, (uint32_t)blk, (uint32_t)br, t->type != JSON_NULL, taken,
                     x && x->boolean);
  }
  a = json_get(fj, "mcdc");
  for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
    uint64_t ln, group, taken, index;
    const struct json *v = e->type == JSON_ARRAY && e->len == 6 ? e->first : NULL;
    const char *sense = v ? json_str(v->next->next) : NULL;
    if (!v || number(v, UINT32_MAX, &ln) || number(v->next, UINT32_MAX, &group) || !sense ||
        (strcmp(sense, "t") && strcmp(sense, "f")) ||
        number(v->next->next->next, UINT64_MAX, &taken) ||
        number(v->next->next->next->next, UINT32_MAX, &index) ||
        !json_str(v->next->next->next->next->next))
      return SAY("files[%zu] (%s): an MC/DC entry is not [line, group size, \"t\" or \"f\", "
                 "taken, index, expression]",
                 idx, path);
    cov_add_mcdc(f, (uint32_t)ln, (uint32_t)group, sense[0] == 't', taken, (uint32_t)index,
                 json_str(v->next->next->next->next->next));
  }
  a = json_get(fj, "regions");
  for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
    uint64_t v[5];
    const struct json *x = e->type == JSON_ARRAY && e->len == 5 ? e->first : NULL;
    for (int k = 0; k < 5; k++, x = x ? x->next : NULL)
      if (!x || number(x, k == 4 ? UINT64_MAX : UINT32_MAX, &v[k]))
        return SAY("files[%zu] (%s): a region is not [line, column, instance, index, count]", idx,
                   path);
    if (cov_add_region(f, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3], v[4]))
      return SAY("out of memory");
  }
  return 0;
}

/* A file's "excluded" into f. 0, or -1 (said). */
static int read_excluded(struct cov_file *f, const struct json *fj, size_t idx, const char *path) {
  const struct json *a;
  const struct json *ex = json_get(fj, "excluded");
  if (ex) {
    uint64_t nb = 0, nf = 0, ln;
    a = json_get(ex, "lines");
    if (ex->type != JSON_OBJECT || (a && a->type != JSON_ARRAY) ||
        (json_get(ex, "branches") && number(json_get(ex, "branches"), UINT64_MAX, &nb)) ||
        (json_get(ex, "functions") && number(json_get(ex, "functions"), UINT64_MAX, &nf)))
      return SAY("files[%zu] (%s): \"excluded\" is not {\"lines\": [...], \"branches\": n, "
                 "\"functions\": n}",
                 idx, path);
    for (const struct json *e = a ? a->first : NULL; e; e = e->next) {
      if (number(e, UINT32_MAX, &ln))
        return SAY("files[%zu] (%s): an excluded line is not a number", idx, path);
      if (cov_add_excluded(f, (uint32_t)ln))
        return SAY("out of memory");
    }
    f->excl_branches = cov_sum(f->excl_branches, nb);
    f->excl_funcs = cov_sum(f->excl_funcs, nf);
  }
  return 0;
}

int ucov_json_read(struct cov_model *m, const struct json *root) {
  const char *fmt = json_str(json_get(root, "format"));
  if (!fmt || strcmp(fmt, "ucov-coverage") != 0)
    return SAY("not ucov JSON (no \"format\": \"ucov-coverage\")");
  if (json_u64(json_get(root, "version")) != 1)
    return SAY("ucov JSON version %" PRIu64 " is not 1", json_u64(json_get(root, "version")));
  const struct json *files = json_get(root, "files");
  if (!files || files->type != JSON_ARRAY)
    return SAY("no \"files\" array");
  size_t idx = 0;
  for (const struct json *fj = files->first; fj; fj = fj->next, idx++) {
    const char *path = json_str(json_get(fj, "path"));
    if (!path)
      return SAY("files[%zu]: no \"path\"", idx);
    struct cov_file *f = cov_file(m, path, NULL);
    if (!f)
      continue;
    if (read_lines_funcs(f, fj, idx, path) || read_branches(f, fj, idx, path) ||
        read_excluded(f, fj, idx, path))
      return -1;
    const char *test = json_str(json_get(fj, "test")), *ver = json_str(json_get(fj, "version"));
    if (cov_set_test(f, test) || cov_set_version(f, ver))
      return SAY("out of memory");
  }
  return 0;
}
