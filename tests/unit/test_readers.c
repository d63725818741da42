/* SPDX-License-Identifier: MIT */
/*
 * The readers layer alone (ucov_readers): an lcov tracefile read record by
 * record (its test names, only one test's records, a malformed record said
 * about its file and line and the rest kept), and the input kinds' table
 * through input_read: a tracefile, a directory holding only reports (which
 * a walk leaves out), a file no kind reads.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "base/diag.h"
#include "base/model.h"
#include "readers/inputs.h"
#include "readers/readers.h"

static char dir[] = "/tmp/ucov-test-readers.XXXXXX";

static char *put(const char *name, const char *text) {
  char *path = NULL;
  if (asprintf(&path, "%s/%s", dir, name) < 0)
    return NULL;
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static const struct cov_file *only_file(const struct cov_model *m) {
  return m->n_files == 1 ? m->files[0] : NULL;
}

/* A sink that counts and keeps the last error's file and line. */
struct keep {
  struct diag_sink sink;
  char file[512];
  unsigned long line;
};
static void keep_emit(struct diag_sink *s, const struct diag *d) {
  struct keep *k = (struct keep *)s;
  snprintf(k->file, sizeof(k->file), "%s", d->file ? d->file : "");
  k->line = d->line;
}

static void test_lcov(void) {
  char *p = put("a.info", "TN:one\nSF:/src/a.c\nFN:3,main\nFNDA:2,main\nDA:3,2\nDA:4,0\n"
                          "BRDA:4,0,0,1\nBRDA:4,0,1,-\nend_of_record\n"
                          "TN:two\nSF:/src/a.c\nDA:4,5\nend_of_record\n");
  struct cov_model m;
  cov_init(&m);
  CHECK_EQ(lcov_read(&m, p), 0);
  cov_finish(&m);
  const struct cov_file *f = only_file(&m);
  CHECK(f && strcmp(f->path, "/src/a.c") == 0);
  CHECK(f && f->n_lines == 2 && f->lines[0].count == 2 && f->lines[1].count == 5);
  CHECK(f && f->n_funcs == 1 && f->funcs[0].count == 2);
  CHECK(f && f->n_branches == 2 && f->branches[0].taken == 1 && !f->branches[1].executed);
  cov_free(&m);
  char **names;
  size_t n;
  CHECK_EQ(lcov_tests(p, &names, &n), 0);
  CHECK(n == 2 && !strcmp(names[0], "one") && !strcmp(names[1], "two"));
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  cov_init(&m);
  CHECK_EQ(lcov_read_test(&m, p, "two"), 0);
  cov_finish(&m);
  f = only_file(&m);
  CHECK(f && f->n_lines == 1 && f->lines[0].line == 4 && f->lines[0].count == 5);
  cov_free(&m);
  free(p);
}

static void test_lcov_bad(void) {
  char *p = put("bad.info", "SF:/src/b.c\nDA:1,1\nDA:x,1\nDA:2,3\nend_of_record\n");
  struct keep k = {{keep_emit, {0}}, "", 0};
  struct diag_sink *old = diag_sink_set(&k.sink);
  struct cov_model m;
  cov_init(&m);
  CHECK_EQ(lcov_read(&m, p), 1); /* one record not read, the others kept */
  diag_sink_set(old);
  cov_finish(&m);
  const struct cov_file *f = only_file(&m);
  CHECK(f && f->n_lines == 2);
  CHECK_EQ(k.sink.count[DIAG_ERROR], 1);
  CHECK(strcmp(k.file, p) == 0 && k.line == 3); /* file and line are fields */
  cov_free(&m);
  free(p);
}

static void test_inputs(void) {
  struct input_opts o = {0};
  struct input_session *s = input_session_new(&o);
  CHECK(s != NULL);
  if (!s)
    return;
  struct cov_model m;
  cov_init(&m);
  char *info = put("c.info", "SF:/src/c.c\nDA:7,1\nend_of_record\n");
  CHECK_EQ(input_read(s, &m, info), 0);
  CHECK_EQ(input_read(s, &m, info), 0); /* the same file twice: read once */
  /* a directory holding only a report: walked, the report left out, and
   * that said (nothing there is raw data) */
  struct keep q = {{keep_emit, {0}}, "", 0};
  struct diag_sink *was = diag_sink_set(&q.sink);
  CHECK_EQ(input_read(s, &m, dir), 1);
  diag_sink_set(was);
  CHECK_EQ(q.sink.count[DIAG_ERROR], 1);
  CHECK_EQ(input_finish(s, &m), 0);
  cov_finish(&m);
  const struct cov_file *f = only_file(&m);
  CHECK(f && f->n_lines == 1 && f->lines[0].count == 1);
  input_session_free(s);
  cov_free(&m);
  /* a file no kind reads */
  char *junk = put("junk.bin", "\x01\x02\x03 not coverage\n");
  struct keep k = {{keep_emit, {0}}, "", 0};
  struct diag_sink *old = diag_sink_set(&k.sink);
  s = input_session_new(&o);
  cov_init(&m);
  CHECK(s && input_read(s, &m, junk) > 0);
  diag_sink_set(old);
  CHECK(k.sink.count[DIAG_ERROR] >= 1);
  input_session_free(s);
  cov_free(&m);
  free(info);
  free(junk);
}

int main(void) {
  if (!mkdtemp(dir))
    return 2;
  test_lcov();
  test_lcov_bad();
  test_inputs();
  char cmd[sizeof(dir) + 16];
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  if (system(cmd) != 0)
    return 2;
  return check_report("test_readers");
}
