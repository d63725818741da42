/* SPDX-License-Identifier: MIT */
/* The host tool's diagnostics sink (diag.h). */
#define _GNU_SOURCE
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void to_stderr(struct diag_sink *s, const struct diag *d) {
  (void)s;
  fprintf(stderr, "%s: ", ucov_cmd);
  if (d->file && d->line)
    fprintf(stderr, "%s:%lu: ", d->file, d->line);
  else if (d->file)
    fprintf(stderr, "%s: ", d->file);
  fprintf(stderr, "%s\n", d->message);
}

static struct diag_sink stderr_sink = {.emit = to_stderr};
/* (per thread, as errno: ucov mount's watcher thread says things beside
 * the FUSE loop, and a context set by one is not the other's) */
static _Thread_local struct diag_sink *current = &stderr_sink;

struct diag_sink *diag_sink_set(struct diag_sink *s) {
  struct diag_sink *was = current;
  current = s ? s : &stderr_sink;
  return was;
}

struct diag_sink *diag_sink(void) {
  return current;
}

static void give(struct diag_sink *sink, enum diag_severity severity, const char *file,
                 unsigned long line, const char *fmt, va_list ap) {
  char small[1024], *text = small;
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  if (n >= (int)sizeof(small) && (text = malloc((size_t)n + 1)))
    vsnprintf(text, (size_t)n + 1, fmt, again);
  va_end(again);
  if (!text)
    text = small; /* (no memory: the message cut short, not lost) */
  size_t len = strlen(text);
  if (len && text[len - 1] == '\n')
    text[len - 1] = 0; /* (UCOV_ERR's texts end with one) */
  struct diag d = {.severity = severity, .file = file, .line = line, .message = text};
  /* (atomic: ucov mount's watcher thread says things beside the FUSE loop) */
  __atomic_fetch_add(&sink->count[severity < DIAG_SEVERITIES ? severity : DIAG_ERROR], 1,
                     __ATOMIC_RELAXED);
  sink->emit(sink, &d);
  if (text != small)
    free(text);
}

void diag_to(struct diag_sink *sink, enum diag_severity severity, const char *file,
             unsigned long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  give(sink, severity, file, line, fmt, ap);
  va_end(ap);
}

static void in_context(struct diag_sink *s, const struct diag *d) {
  struct diag_context *c = (struct diag_context *)s;
  if (c->quiet || (c->only_errors && d->severity != DIAG_ERROR))
    return;
  /* (the words added are about a failure: a warning or a note passes as it is) */
  int err = d->severity == DIAG_ERROR;
  const char *before = err && c->before ? c->before : "", *after = err && c->after ? c->after : "";
  diag_to(c->outer, d->severity, d->file ? d->file : c->file, d->file ? d->line : 0, "%s%s%s",
          before, d->message, after);
}

void diag_context_begin(struct diag_context *c) {
  memset(&c->sink, 0, sizeof(c->sink));
  c->sink.emit = in_context;
  c->outer = diag_sink_set(&c->sink);
}

unsigned long diag_context_end(struct diag_context *c) {
  diag_sink_set(c->outer);
  return c->sink.count[DIAG_ERROR];
}

void diag_at(enum diag_severity severity, const char *file, unsigned long line, const char *fmt,
             ...) {
  va_list ap;
  va_start(ap, fmt);
  give(current, severity, file, line, fmt, ap);
  va_end(ap);
}

void ucov_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  give(current, DIAG_ERROR, NULL, 0, fmt, ap);
  va_end(ap);
}
