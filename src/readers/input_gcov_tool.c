/* SPDX-License-Identifier: MIT */
/*
 * .gcda through a tool instead of the native reader (input_session.h):
 * --gcov-tool's gcov (--json-format, in batches), or an llvm-cov
 * (`llvm-cov gcov`, whose text is turned into an lcov record), and gcc
 * notes of a version the native reader does not know.
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

#include "readers.h"
#include "base/json.h"
#include "base/subprocess.h"
#include "base/util.h"

/* The .gcno of a .gcda: beside it, or at the build path of a pulled tree. */
int input_find_gcno(const char *gcda, char *out, size_t len) {
  size_t n = strlen(gcda) - 5;
  snprintf(out, len, "%.*s.gcno", (int)n, gcda);
  if (access(out, R_OK) == 0)
    return 0;
  for (const char *p = strstr(gcda, "/gcov/"); p; p = strstr(p + 1, "/gcov/")) {
    snprintf(out, len, "%.*s.gcno", (int)(gcda + n - (p + 5)), p + 5);
    if (access(out, R_OK) == 0)
      return 0;
  }
  return -1;
}

#define GCOV_BATCH 256

/* llvm-cov gcov's text (out, len; sources relative to base) as lcov records
 * on w. Lines: "COUNT:LINE:SOURCE" (COUNT "-" not code, "#####" never run,
 * a trailing '*' unexecuted blocks); "function NAME called N ..." before a
 * function's first line; "branch K taken N" / "branch K never executed". */
static void gcov_text_to_lcov(char *out, size_t len, const char *base, FILE *w) {
  int in_file = 0, last_line = 0, branch_no = 0;
  char fn_name[512] = "";
  long long fn_count = 0;
  /* the functions announced before the next line (several can start on one) */
  struct announced {
    char name[512];
    long long count;
  } *pending = NULL;
  size_t n_pending = 0, cap_pending = 0;
  for (char *line = out, *next; line && line < out + len; line = next) {
    next = memchr(line, '\n', (size_t)(out + len - line));
    if (next)
      *next++ = 0;
    long long count, taken;
    int k, lineno, used = 0;
    if (sscanf(line, "function %511s called %lld", fn_name, &fn_count) == 2) {
      if (!UCOV_GROW(pending, cap_pending, n_pending, 8)) {
        snprintf(pending[n_pending].name, sizeof(pending[0].name), "%s", fn_name);
        pending[n_pending++].count = fn_count;
      }
      continue;
    }
    if (sscanf(line, "branch %d taken %lld", &k, &taken) == 2 && in_file && last_line) {
      fprintf(w, "BRDA:%d,0,%d,%lld\n", last_line, branch_no++, taken);
      continue;
    }
    if (sscanf(line, "branch %d never executed", &k) == 1 && in_file && last_line) {
      fprintf(w, "BRDA:%d,0,%d,-\n", last_line, branch_no++);
      continue;
    }
    char cnt[32];
    if (sscanf(line, " %31[^:]:%d:%n", cnt, &lineno, &used) < 2 || !used)
      continue;
    if (lineno == 0) {
      if (strncmp(line + used, "Source:", 7) == 0) {
        const char *src = line + used + 7;
        if (in_file)
          fputs("end_of_record\n", w);
        if (src[0] == '/')
          fprintf(w, "SF:%s\n", src);
        else
          fprintf(w, "SF:%s/%s\n", base, src);
        in_file = 1;
        n_pending = 0;
        last_line = 0;
      }
      continue;
    }
    if (!in_file)
      continue;
    for (size_t f = 0; f < n_pending; f++)
      fprintf(w, "FN:%d,%s\nFNDA:%lld,%s\n", lineno, pending[f].name, pending[f].count,
              pending[f].name);
    n_pending = 0;
    if (cnt[0] == '-')
      continue;
    last_line = lineno;
    branch_no = 0;
    count = cnt[0] == '#' || cnt[0] == '=' ? 0 : strtoll(cnt, NULL, 10);
    fprintf(w, "DA:%d,%lld\n", lineno, count);
  }
  if (in_file)
    fputs("end_of_record\n", w);
  free(pending);
}

/*
 * One clang .gcda through `llvm-cov gcov -b -t` (which prints gcov's text
 * format: no JSON there), turned into an lcov record for the model. base is
 * the directory relative source names are relative to (the .gcno's).
 */
int input_llvm_gcda(struct cov_model *m, const char *gcda_abs, const char *gcno_abs,
                    const char *tmp, size_t idx, const char *tool) {
  char dir[PATH_MAX], link[PATH_MAX + 32], base[PATH_MAX];
  snprintf(dir, sizeof(dir), "%s/l%zu", tmp, idx);
  mkdir(dir, 0700);
  snprintf(link, sizeof(link), "%s/x.gcno", dir);
  if (symlink(gcno_abs, link))
    return 1;
  snprintf(link, sizeof(link), "%s/x.gcda", dir);
  if (symlink(gcda_abs, link))
    return 1;
  snprintf(base, sizeof(base), "%s", gcno_abs);
  char *slash = strrchr(base, '/');
  if (slash)
    *slash = 0;
  char *out = NULL;
  size_t len = 0;
  char gcno_link[PATH_MAX + 32];
  snprintf(gcno_link, sizeof(gcno_link), "%s/x.gcno", dir);
  struct path_map map[] = {{.from = link, .to = gcda_abs}, {.from = gcno_link, .to = gcno_abs}};
  char *argv[] = {(char *)tool, "gcov", "-b", "-c", "-t", link, NULL};
  /* relative sources: from the .gcno's place */
  int st = run_capture(argv, base, &out, &len, map, 2);
  if (st == RUN_TIMEOUT) {
    diag_at(DIAG_ERROR, gcda_abs, 0,
            "llvm-cov gcov ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)",
            tool_timeout_ms() / 1000);
    return 1;
  }
  if (st) {
    diag_at(DIAG_ERROR, gcda_abs, 0, "clang's gcov format: %s gcov does not read it", tool);
    free(out);
    return 1;
  }
  char info[PATH_MAX + 32];
  snprintf(info, sizeof(info), "%s/x.info", dir);
  FILE *w = fopen(info, "w");
  if (!w) {
    free(out);
    return 1;
  }
  gcov_text_to_lcov(out, len, base, w);
  free(out);
  if (fclose(w))
    return 1;
  return lcov_read(m, info) != 0;
}

/* Parse gcov's stream of JSON documents (one per .gcda). */
static int read_gcov_stream(struct cov_model *m, const char *out, size_t len) {
  int bad = 0;
  size_t at = 0;
  while (at < len) {
    struct json_doc doc;
    size_t used;
    if (json_parse(&doc, out + at, len - at, &used)) {
      UCOV_ERR("gcov output: %s\n", doc.error);
      return bad + 1;
    }
    struct diag_context in_output = {.before = "gcov output: "};
    diag_context_begin(&in_output);
    bad += gcov_json_read(m, doc.root) != 0;
    diag_context_end(&in_output);
    json_free(&doc);
    at += used;
  }
  return bad;
}

/* One batch of .gcda for gcov: its command line, and the paths its
 * messages name mapped back to the user's (the strings kept in users). */
struct batch {
  char **argv;
  int argc;
  struct path_map *map;
  size_t n_map;
  char **users;
  size_t n_users;
};

/* .gcda (or a .gcno alone: a unit that never ran, which gcov takes as "not
 * executed") number i of the inputs into the batch: gcov wants both files
 * side by side, so they are linked into a directory of their own under
 * tmp. The problems reported. */
static int batch_add(struct input_session *s, struct batch *b, const char *g, size_t i,
                     const char *tmp) {
  char gcno[PATH_MAX], gcno_abs[PATH_MAX], dir[64], link[PATH_MAX + 64], abs[PATH_MAX];
  int notes_only = ucov_ends_with(g, ".gcno");
  if (notes_only) {
    snprintf(gcno, sizeof(gcno), "%s", g);
  } else if (input_find_gcno(g, gcno, sizeof(gcno))) {
    input_say(s, "%s: no .gcno beside it or at its build path: skipped\n", g);
    return 1;
  }
  if (!realpath(gcno, gcno_abs) || (!notes_only && !realpath(g, abs)))
    return 0;
  const char *base = strrchr(gcno, '/');
  base = base ? base + 1 : gcno;
  snprintf(dir, sizeof(dir), "%s/%zu", tmp, i);
  mkdir(dir, 0700);
  if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, base) >= sizeof(link))
    return 0;
  size_t bl = strlen(link);
  int ok = symlink(gcno_abs, link) == 0;
  char *gcno_link = strdup(link);
  snprintf(link + bl - 5, 6, ".gcda");
  if (!ok || (!notes_only && symlink(abs, link) != 0) || !gcno_link) {
    free(gcno_link);
    return 0;
  }
  b->argv[b->argc++] = strdup(link);
  /* gcov names what it reads: its messages name the user's files. */
  char *gcda_link = strdup(link), *user_gcno = strdup(gcno);
  b->users[b->n_users++] = gcno_link;
  if (user_gcno) {
    b->users[b->n_users++] = user_gcno;
    b->map[b->n_map++] = (struct path_map){gcno_link, user_gcno};
  }
  if (gcda_link) {
    b->users[b->n_users++] = gcda_link;
    b->map[b->n_map++] = (struct path_map){gcda_link, g};
  }
  return 0;
}

static void batch_free(struct batch *b) {
  for (int i = 4; i < b->argc; i++)
    free(b->argv[i]);
  free(b->argv);
  for (size_t i = 0; i < b->n_users; i++)
    free(b->users[i]);
  free(b->users);
  free(b->map);
}

/* .gcda through gcov --json-format (--gcov-tool, or a notes format the
 * native reader does not know), in batches of GCOV_BATCH. */
int input_gcdas_gcov(struct input_session *s, struct cov_model *m, struct strlist *gcdas) {
  const struct input_opts *o = s->o;
  int bad = 0;
  char tmpl[PATH_MAX];
  char *tmp = temp_dir(tmpl, sizeof(tmpl), "report");
  if (!tmp)
    return 1;
  const char *tool = o->gcov_tool ? o->gcov_tool : "gcov";
  /* gcov runs in a temporary directory: a relative path to it would not. */
  char tool_abs[PATH_MAX];
  if (strchr(tool, '/') && tool[0] != '/' && realpath(tool, tool_abs))
    tool = tool_abs;
  int cannot_run = 0; /* said once: the batches after it are not tried */
  for (size_t start = 0; start < gcdas->n && !cannot_run; start += GCOV_BATCH) {
    size_t end = start + GCOV_BATCH < gcdas->n ? start + GCOV_BATCH : gcdas->n;
    struct batch b = {calloc(end - start + 5, sizeof(char *)),
                      0,
                      calloc(2 * (end - start) + 1, sizeof(struct path_map)),
                      0,
                      calloc(3 * (end - start) + 1, sizeof(char *)),
                      0};
    if (!b.argv || !b.map || !b.users) {
      batch_free(&b);
      bad++;
      break;
    }
    b.argv[b.argc++] = (char *)tool;
    b.argv[b.argc++] = "--json-format";
    b.argv[b.argc++] = "--stdout";
    b.argv[b.argc++] = "--branch-probabilities";
    for (size_t i = start; i < end; i++)
      bad += batch_add(s, &b, gcdas->v[i], i, tmp);
    char *out = NULL;
    size_t len = 0;
    int st = b.argc > 4 ? run_capture(b.argv, tmp, &out, &len, b.map, b.n_map) : 0;
    if (st == RUN_TIMEOUT)
      input_say(s, "%s ran longer than %d s on %s%s: killed (UCOV_TOOL_TIMEOUT)\n", tool,
                tool_timeout_ms() / 1000, gcdas->v[start],
                end - start > 1 ? " and the .gcda after it" : "");
    else if (st == 127)
      input_say(s, "cannot run %s (--gcov-tool): %zu .gcda not read\n", tool, gcdas->n);
    else if (st)
      input_say(s, "%s failed (exit %d): some .gcda not read\n", tool, st);
    bad += st != 0;
    cannot_run = st == 127;
    if (out)
      bad += read_gcov_stream(m, out, len);
    free(out);
    batch_free(&b);
    input_progress(s, ".gcda", end, gcdas->n);
  }
  rm_tree(tmp);
  return bad;
}
