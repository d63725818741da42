/* SPDX-License-Identifier: MIT */
/*
 * The report's pieces without tools around them: the JSON reader (escapes,
 * numbers, every truncation of a document refused without reading past it,
 * nesting limited), the model (sums saturate, merging in any order gives the
 * same canonical result), ucov JSON written, read back and written again
 * byte for byte, and differential categories.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "diffcov/diff.h"
#include "readers/readers.h"
#include "writers/writers.h"
#include "base/json.h"
#include "base/model.h"

static void test_json(void) {
  static const char doc[] = "{\"a\": [1, 2.5, -3, 18446744073709551615, true, false, null],"
                            " \"s\": \"x\\n\\u00e9\\ud83d\\ude00\\\"\", \"o\": {\"k\": {}}}";
  struct json_doc d;
  size_t used;
  CHECK_EQ(json_parse(&d, doc, strlen(doc), &used), 0);
  CHECK_EQ(used, strlen(doc));
  const struct json *a = json_get(d.root, "a");
  CHECK(a && a->type == JSON_ARRAY && a->len == 7);
  CHECK_EQ(json_u64(a->first), 1);
  CHECK(a->first->next->type == JSON_NUMBER && !a->first->next->is_u64);
  CHECK(!a->first->next->next->is_u64); /* negative */
  CHECK_EQ(json_u64(a->first->next->next->next), UINT64_MAX);
  CHECK(strcmp(json_str(json_get(d.root, "s")), "x\n\xc3\xa9\xf0\x9f\x98\x80\"") == 0);
  CHECK(json_get(json_get(d.root, "o"), "k") != NULL);
  CHECK(json_get(d.root, "missing") == NULL);
  json_free(&d);
  /* Every prefix is refused (the parser reads only what it is given: ASan checks). */
  int refused = 0;
  for (size_t n = 0; n < strlen(doc); n++) {
    char *cut = malloc(n ? n : 1);
    memcpy(cut, doc, n);
    refused += json_parse(&d, cut, n, NULL) != 0 && d.error[0];
    free(cut);
  }
  CHECK_EQ(refused, strlen(doc));
  /* Nesting has a limit; garbage is named with its offset. */
  char deep[1002];
  memset(deep, '[', 1000);
  deep[1000] = 0;
  CHECK(json_parse(&d, deep, 1000, NULL) != 0 && strstr(d.error, "nested too deep"));
  CHECK(json_parse(&d, "{\"a\" 1}", 7, NULL) != 0 && strstr(d.error, "at byte 5"));
  /* A stream of documents, one after another. */
  static const char two[] = "{\"x\": 1}\n{\"x\": 2}\n";
  CHECK_EQ(json_parse(&d, two, strlen(two), &used), 0);
  CHECK_EQ(json_u64(json_get(d.root, "x")), 1);
  json_free(&d);
  CHECK_EQ(json_parse(&d, two + used, strlen(two) - used, NULL), 0);
  CHECK_EQ(json_u64(json_get(d.root, "x")), 2);
  json_free(&d);
}

/* A small model from a seed: three files, overlapping lines and functions. */
static void fill(struct cov_model *m, unsigned seed) {
  static const char *paths[] = {"/p/b.c", "/p/a.c", "/p/sub/../c.h"};
  for (int f = 0; f < 3; f++) {
    struct cov_file *c = cov_file(m, paths[(f + seed) % 3], NULL);
    for (uint32_t l = 1; l < 8; l++)
      cov_add_line(c, l * (f + 1), (seed * 7 + l) % 5);
    cov_add_func(c, "fn", 3, seed);
    cov_add_func(c, seed % 2 ? "odd" : "even", 2 + seed, 1);
    cov_add_branch(c, 4, 0, seed % 2, seed % 3 != 0, seed);
  }
}

static char *json_of(struct cov_model *m) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ucov_json_write(m, f, NULL);
  fclose(f);
  return buf;
}

static void test_model(void) {
  /* ((1 + 2) + 3) and (3 + (2 + 1)) and 1 + 2 + 3 at once: the same bytes. */
  struct cov_model a, b, c, t;
  cov_init(&a);
  cov_init(&b);
  cov_init(&c);
  fill(&a, 1);
  fill(&a, 2);
  cov_finish(&a);
  fill(&a, 3);
  cov_finish(&a);
  cov_init(&t);
  fill(&t, 2);
  fill(&t, 1);
  cov_finish(&t);
  fill(&b, 3);
  cov_merge(&b, &t);
  cov_finish(&b);
  fill(&c, 1);
  fill(&c, 2);
  fill(&c, 3);
  cov_finish(&c);
  char *ja = json_of(&a), *jb = json_of(&b), *jc = json_of(&c);
  CHECK(strcmp(ja, jb) == 0);
  CHECK(strcmp(ja, jc) == 0);
  /* Canonical: files by path, normalized ("/p/sub/../c.h" is "/p/c.h"). */
  CHECK_EQ(a.n_files, 3);
  CHECK(strcmp(a.files[0]->path, "/p/a.c") == 0 && strcmp(a.files[2]->path, "/p/c.h") == 0);
  /* Written, read, written: the same bytes. */
  struct json_doc d;
  CHECK_EQ(json_parse(&d, ja, strlen(ja), NULL), 0);
  struct cov_model r;
  cov_init(&r);
  CHECK_EQ(ucov_json_read(&r, d.root), 0);
  cov_finish(&r);
  char *jr = json_of(&r);
  CHECK(strcmp(ja, jr) == 0);
  json_free(&d);
  /* Counts saturate instead of wrapping. */
  struct cov_model s;
  cov_init(&s);
  struct cov_file *f = cov_file(&s, "/x.c", NULL);
  cov_add_line(f, 1, UINT64_MAX - 1);
  cov_add_line(f, 1, 5);
  cov_finish(&s);
  CHECK_EQ(s.files[0]->lines[0].count, UINT64_MAX);
  /* Path rules: a prefix map, then globs. */
  struct cov_model g;
  cov_init(&g);
  CHECK_EQ(cov_add_prefix_map(&g, "/build=/src"), 0);
  CHECK(cov_add_prefix_map(&g, "nothing") != 0);
  cov_add_exclude(&g, "*.h");
  CHECK(cov_file(&g, "/build/x/../a.c", NULL) != NULL);
  CHECK(strcmp(g.files[0]->path, "/src/a.c") == 0);
  CHECK(cov_file(&g, "/build/a.h", NULL) == NULL);
  CHECK(cov_file(&g, "rel.c", "/build/d") != NULL && strcmp(g.files[1]->path, "/src/d/rel.c") == 0);
  /* Differential categories of a line against a baseline. */
  struct cov_model base, cur;
  cov_init(&base);
  cov_init(&cur);
  struct cov_file *bf = cov_file(&base, "/d.c", NULL), *cf = cov_file(&cur, "/d.c", NULL);
  cov_add_line(bf, 1, 1); /* hit, hit: CBC */
  cov_add_line(cf, 1, 2);
  cov_add_line(bf, 2, 1); /* hit, missed: LBC */
  cov_add_line(cf, 2, 0);
  cov_add_line(bf, 3, 0); /* missed, hit: GBC */
  cov_add_line(cf, 3, 4);
  cov_add_line(bf, 4, 0); /* missed, missed: UBC */
  cov_add_line(cf, 4, 0);
  cov_add_line(cf, 5, 1);                               /* new, hit: GNC */
  cov_add_line(cf, 6, 0);                               /* new, missed: UNC */
  cov_add_line(bf, 7, 3);                               /* gone, was hit: DCB */
  cov_add_line(cov_file(&base, "/gone.c", NULL), 1, 0); /* a file gone: DUB */
  cov_finish(&base);
  cov_finish(&cur);
  struct cov_diff diff;
  CHECK_EQ(cov_diff_compute(&diff, &cur, &base, NULL, NULL), 0);
  static const int want[COV_DIFF_CATEGORIES] = {0, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int k = 1; k < COV_DIFF_CATEGORIES; k++)
    CHECK_EQ(diff.totals[k], want[k]);
  CHECK_EQ(diff.files[0].lines[1].category, COV_LBC);
  cov_diff_free(&diff);
  free(ja);
  free(jb);
  free(jc);
  free(jr);
  cov_free(&a);
  cov_free(&b);
  cov_free(&c);
  cov_free(&t);
  cov_free(&r);
  cov_free(&s);
  cov_free(&g);
  cov_free(&base);
  cov_free(&cur);
}

/* Write len bytes to path. */
static void put(const char *path, const char *s, size_t len) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    CHECK_EQ(fwrite(s, 1, len, f), len);
    fclose(f);
  }
}

/*
 * A baseline's text rebuilt from the current file and a diff: for random
 * pairs of texts (lines from a small alphabet, so that hunks interleave),
 * GNU diff's unified output with no context, three lines and ten, undone
 * by udiff_old_text, gives the old text byte for byte.
 */
static void test_old_text(void) {
  char dir[] = "/tmp/ucov-oldtext-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char cur[256], old[256], dif[256], cmd[1024];
  snprintf(cur, sizeof(cur), "%s/f.c", dir);
  snprintf(old, sizeof(old), "%s/old.c", dir);
  snprintf(dif, sizeof(dif), "%s/d.diff", dir);
  srand(7);
  static const char *const words[] = {"{", "}", "x++;", "return 0;", "", "  if (a)", "// c"};
  for (int round = 0; round < 60; round++) {
    char a[4096], b[4096];
    size_t na = 0, nb = 0;
    int la = rand() % 40, lb = round % 10 ? la + rand() % 7 - 3 : 0; /* (some emptied) */
    for (int i = 0; i < la; i++)
      na += (size_t)snprintf(a + na, sizeof(a) - na, "%s\n", words[rand() % 7]);
    memcpy(b, a, na + 1), nb = na;
    for (int e = rand() % 6; e > 0 && lb; e--) { /* edits: a line deleted, one added */
      size_t at = nb ? (size_t)rand() % nb : 0;
      while (at && b[at - 1] != '\n')
        at--;
      if (rand() % 2 && at < nb) { /* delete the line at `at` */
        size_t end = at;
        while (end < nb && b[end] != '\n')
          end++;
        end += end < nb;
        memmove(b + at, b + end, nb - end + 1);
        nb -= end - at;
        continue;
      }
      char ins[64];
      int k = snprintf(ins, sizeof(ins), "%s\n", words[rand() % 7]);
      memmove(b + at + k, b + at, nb - at + 1);
      memcpy(b + at, ins, (size_t)k), nb += (size_t)k;
    }
    if (!lb)
      nb = 0, b[0] = 0;
    put(old, a, na);
    put(cur, b, nb);
    const char *const u[] = {"-U0", "-U3", "-U10"};
    for (int k = 0; k < 3; k++) {
      snprintf(cmd, sizeof(cmd), "diff %s --label a/f.c --label b/f.c '%s' '%s' >'%s'", u[k], old,
               cur, dif);
      CHECK(system(cmd) != -1);
      struct udiff *d = NULL;
      CHECK_EQ(udiff_read(dif, &d), 0);
      size_t len = 0;
      char *t = d ? udiff_old_text(d, cur, dir, &len) : NULL;
      if (na == nb && !memcmp(a, b, na)) {
        CHECK(t == NULL); /* no change: not in the diff */
      } else {
        CHECK(t != NULL && len == na && !memcmp(t, a, na));
      }
      free(t);
      udiff_free(d);
    }
  }
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  CHECK_EQ(system(cmd), 0);
}

/* lcov 2's blocks: a unit's instances add up by index; across units a block
 * joins one of its size, else is a new block; exception marks must agree. */
static void test_unit_blocks(void) {
  struct cov_model m;
  cov_init(&m);
  m.unit_blocks = 1;
  cov_begin_unit(&m); /* unit 1: two instances on line 5, 2 branches */
  struct cov_file *f = cov_file(&m, "/p/a.c", NULL);
  CHECK(f != NULL);
  cov_add_branch_e(f, 5, 0, 0, 1, 1, 0);
  cov_add_branch_e(f, 5, 0, 1, 1, 0, 0);
  cov_add_branch_e(f, 5, 0, 0, 1, 2, 0);
  cov_begin_unit(&m); /* unit 2: 4 branches there (exception edges) */
  f = cov_file(&m, "/p/a.c", NULL);
  for (uint32_t k = 0; k < 4; k++)
    cov_add_branch_e(f, 5, 0, k, 1, k, k & 1);
  cov_begin_unit(&m); /* unit 3: 2 branches, 1 an exception where unit 1's is none */
  f = cov_file(&m, "/p/a.c", NULL);
  cov_add_branch_e(f, 5, 0, 0, 0, 0, 0);
  cov_add_branch_e(f, 5, 0, 1, 1, 7, 1);
  cov_finish(&m);
  f = m.files[0];
  CHECK_EQ(f->n_branches, 6);
  /* block 0: units 1 and 3 (3+0, 0+7, no exception); block 1: unit 2 */
  CHECK(f->branches[0].block == 0 && f->branches[0].taken == 3 && f->branches[0].executed);
  CHECK(f->branches[1].block == 0 && f->branches[1].taken == 7 && !f->branches[1].exception);
  CHECK(f->branches[2].block == 1 && f->branches[5].block == 1 && f->branches[5].branch == 3);
  CHECK(f->branches[3].exception && f->branches[5].exception && !f->branches[4].exception);
  for (size_t k = 0; k < f->n_branches; k++)
    CHECK_EQ(f->branches[k].unit, 0);
  cov_free(&m);
  /* without unit_blocks: by index, one block of 4 */
  cov_init(&m);
  cov_begin_unit(&m);
  f = cov_file(&m, "/p/a.c", NULL);
  cov_add_branch_e(f, 5, 0, 0, 1, 1, 0);
  for (uint32_t k = 0; k < 4; k++)
    cov_add_branch_e(f, 5, 0, k, 1, k, 0);
  cov_finish(&m);
  CHECK_EQ(m.files[0]->n_branches, 4);
  CHECK_EQ(m.files[0]->branches[0].taken, 1);
  cov_free(&m);
}

int main(void) {
  test_json();
  test_model();
  test_unit_blocks();
  test_old_text();
  return check_report("test_report_model");
}
