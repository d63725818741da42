/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats.h"
#include "json.h"

struct strlist {
  char **v;
  size_t n, cap;
};

static void sl_add(struct strlist *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->v = realloc(l->v, l->cap * sizeof(*l->v));
  }
  l->v[l->n++] = strdup(s);
}

static void sl_free(struct strlist *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof(*l));
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * Run argv (in cwd if not NULL) and take its standard output; its standard
 * error goes to ours. Returns the exit status (127: could not run), -1 on a
 * local failure.
 */
static int run_capture(char *const argv[], const char *cwd, char **out, size_t *len) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC))
    return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    if (cwd && chdir(cwd))
      _exit(127);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  ssize_t r;
  while (buf) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    r = read(fds[0], buf + n, cap - n - 1);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    n += (size_t)r;
  }
  close(fds[0]);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  if (!buf)
    return -1;
  buf[n] = 0;
  *out = buf;
  *len = n;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void progress(const struct input_opts *o, const char *what, size_t done, size_t total) {
  if (!o->progress || !total)
    return;
  fprintf(stderr, "\rucov: report: %s %zu/%zu", what, done, total);
  if (done == total)
    fputc('\n', stderr);
  fflush(stderr);
}

/* ---- .gcda through gcov ---- */

/* The .gcno of a .gcda: beside it, or at the build path of a pulled tree. */
static int find_gcno(const char *gcda, char *out, size_t len) {
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

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

#define GCOV_BATCH 256

/* Parse gcov's stream of JSON documents (one per .gcda). */
static int read_gcov_stream(struct cov_model *m, const char *out, size_t len) {
  int bad = 0;
  size_t at = 0;
  while (at < len) {
    struct json_doc doc;
    size_t used;
    char msg[200];
    if (json_parse(&doc, out + at, len - at, &used)) {
      fprintf(stderr, "ucov: gcov output: %s\n", doc.error);
      return bad + 1;
    }
    if (gcov_json_read(m, doc.root, msg, sizeof(msg))) {
      fprintf(stderr, "ucov: gcov output: %s\n", msg);
      bad++;
    }
    json_free(&doc);
    at += used;
  }
  return bad;
}

static int read_gcdas(struct cov_model *m, struct strlist *gcdas, const struct input_opts *o) {
  int bad = 0;
  char tmpl[] = "/tmp/ucov-report-XXXXXX";
  char *tmp = mkdtemp(tmpl);
  if (!tmp) {
    fprintf(stderr, "ucov: report: no temporary directory: %s\n", strerror(errno));
    return 1;
  }
  const char *tool = o->gcov_tool ? o->gcov_tool : "gcov";
  for (size_t start = 0; start < gcdas->n; start += GCOV_BATCH) {
    size_t end = start + GCOV_BATCH < gcdas->n ? start + GCOV_BATCH : gcdas->n;
    char **argv = calloc(end - start + 5, sizeof(*argv));
    int argc = 0;
    argv[argc++] = (char *)tool;
    argv[argc++] = "--json-format";
    argv[argc++] = "--stdout";
    argv[argc++] = "--branch-probabilities";
    for (size_t i = start; i < end; i++) {
      const char *g = gcdas->v[i];
      char gcno[PATH_MAX], gcno_abs[PATH_MAX], dir[64], link[PATH_MAX + 64], abs[PATH_MAX];
      if (find_gcno(g, gcno, sizeof(gcno))) {
        fprintf(stderr, "ucov: %s: no .gcno beside it or at its build path: skipped\n", g);
        bad++;
        continue;
      }
      if (!realpath(g, abs) || !realpath(gcno, gcno_abs))
        continue;
      /* gcov wants both side by side: links in a directory of their own. */
      const char *base = strrchr(gcno, '/');
      base = base ? base + 1 : gcno;
      snprintf(dir, sizeof(dir), "%s/%zu", tmp, i);
      mkdir(dir, 0700);
      if ((size_t)snprintf(link, sizeof(link), "%s/%s", dir, base) >= sizeof(link))
        continue;
      size_t bl = strlen(link);
      int ok = symlink(gcno_abs, link) == 0;
      snprintf(link + bl - 5, 6, ".gcda");
      if (ok && symlink(abs, link) == 0)
        argv[argc++] = strdup(link);
    }
    char *out = NULL;
    size_t len = 0;
    int st = argc > 4 ? run_capture(argv, tmp, &out, &len) : 0;
    if (st == 127)
      fprintf(stderr, "ucov: report: cannot run %s (--gcov-tool)\n", tool);
    else if (st)
      fprintf(stderr, "ucov: report: %s failed (exit %d): some .gcda not read\n", tool, st);
    bad += st != 0;
    if (out)
      bad += read_gcov_stream(m, out, len);
    free(out);
    for (int i = 4; i < argc; i++)
      free(argv[i]);
    free(argv);
    progress(o, ".gcda", end, gcdas->n);
  }
  nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return bad;
}

/* ---- raw and indexed LLVM profiles ---- */

static int read_profile(struct cov_model *m, const char *path, const struct input_opts *o) {
  if (!o->n_binaries) {
    fprintf(stderr, "ucov: %s: an LLVM profile needs --binary PROG (the instrumented program)\n",
            path);
    return 1;
  }
  /* The llvm tools of the clang that wrote it: raw version 8 is clang 14-17,
   * 9 clang 18, 10 clang 19+. Indexed profiles: any that reads them. */
  static const char *v8[] = {"", "-16", "-17", "-15", "-14", NULL};
  static const char *v9[] = {"-18", "", NULL};
  static const char *v10[] = {"-19", "-20", "-21", "", NULL};
  static const char *any[] = {"", "-19", "-18", "-17", "-16", "-15", "-14", NULL};
  const char **suffixes = any;
  int raw = 0;
  FILE *f = fopen(path, "rb");
  uint64_t hdr[2] = {0, 0};
  if (!f || fread(hdr, 8, 2, f) != 2) {
    fprintf(stderr, "ucov: %s: %s\n", path, f ? "too short for an LLVM profile" : strerror(errno));
    if (f)
      fclose(f);
    return 1;
  }
  fclose(f);
  if (hdr[0] == 0xff6c70726f667281ull) {
    raw = 1;
    uint32_t v = (uint32_t)hdr[1];
    suffixes = v == 8 ? v8 : v == 9 ? v9 : v == 10 ? v10 : any;
  }
  char tmpl[] = "/tmp/ucov-profile-XXXXXX";
  char *tmp = mkdtemp(tmpl);
  if (!tmp)
    return 1;
  char indexed[PATH_MAX];
  snprintf(indexed, sizeof(indexed), "%s/p.profdata", tmp);
  int bad = 1;
  for (int i = 0; suffixes[i] && bad; i++) {
    char profdata[64], cov[64];
    snprintf(profdata, sizeof(profdata), "llvm-profdata%s", suffixes[i]);
    snprintf(cov, sizeof(cov), "llvm-cov%s", suffixes[i]);
    char *out = NULL;
    size_t len;
    if (raw) {
      char *merge[] = {profdata, "merge", "-o", indexed, (char *)path, NULL};
      int st = run_capture(merge, NULL, &out, &len);
      free(out);
      if (st)
        continue;
    } else {
      snprintf(indexed, sizeof(indexed), "%s", path);
    }
    char *argv[8 + 2 * 16];
    int argc = 0;
    argv[argc++] = cov;
    argv[argc++] = "export";
    argv[argc++] = "-format=lcov";
    argv[argc++] = "-instr-profile";
    argv[argc++] = indexed;
    argv[argc++] = (char *)o->binaries[0];
    for (int b = 1; b < o->n_binaries && b < 16; b++) {
      argv[argc++] = "-object";
      argv[argc++] = (char *)o->binaries[b];
    }
    argv[argc] = NULL;
    out = NULL;
    int st = run_capture(argv, NULL, &out, &len);
    if (st == 0 && out) {
      char info[PATH_MAX];
      snprintf(info, sizeof(info), "%s/p.info", tmp);
      FILE *w = fopen(info, "w");
      if (w && fwrite(out, 1, len, w) == len && fclose(w) == 0)
        bad = lcov_read(m, info) > 0;
      else if (w)
        fclose(w);
    }
    free(out);
  }
  if (bad)
    fprintf(stderr, "ucov: %s: no llvm-profdata/llvm-cov pair here reads it with %s\n", path,
            o->binaries[0]);
  nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return bad;
}

/* ---- files and directories ---- */

static int read_json_file(struct cov_model *m, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
    return 1;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0, r;
  do {
    if (len + 65536 > cap) {
      cap = cap ? cap * 2 : 1 << 20;
      buf = realloc(buf, cap);
    }
    r = fread(buf + len, 1, cap - len, f);
    len += r;
  } while (r > 0);
  fclose(f);
  struct json_doc doc;
  char msg[200];
  int bad = 0;
  if (json_parse(&doc, buf, len, NULL)) {
    fprintf(stderr, "ucov: %s: not JSON: %s\n", path, doc.error);
    bad = 1;
  } else if (json_get(doc.root, "format")) {
    if (ucov_json_read(m, doc.root, msg, sizeof(msg))) {
      fprintf(stderr, "ucov: %s: %s\n", path, msg);
      bad = 1;
    }
  } else if (gcov_json_read(m, doc.root, msg, sizeof(msg))) {
    fprintf(stderr, "ucov: %s: neither ucov JSON nor gcov's: %s\n", path, msg);
    bad = 1;
  }
  json_free(&doc);
  free(buf);
  return bad;
}

static struct strlist walk_gcda, walk_prof, walk_lcov, walk_json;

static int walk_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (type != FTW_F)
    return 0;
  if (ends_with(path, ".gcda"))
    sl_add(&walk_gcda, path);
  else if (ends_with(path, ".profraw") || ends_with(path, ".profdata"))
    sl_add(&walk_prof, path);
  else if (ends_with(path, ".info"))
    sl_add(&walk_lcov, path);
  else if (ends_with(path, ".json"))
    sl_add(&walk_json, path);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int input_read(struct cov_model *m, const char *path, const struct input_opts *o) {
  struct stat st;
  if (stat(path, &st)) {
    fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
    return 1;
  }
  int bad = 0;
  if (S_ISDIR(st.st_mode)) {
    if (nftw(path, walk_entry, 32, FTW_PHYS)) {
      fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
      bad++;
    }
    struct strlist *lists[] = {&walk_gcda, &walk_prof, &walk_lcov, &walk_json};
    for (int i = 0; i < 4; i++)
      if (lists[i]->n)
        qsort(lists[i]->v, lists[i]->n, sizeof(char *), cmp_str);
    if (!walk_gcda.n && !walk_prof.n && !walk_lcov.n && !walk_json.n) {
      fprintf(stderr, "ucov: %s: no .gcda, .profraw, .info or .json inside\n", path);
      bad++;
    }
    if (walk_gcda.n)
      bad += read_gcdas(m, &walk_gcda, o);
    for (size_t i = 0; i < walk_prof.n; i++)
      bad += read_profile(m, walk_prof.v[i], o);
    for (size_t i = 0; i < walk_lcov.n; i++)
      bad += lcov_read(m, walk_lcov.v[i]) != 0;
    for (size_t i = 0; i < walk_json.n; i++)
      bad += read_json_file(m, walk_json.v[i]);
    for (int i = 0; i < 4; i++)
      sl_free(lists[i]);
    return bad;
  }
  if (ends_with(path, ".gcda")) {
    struct strlist one = {0};
    sl_add(&one, path);
    bad = read_gcdas(m, &one, o);
    sl_free(&one);
    return bad;
  }
  /* Other files by their first bytes. */
  unsigned char head[16] = {0};
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
  if (f)
    fclose(f);
  if (!f) {
    fprintf(stderr, "ucov: %s: %s\n", path, strerror(errno));
    return 1;
  }
  uint64_t magic;
  memcpy(&magic, head, 8);
  if ((n >= 8 && magic == 0xff6c70726f667281ull) || ends_with(path, ".profdata") ||
      ends_with(path, ".profraw"))
    return read_profile(m, path, o);
  size_t i = 0;
  while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\t' || head[i] == '\r'))
    i++;
  if (i < n && head[i] == '{')
    return read_json_file(m, path);
  if (n >= 3 && (memcmp(head, "TN:", 3) == 0 || memcmp(head, "SF:", 3) == 0))
    return lcov_read(m, path) != 0;
  fprintf(stderr,
          "ucov: %s: not a .gcda, LLVM profile, lcov tracefile or ucov/gcov JSON: skipped\n", path);
  return 1;
}
