/* SPDX-License-Identifier: MIT */
/*
 * The host tool's one error convention: a diagnostic is a severity, the
 * input it is about (a file, and a line of it, when there is one) and a
 * message, handed to the current sink. The default sink prints it on
 * stderr as the tool always has: "CMD: [FILE:[LINE:] ]MESSAGE". A caller
 * that wants them otherwise (a test, a tool that collects them) sets its
 * own sink; every sink counts what it was given.
 *
 * UCOV_ERR (util.h) is an error with no file: its text names the file
 * itself, as the messages written before the sink did.
 */
#ifndef UCOV_BASE_DIAG_H
#define UCOV_BASE_DIAG_H

enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE, DIAG_SEVERITIES };

struct diag {
  enum diag_severity severity;
  const char *file;    /* the input it is about, or NULL */
  unsigned long line;  /* its line (1-based), or 0 */
  const char *message; /* without the file, the line or a final newline */
};

struct diag_sink {
  void (*emit)(struct diag_sink *s, const struct diag *d);
  unsigned long count[DIAG_SEVERITIES]; /* diagnostics given, by severity (atomically) */
};

/* Make s the current sink of this thread (NULL: stderr's, each thread's at
 * first); returns the one it replaces. */
struct diag_sink *diag_sink_set(struct diag_sink *s);
/* The current sink. */
struct diag_sink *diag_sink(void);

/* A diagnostic about file (NULL: none) at line (0: none), printf's fmt. */
void diag_at(enum diag_severity severity, const char *file, unsigned long line, const char *fmt,
             ...) __attribute__((format(printf, 4, 5)));
/* The same, to sink rather than the current one (a sink passing one on). */
void diag_to(struct diag_sink *sink, enum diag_severity severity, const char *file,
             unsigned long line, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * What a caller adds to whatever a call it makes says: a sink, current
 * between diag_context_begin and diag_context_end, that passes each
 * diagnostic on to the sink current before, an error's message between
 * `before` and `after` (": nothing pushed") and, when it names no file,
 * about `file` (NULL: none). Quiet: nothing passed on, only counted (a call
 * whose failure the caller handles without a word). Contexts nest.
 */
struct diag_context {
  struct diag_sink sink;
  struct diag_sink *outer;
  const char *file, *before, *after;
  int quiet;       /* nothing passed on */
  int only_errors; /* warnings and notes not passed on */
};

void diag_context_begin(struct diag_context *c);
/* Ends context c (the innermost); returns the errors said within it. */
unsigned long diag_context_end(struct diag_context *c);

#endif
