/* SPDX-License-Identifier: MIT */
/* ucov JSON, read and written (docs/formats.md; see formats.h). */
#include "formats.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAY(...) (snprintf(msg, len, __VA_ARGS__), -1)

static int number(const struct json *v, uint64_t max, uint64_t *out) {
  if (!v || v->type != JSON_NUMBER || !v->is_u64 || v->u64 > max)
    return -1;
  *out = v->u64;
  return 0;
}

int ucov_json_read(struct cov_model *m, const struct json *root, char *msg, size_t len) {
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
      uint64_t ln, c;
      if (e->type != JSON_ARRAY || e->len != 3 || !json_str(e->first) ||
          number(e->first->next, UINT32_MAX, &ln) || number(e->first->next->next, UINT64_MAX, &c))
        return SAY("files[%zu] (%s): a function is not [name, line, count]", idx, path);
      cov_add_func(f, json_str(e->first), (uint32_t)ln, c);
    }
    a = json_get(fj, "branches");
    for (const struct json *e = a && a->type == JSON_ARRAY ? a->first : NULL; e; e = e->next) {
      uint64_t ln, blk, br, taken = 0;
      const struct json *t = e->type == JSON_ARRAY && e->len == 4 ? e->first->next->next->next : 0;
      if (!t || number(e->first, UINT32_MAX, &ln) || number(e->first->next, UINT32_MAX, &blk) ||
          number(e->first->next->next, UINT32_MAX, &br) ||
          (t->type != JSON_NULL && number(t, UINT64_MAX, &taken)))
        return SAY("files[%zu] (%s): a branch is not [line, block, branch, taken or null]", idx,
                   path);
      cov_add_branch(f, (uint32_t)ln, (uint32_t)blk, (uint32_t)br, t->type != JSON_NULL, taken);
    }
  }
  return 0;
}

int ucov_json_write(const struct cov_model *m, FILE *f, const struct cov_diff *diff) {
  fputs("{\"format\": \"ucov-coverage\", \"version\": 1, \"files\": [", f);
  for (size_t i = 0; i < m->n_files; i++) {
    const struct cov_file *c = m->files[i];
    fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
    json_put_string(f, c->path);
    fputs(", \"lines\": [", f);
    for (size_t k = 0; k < c->n_lines; k++)
      fprintf(f, "%s[%" PRIu32 ", %" PRIu64 "]", k ? ", " : "", c->lines[k].line,
              c->lines[k].count);
    fputs("], \"functions\": [", f);
    for (size_t k = 0; k < c->n_funcs; k++) {
      fputs(k ? ", [" : "[", f);
      json_put_string(f, c->funcs[k].name);
      fprintf(f, ", %" PRIu32 ", %" PRIu64 "]", c->funcs[k].line, c->funcs[k].count);
    }
    fputs("], \"branches\": [", f);
    for (size_t k = 0; k < c->n_branches; k++) {
      const struct cov_branch *b = &c->branches[k];
      fprintf(f, "%s[%" PRIu32 ", %" PRIu32 ", %" PRIu32 ", ", k ? ", " : "", b->line, b->block,
              b->branch);
      if (b->executed)
        fprintf(f, "%" PRIu64 "]", b->taken);
      else
        fputs("null]", f);
    }
    fputs("]", f);
    if (diff && i < diff->n_files) {
      fputs(", \"diff\": {", f);
      int first = 1;
      for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++) {
        if (!diff->files[i].counts[cat])
          continue;
        fprintf(f, "%s\"%s\": [", first ? "" : ", ", cov_category_name[cat]);
        first = 0;
        int any = 0;
        for (size_t k = 0; k < diff->files[i].n; k++)
          if (diff->files[i].lines[k].category == cat)
            fprintf(f, "%s%" PRIu32, any++ ? ", " : "", diff->files[i].lines[k].line);
        fputs("]", f);
      }
      fputs("}", f);
    }
    fputs("}", f);
  }
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}
