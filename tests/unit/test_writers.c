/* SPDX-License-Identifier: MIT */
/*
 * The writers layer alone (ucov_writers): the one writer interface (every
 * row of report_formats has its own option and writes a model through the
 * one signature), and a known model's exact lcov 1.x record, text totals
 * and JSON summary figures.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "base/model.h"
#include "writers/writers.h"

static void model(struct cov_model *m) {
  cov_init(m);
  struct cov_file *f = cov_file(m, "/src/w.c", NULL);
  cov_add_line(f, 3, 2);
  cov_add_line(f, 4, 0);
  cov_add_func(f, "main", 3, 2);
  cov_add_branch(f, 4, 0, 0, 1, 1);
  cov_add_branch(f, 4, 0, 1, 1, 0);
  cov_finish(m);
}

/* What writer k writes of m, as a string (malloc'd), or NULL. */
static char *written(const struct report_format *fmt, const struct report_ctx *c) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  int err = fmt->write(c, f);
  fclose(f);
  if (err) {
    free(text);
    return NULL;
  }
  return text;
}

static void test_table(const struct cov_model *m) {
  struct report_ctx c = {.m = m, .title = "t", .lcov_format = 1};
  for (int k = 0; k < REPORT_FORMATS; k++) {
    const struct report_format *fmt = &report_formats[k];
    CHECK(fmt->option && fmt->write);
    for (int j = 0; j < k; j++)
      CHECK(strcmp(fmt->option, report_formats[j].option) != 0);
    char *text = written(fmt, &c);
    CHECK(text && *text); /* every format writes something of a model with a file */
                          /* (Coveralls says the source is missing: it has none to digest here) */
    free(text);
  }
  CHECK(report_formats[FMT_LCOV].merge && report_formats[FMT_JSON].merge);
  CHECK(!strcmp(report_formats[FMT_HTML].option, "html"));
}

static void test_lcov(const struct cov_model *m) {
  struct report_ctx c = {.m = m, .lcov_format = 1};
  char *text = written(&report_formats[FMT_LCOV], &c);
  CHECK(text != NULL);
  if (!text)
    return;
  static const char *const want[] = {"SF:/src/w.c\n", "FN:3,main\n",    "FNDA:2,main\n",  "FNF:1\n",
                                     "FNH:1\n",       "BRDA:4,0,0,1\n", "BRDA:4,0,1,0\n", "BRF:2\n",
                                     "BRH:1\n",       "DA:3,2\n",       "DA:4,0\n",       "LF:2\n",
                                     "LH:1\n",        "end_of_record\n"};
  const char *at = text;
  for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    const char *hit = strstr(at, want[i]);
    CHECK(hit != NULL); /* each record, in lcov's order */
    if (hit)
      at = hit + strlen(want[i]);
  }
  free(text);
}

static void test_summary(const struct cov_model *m) {
  struct report_ctx c = {.m = m};
  char *text = written(&report_formats[FMT_JSON_SUMMARY], &c);
  CHECK(text && strstr(text, "\"line_covered\": 1") && strstr(text, "\"line_total\": 2"));
  free(text);
  text = written(&report_formats[FMT_TEXT], &c);
  CHECK(text &&
        strstr(text, "TOTAL               50.00% 1/2        100.00% 1/1            50.00% 1/2"));
  free(text);
}

/* A path longer than the name column goes on its own line and counts
 * wider than a column widen it: every row's figures start at the header's
 * columns. */
static void test_text_columns(void) {
  struct cov_model m;
  cov_init(&m);
  char long_path[128];
  snprintf(long_path, sizeof(long_path), "/src/%s/deep.c",
           "a-directory-name-long-enough-to-pass-the-sixty-column-limit-by-far");
  struct cov_file *f = cov_file(&m, long_path, NULL);
  cov_add_line(f, 1, 1);
  f = cov_file(&m, "/src/b.c", NULL);
  for (uint32_t l = 1; l <= 3; l++)
    cov_add_line(f, l, 123456789012ull);
  cov_finish(&m);
  struct report_ctx c = {.m = &m};
  char *text = written(&report_formats[FMT_TEXT], &c);
  CHECK(text != NULL);
  if (text) {
    const char *header = text, *lines_col = strstr(text, "Lines");
    size_t col = lines_col ? (size_t)(lines_col - header) + strlen("Lines") : 0;
    int rows = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
      if (strstr(l, "deep.c")) {
        CHECK(!strchr(l, '%')); /* the long name alone on its line */
        continue;
      }
      const char *p = strchr(l, '%');
      if (!strncmp(l, "File", 4) || !p)
        continue;
      p = strchr(p, '/'); /* the Lines cell: "100.00% 3/3" */
      while (p && (*++p >= '0' && *p <= '9'))
        ;
      /* the Lines cell ends where the header's "Lines" ends */
      CHECK_EQ(p ? (size_t)(p - l) : 0, col);
      rows++;
    }
    CHECK_EQ(rows, 3); /* deep.c's figures, b.c, TOTAL */
  }
  free(text);
  cov_free(&m);
}

int main(void) {
  struct cov_model m;
  model(&m);
  test_table(&m);
  test_lcov(&m);
  test_summary(&m);
  cov_free(&m);
  test_text_columns();
  return check_report("test_writers");
}
