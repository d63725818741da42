/* SPDX-License-Identifier: MIT */
/* How the HTML page's data is written: a buffered writer of integers and of
 * JSON strings a script element can hold, and each source file cut into
 * chunks of whole lines (html_data.c). */
#ifndef UCOV_WRITERS_HTML_DATA_H
#define UCOV_WRITERS_HTML_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The page's data is written through a buffer: integers and escapes by
 * hand, not printf (SQLite: a 9 MB source and 100,000 records). */
struct hout {
  FILE *f;
  size_t n;
  char b[1 << 16];
};

/*
 * A source file, cut into chunks of whole lines (about 64 KiB each) for the
 * page to hold as text of their own: a browser's parser and DOM hold a
 * script's text at several times its size while it is one long token, and
 * the viewer then reads only the chunks on screen. Its last newline is left
 * out; n lines (no source: text NULL).
 */
struct html_source {
  char *text;
  size_t len;
  uint64_t n;
  size_t n_chunks;
  size_t *cut;    /* chunk k: bytes cut[k] .. cut[k + 1] */
  uint64_t *line; /* chunk k's first line */
};

void hout_flush(struct hout *o);
void hout_put(struct hout *o, const char *s, size_t n);
void hout_str(struct hout *o, const char *s);
void hout_u64(struct hout *o, uint64_t v);
/* [a,b] or [a,b,c] (c non-NULL), after a comma if comma */
void hout_tuple(struct hout *o, int comma, uint64_t a, uint64_t b, const uint64_t *c);
/* s as a JSON string (quoted, or its inside only) that cannot end a script */
void hout_js_string(struct hout *o, const char *s, size_t n);
void hout_js_bytes(struct hout *o, const char *s, size_t n);

/* The source at path (text NULL: it cannot be read, or is over 256 MiB). */
void html_source_load(struct html_source *s, const char *path);
void html_source_free(struct html_source *s);
/* A file's data members for its source: "n" (lines; null: none), "c" (each
 * chunk's first line), with inline_chunks "s" too (the chunks as a list of
 * JSON strings, for a data file). */
void html_source_put(struct hout *o, const struct html_source *s, int inline_chunks);
/* File i's chunks as scripts s<i>_<k> of the page: text/plain where a
 * script can hold the text as it is, else a JSON string. */
void html_chunks_put(struct hout *o, size_t i, const struct html_source *s);

#endif
