/* SPDX-License-Identifier: MIT */
/*
 * Raw and indexed LLVM profiles (input_session.h): the profiles the inputs
 * held, by program, each kept until every input is read (input_finish),
 * then all of one program's merged once (llvm-profdata) and exported once
 * (llvm-cov export, JSON: regions, branches, MC/DC), by the tools of the
 * clang version that wrote them.
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

/* One program's LLVM profiles (input_llvm.c). */
struct prof_group {
  char *key; /* the program and its shared objects, a line each */
  const char **bins;
  int n_bins;
  struct strlist paths;
};

/* The LLVM family's state (input_session.h): the profiles, by program. */
struct prof_state {
  struct prof_group *v;
  size_t n, cap;
};

/*
 * The profiles the inputs held, by program: each kept until every input is
 * read (input_finish), then all of one program's merged once and exported
 * once, in JSON (regions, branches, MC/DC).
 */
int input_prof_add(struct input_session *s, const char *path, const char *const *bins, int n_bins) {
  size_t klen = 1;
  for (int b = 0; b < n_bins; b++)
    klen += strlen(bins[b]) + 1;
  char *key = malloc(klen);
  if (!key)
    return -1;
  key[0] = 0;
  for (int b = 0; b < n_bins; b++)
    strcat(strcat(key, bins[b]), "\n");
  if (!s->prof && !(s->prof = calloc(1, sizeof(*s->prof)))) {
    free(key);
    return -1;
  }
  struct prof_state *ps = s->prof;
  size_t g = 0;
  while (g < ps->n && strcmp(ps->v[g].key, key) != 0)
    g++;
  if (g == ps->n) {
    const char **copy = calloc((size_t)n_bins + 1, sizeof(*copy));
    if (!copy || UCOV_GROW(ps->v, ps->cap, ps->n, 4)) {
      free(copy);
      free(key);
      return -1;
    }
    for (int b = 0; b < n_bins; b++)
      copy[b] = strdup(bins[b]);
    ps->v[ps->n++] = (struct prof_group){key, copy, n_bins, {0}};
  } else {
    free(key);
  }
  strlist_add(&ps->v[g].paths, path);
  return 0;
}

/* The llvm tools' suffixes to try for a profile: raw version 8 is clang
 * 14-17, 9 clang 18, 10 clang 19+; an indexed profile, any. -1: unreadable. */
static int profile_suffixes(const char *path, const char *const **out) {
  static const char *v8[] = {"", "-16", "-17", "-15", "-14", NULL};
  static const char *v9[] = {"-18", "", NULL};
  static const char *v10[] = {"-19", "-20", "-21", "", NULL};
  static const char *any[] = {"", "-19", "-18", "-17", "-16", "-15", "-14", NULL};
  FILE *f = ucov_fopen_regular(path);
  uint64_t hdr[2] = {0, 0};
  if (!f || fread(hdr, 8, 2, f) != 2) {
    diag_at(DIAG_ERROR, path, 0, "%s", f ? "too short for an LLVM profile" : ucov_strerror(errno));
    if (f)
      fclose(f);
    return -1;
  }
  fclose(f);
  *out = any;
  if (hdr[0] == 0xff6c70726f667281ull) {
    uint32_t v = (uint32_t)hdr[1];
    *out = v == 8 ? v8 : v == 9 ? v9 : v == 10 ? v10 : any;
  }
  return 0;
}

/* The major version of an llvm-cov ("LLVM version 14.0.6"); 0 if unknown. */
static int llvm_cov_major(const char *cov) {
  char *argv[] = {(char *)cov, "--version", NULL}, *out = NULL;
  size_t len;
  int major = 0;
  if (run_capture(argv, NULL, &out, &len, NULL, 0) == 0 && out) {
    const char *v = strstr(out, "LLVM version ");
    major = v ? atoi(v + 13) : 0;
  }
  free(out);
  return major;
}

/* One pair of LLVM tools (llvm-profdata and llvm-cov with this suffix):
 * the profiles merged into merged, then exported against the programs and
 * read into m (argv: room for the longest command). 1 when done (read, or
 * a tool that ran and said why it failed: not tried again), 0 to try the
 * next pair, -1 to give up (a tool timed out, said). */
static int try_tools(struct cov_model *m, const struct prof_group *g, const struct strlist *ok,
                     const char *suffix, char *merged, char **argv) {
  char profdata[64], cov[64];
  snprintf(profdata, sizeof(profdata), "llvm-profdata%s", suffix);
  snprintf(cov, sizeof(cov), "llvm-cov%s", suffix);
  int argc = 0;
  argv[argc++] = profdata;
  argv[argc++] = "merge";
  argv[argc++] = "-o";
  argv[argc++] = merged;
  for (size_t k = 0; k < ok->n; k++)
    argv[argc++] = ok->v[k];
  argv[argc] = NULL;
  char *out = NULL;
  size_t len;
  int st = run_capture(argv, NULL, &out, &len, NULL, 0);
  free(out);
  if (st == RUN_TIMEOUT) {
    diag_at(DIAG_ERROR, ok->v[0], 0, "%s ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)",
            profdata, tool_timeout_ms() / 1000);
    return -1;
  }
  if (st)
    return 0;
  argc = 0;
  argv[argc++] = cov;
  argv[argc++] = "export";
  argv[argc++] = "-format=text";
  argv[argc++] = "-skip-expansions"; /* (they repeat whole functions: 50x the size) */
  argv[argc++] = "-instr-profile";
  argv[argc++] = merged;
  argv[argc++] = (char *)g->bins[0];
  for (int b = 1; b < g->n_bins; b++) {
    argv[argc++] = "-object";
    argv[argc++] = (char *)g->bins[b];
  }
  argv[argc] = NULL;
  out = NULL;
  struct path_map pmap[] = {{.from = merged, .to = "(the merged profiles)"}};
  st = run_capture(argv, NULL, &out, &len, pmap, 1);
  if (st == RUN_TIMEOUT) {
    diag_at(DIAG_ERROR, g->bins[0], 0, "%s ran longer than %d s: killed (UCOV_TOOL_TIMEOUT)", cov,
            tool_timeout_ms() / 1000);
    return -1;
  }
  int done = 0;
  if (st == 0 && out) {
    struct json_doc doc;
    size_t used;
    int major = llvm_cov_major(cov);
    if (json_parse(&doc, out, len, &used))
      diag_at(DIAG_ERROR, cov, 0, "%s", doc.error);
    else {
      struct diag_context about = {.file = cov};
      diag_context_begin(&about);
      done = llvm_export_read(m, doc.root, major) == 0;
      diag_context_end(&about);
    }
    json_free(&doc);
  }
  free(out);
  return done || st == 0;
}

/* One program's profiles: `llvm-profdata merge` of them all, then one
 * `llvm-cov export -format=text`, read into the model. */
static int read_profiles(struct cov_model *m, struct prof_group *g) {
  if (!g->n_bins) {
    for (size_t i = 0; i < g->paths.n; i++)
      diag_at(DIAG_ERROR, g->paths.v[i], 0,
              "an LLVM profile needs --binary PROG (the instrumented program)");
    return (int)g->paths.n;
  }
  int bad = 0;
  const char *const *suffixes = NULL;
  struct strlist ok = {0};
  for (size_t i = 0; i < g->paths.n; i++) {
    const char *const *s;
    if (profile_suffixes(g->paths.v[i], &s)) {
      bad++;
      continue;
    }
    if (!suffixes || (s[0][0] && !suffixes[0][0]))
      suffixes = s; /* a raw profile's version names the tools */
    strlist_add(&ok, g->paths.v[i]);
  }
  char tmpl[PATH_MAX];
  char *tmp = ok.n ? temp_dir(tmpl, sizeof(tmpl), "profile") : NULL;
  char **argv = tmp ? calloc(ok.n + 2 * (size_t)g->n_bins + 8, sizeof(*argv)) : NULL;
  if (!argv) {
    bad += (int)ok.n;
    ok.n = 0;
  }
  char merged[PATH_MAX];
  if (tmp)
    snprintf(merged, sizeof(merged), "%s/merged.profdata", tmp);
  int done = !ok.n;
  for (int i = 0; !done && suffixes[i]; i++) {
    int r = try_tools(m, g, &ok, suffixes[i], merged, argv);
    if (r < 0)
      break;
    done = r;
  }
  if (!done) {
    UCOV_ERR("%s%s: no llvm-profdata/llvm-cov pair here reads %s with %s\n", ok.v[0],
             ok.n > 1 ? " and the profiles with it" : "", ok.n > 1 ? "them" : "it", g->bins[0]);
    bad += (int)ok.n;
  }
  free(argv);
  strlist_free(&ok);
  if (tmp)
    rm_tree(tmp);
  return bad;
}

/* Every program's profiles read (m NULL: only forgotten), and the state freed. */
static int profiles_done(struct input_session *s, struct cov_model *m) {
  struct prof_state *ps = s->prof;
  int bad = 0;
  for (size_t g = 0; ps && g < ps->n; g++) {
    struct prof_group *p = &ps->v[g];
    if (m)
      bad += read_profiles(m, p);
    for (int b = 0; b < p->n_bins; b++)
      free((char *)p->bins[b]);
    free(p->bins);
    free(p->key);
    strlist_free(&p->paths);
  }
  if (ps)
    free(ps->v);
  free(ps);
  s->prof = NULL;
  return bad;
}

int input_profiles_read(struct input_session *s, struct cov_model *m) {
  return profiles_done(s, m);
}

void input_profiles_free(struct input_session *s) {
  profiles_done(s, NULL);
}
