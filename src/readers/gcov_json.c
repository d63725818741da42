/* SPDX-License-Identifier: MIT */
/* gcov's --json-format output, read (see readers.h). */
#include "readers.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A JSON boolean member that is true. */
static int is_true(const struct json *o, const char *key) {
  const struct json *v = json_get(o, key);
  return v && v->type == JSON_BOOL && v->boolean;
}

/* One line record as gcov's JSON and gcovr's both write it: its count, and
 * its branches (count; exception edges, "throw", counted as lcov counts them
 * and marked as lcov 2 marks them, "e"). */
static void add_line_record(struct cov_file *f, uint32_t ln, uint64_t count,
                            const struct json *brs) {
  cov_add_line(f, ln, count);
  uint32_t k = 0;
  for (const struct json *b = brs && brs->type == JSON_ARRAY ? brs->first : NULL; b; b = b->next)
    cov_add_branch_e(f, ln, 0, k++, count > 0, json_u64(json_get(b, "count")), is_true(b, "throw"));
}

int gcov_json_read(struct cov_model *m, const struct json *root) {
  const struct json *files = json_get(root, "files");
  if (!files || files->type != JSON_ARRAY || !json_get(root, "gcc_version"))
    return SAY("not gcov JSON (no \"gcc_version\" and \"files\")");
  const char *cwd = json_str(json_get(root, "current_working_directory"));
  cov_begin_unit(m); /* (one gcov run: one unit, as lcov 2 captures it) */
  for (const struct json *fj = files->first; fj; fj = fj->next) {
    const char *path = json_str(json_get(fj, "file"));
    if (!path)
      return SAY("a file without \"file\"");
    struct cov_file *f = cov_file(m, path, cwd);
    if (!f)
      continue;
    const struct json *fns = json_get(fj, "functions");
    for (const struct json *fn = fns && fns->type == JSON_ARRAY ? fns->first : NULL; fn;
         fn = fn->next) {
      const char *name = json_str(json_get(fn, "name"));
      uint32_t start = (uint32_t)json_u64(json_get(fn, "start_line")),
               end = (uint32_t)json_u64(json_get(fn, "end_line"));
      if (name)
        cov_add_func_end(f, name, start, end >= start ? end : 0,
                         json_u64(json_get(fn, "execution_count")));
    }
    const struct json *lines = json_get(fj, "lines");
    for (const struct json *l = lines && lines->type == JSON_ARRAY ? lines->first : NULL; l;
         l = l->next) {
      uint32_t ln = (uint32_t)json_u64(json_get(l, "line_number"));
      uint64_t count = json_u64(json_get(l, "count"));
      if (ln)
        add_line_record(f, ln, count, json_get(l, "branches"));
    }
  }
  return 0;
}

int gcovr_json_read(struct cov_model *m, const struct json *root) {
  const struct json *files = json_get(root, "files");
  if (!files || files->type != JSON_ARRAY || !json_get(root, "gcovr/format_version"))
    return SAY("not gcovr JSON (no \"gcovr/format_version\" and \"files\")");
  for (const struct json *fj = files->first; fj; fj = fj->next) {
    const char *path = json_str(json_get(fj, "file"));
    if (!path)
      return SAY("a file without \"file\"");
    struct cov_file *f = cov_file(m, path, NULL); /* (relative: to --root, else here) */
    if (!f)
      continue;
    const struct json *fns = json_get(fj, "functions");
    for (const struct json *fn = fns && fns->type == JSON_ARRAY ? fns->first : NULL; fn;
         fn = fn->next) {
      const char *name = json_str(json_get(fn, "name"));
      if (!name)
        name = json_str(json_get(fn, "demangled_name"));
      if (name && !is_true(fn, "gcovr/excluded"))
        cov_add_func(f, name, (uint32_t)json_u64(json_get(fn, "lineno")),
                     json_u64(json_get(fn, "execution_count")));
    }
    const struct json *lines = json_get(fj, "lines");
    for (const struct json *l = lines && lines->type == JSON_ARRAY ? lines->first : NULL; l;
         l = l->next) {
      uint32_t ln = (uint32_t)json_u64(json_get(l, "line_number"));
      uint64_t count = json_u64(json_get(l, "count"));
      if (!ln || is_true(l, "gcovr/noncode"))
        continue; /* no code there, by gcovr's rule */
      if (is_true(l, "gcovr/excluded")) {
        cov_add_excluded(f, ln);
        continue;
      }
      add_line_record(f, ln, count, json_get(l, "branches"));
    }
  }
  return 0;
}
