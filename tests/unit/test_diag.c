/* SPDX-License-Identifier: MIT */
/*
 * The diagnostics sink: a reader's problems reach the current sink as
 * (severity, file, line, message), counted; the default sink prints them
 * as "CMD: FILE:LINE: MESSAGE"; UCOV_ERR goes through the same sink.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "base/diag.h"
#include "readers/readers.h"
#include "writers/writers.h"
#include "base/model.h"
#include "base/util.h"

struct seen {
  struct diag_sink sink;
  int n;
  enum diag_severity sev[8];
  char file[8][256], msg[8][256];
  unsigned long line[8];
};

static void keep(struct diag_sink *s, const struct diag *d) {
  struct seen *k = (struct seen *)s;
  if (k->n == 8)
    return;
  k->sev[k->n] = d->severity;
  snprintf(k->file[k->n], sizeof(k->file[0]), "%s", d->file ? d->file : "");
  snprintf(k->msg[k->n], sizeof(k->msg[0]), "%s", d->message);
  k->line[k->n++] = d->line;
}

static void *other_thread(void *arg) {
  (void)arg;
  /* each thread its own current sink: the default, whatever main set */
  return diag_sink();
}

/* A caller's words around what its calls say (diag_context). */
static void contexts(void) {
  struct seen k = {.sink = {.emit = keep}};
  diag_sink_set(&k.sink);
  struct diag_context push = {.after = ": nothing pushed"};
  diag_context_begin(&push);
  struct diag_context about = {.file = "in.json", .before = "neither: "};
  diag_context_begin(&about);
  UCOV_ERR("bad %d\n", 1);                          /* both contexts' words, inner first */
  diag_at(DIAG_ERROR, "own.c", 3, "its own file");  /* a file of its own is kept */
  diag_at(DIAG_WARNING, NULL, 0, "only a warning"); /* no words: it is no failure */
  CHECK(diag_context_end(&about) == 2);
  struct diag_context quiet = {.quiet = 1};
  diag_context_begin(&quiet);
  UCOV_ERR("unheard");
  CHECK(diag_context_end(&quiet) == 1);
  CHECK(diag_context_end(&push) == 2);
  CHECK(diag_sink() == &k.sink);
  CHECK(k.n == 3);
  CHECK(!strcmp(k.file[0], "in.json") && !strcmp(k.msg[0], "neither: bad 1: nothing pushed"));
  CHECK(!strcmp(k.file[1], "own.c") && k.line[1] == 3 &&
        !strcmp(k.msg[1], "neither: its own file: nothing pushed"));
  CHECK(k.sev[2] == DIAG_WARNING && !strcmp(k.file[2], "in.json") &&
        !strcmp(k.msg[2], "only a warning"));
  CHECK(k.sink.count[DIAG_ERROR] == 2 && k.sink.count[DIAG_WARNING] == 1);
  pthread_t t;
  void *theirs = NULL;
  CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0 && pthread_join(t, &theirs) == 0);
  CHECK(theirs != NULL && theirs != &k.sink);
  diag_sink_set(NULL);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  fclose(f);
}

int main(void) {
  char dir[] = "/tmp/ucov-diag-XXXXXX", path[64], out[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof(path), "%s/t.info", dir);
  /* line 3 is no record; the file ends inside a record */
  write_file(path, "TN:\nSF:/a.c\nBOGUS:1\nDA:1,2\n");
  struct seen k = {.sink = {.emit = keep}};
  CHECK(diag_sink_set(&k.sink) != NULL);
  CHECK(diag_sink() == &k.sink);
  struct cov_model m;
  cov_init(&m);
  CHECK(lcov_read(&m, path) == 2);
  cov_free(&m);
  CHECK(k.n == 2);
  CHECK(k.sev[0] == DIAG_ERROR && !strcmp(k.file[0], path) && k.line[0] == 3);
  CHECK(!strcmp(k.msg[0], "not an lcov record: BOGUS:1"));
  CHECK(k.sev[1] == DIAG_WARNING && !strcmp(k.file[1], path) && k.line[1] == 0);
  CHECK(!strcmp(k.msg[1], "the last record has no end_of_record (read anyway)"));
  CHECK(k.sink.count[DIAG_ERROR] == 1 && k.sink.count[DIAG_WARNING] == 1);

  /* UCOV_ERR: an error with no file, its final newline not in the message */
  UCOV_ERR("%s: %d\n", "x", 7);
  CHECK(k.n == 3 && k.sev[2] == DIAG_ERROR && !k.file[2][0] && !strcmp(k.msg[2], "x: 7"));
  CHECK(k.sink.count[DIAG_ERROR] == 2);

  /* The default sink: stderr, as the tool always printed. */
  CHECK(diag_sink_set(NULL) == &k.sink);
  snprintf(out, sizeof(out), "%s/err.txt", dir);
  fflush(stderr);
  int saved = dup(2);
  FILE *e = freopen(out, "w", stderr);
  CHECK(e != NULL);
  ucov_cmd = "ucov test";
  diag_at(DIAG_ERROR, "f.info", 12, "bad %s", "thing");
  diag_at(DIAG_NOTE, "f.info", 0, "read");
  UCOV_ERR("plain\n");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  size_t len;
  char *text = ucov_read_text(out, &len);
  CHECK(text && !strcmp(text, "ucov test: f.info:12: bad thing\nucov test: f.info: read\n"
                              "ucov test: plain\n"));
  free(text);
  unlink(out);
  unlink(path);
  rmdir(dir);
  contexts();
  return check_report("test_diag");
}
