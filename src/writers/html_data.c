/* SPDX-License-Identifier: MIT */
/*
 * The HTML page's data writer (html_data.h): integers and JSON escapes by
 * hand through a buffer, and the sources in chunks of whole lines.
 */
#include "html_data.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void hout_flush(struct hout *o) {
  fwrite(o->b, 1, o->n, o->f);
  o->n = 0;
}

void hout_put(struct hout *o, const char *s, size_t n) {
  if (n <= sizeof(o->b) - o->n) { /* the common case: it fits */
    memcpy(o->b + o->n, s, n);
    o->n += n;
    return;
  }
  while (n) {
    if (o->n == sizeof(o->b))
      hout_flush(o);
    size_t k = n < sizeof(o->b) - o->n ? n : sizeof(o->b) - o->n;
    memcpy(o->b + o->n, s, k);
    o->n += k;
    s += k;
    n -= k;
  }
}

void hout_str(struct hout *o, const char *s) {
  hout_put(o, s, strlen(s));
}

void hout_u64(struct hout *o, uint64_t v) {
  char d[20];
  size_t k = sizeof(d);
  do
    d[--k] = (char)('0' + v % 10);
  while (v /= 10);
  hout_put(o, d + k, sizeof(d) - k);
}

/* [a,b] or [a,b,c] */
void hout_tuple(struct hout *o, int comma, uint64_t a, uint64_t b, const uint64_t *c) {
  hout_str(o, comma ? ",[" : "[");
  hout_u64(o, a);
  hout_put(o, ",", 1);
  hout_u64(o, b);
  if (c) {
    hout_put(o, ",", 1);
    hout_u64(o, *c);
  }
  hout_put(o, "]", 1);
}

/* Bytes a JSON string inside <script> cannot hold as they are: '"', '\\',
 * controls, and '<', '>', '&' (so no "</script>" can end the data). */
static int needs_escape(unsigned char c) {
  return c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&';
}

/* The inside of a JSON string safe inside <script>: plain runs copied
 * whole, escapes between. */
void hout_js_bytes(struct hout *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  static unsigned char special[256];
  if (!special['"'])
    for (int c = 0; c < 256; c++)
      special[c] = (unsigned char)needs_escape((unsigned char)c);
  size_t run = 0;
  for (size_t i = 0;; i++) {
    while (i < n && !special[(unsigned char)s[i]])
      i++;
    if (i == n)
      break;
    unsigned char c = (unsigned char)s[i];
    hout_put(o, s + run, i - run);
    if (o->n > sizeof(o->b) - 6)
      hout_flush(o);
    char *e = o->b + o->n;
    e[0] = '\\';
    if (c == '"' || c == '\\' || c == '\n' || c == '\t') {
      e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
      o->n += 2;
    } else {
      memcpy(e + 1, "u00", 3);
      e[4] = hex[c >> 4];
      e[5] = hex[c & 15];
      o->n += 6;
    }
    run = i + 1;
  }
  hout_put(o, s + run, n - run);
}

void hout_js_string(struct hout *o, const char *s, size_t n) {
  hout_put(o, "\"", 1);
  hout_js_bytes(o, s, n);
  hout_put(o, "\"", 1);
}

enum { CHUNK = 1 << 16 };

void html_source_free(struct html_source *s) {
  free(s->text);
  free(s->cut);
  free(s->line);
  memset(s, 0, sizeof(*s));
}

/* The source at path (not shown if it cannot be read or is larger than
 * UCOV_MAX_TEXT: text NULL). */
void html_source_load(struct html_source *s, const char *path) {
  memset(s, 0, sizeof(*s));
  if (!(s->text = ucov_read_text(path, &s->len)))
    return;
  /* a CR before a newline is no part of the line (and a CR in a script's
   * text would be read as a newline of its own) */
  size_t lines = 1, j = 0;
  for (size_t k = 0; k < s->len; k++) {
    lines += s->text[k] == '\n';
    if (s->text[k] != '\r' || k + 1 == s->len || s->text[k + 1] != '\n')
      s->text[j++] = s->text[k];
  }
  s->len = j;
  if (!(s->cut = malloc((lines + 1) * sizeof(*s->cut))) ||
      !(s->line = malloc(lines * sizeof(*s->line)))) {
    html_source_free(s);
    return;
  }
  if (s->len && s->text[s->len - 1] == '\n')
    s->len--;
  s->n = 1;
  s->cut[0] = 0;
  s->line[0] = 1;
  s->n_chunks = 1;
  for (size_t k = 0; k < s->len; k++) {
    if (s->text[k] != '\n')
      continue;
    s->n++;
    /* a chunk ends before a line that would take it past CHUNK */
    size_t next = k + 1;
    const char *e = memchr(s->text + next, '\n', s->len - next);
    size_t end = e ? (size_t)(e - s->text) + 1 : s->len;
    if (end - s->cut[s->n_chunks - 1] > CHUNK) {
      s->cut[s->n_chunks] = next;
      s->line[s->n_chunks++] = s->n;
    }
  }
  s->cut[s->n_chunks] = s->len;
}

/* Text a script element holds as it is: no CR (the parser makes it a
 * newline), no NUL, no "<!--" or "</script" (they change or end it). */
static int raw_ok(const char *t, size_t n) {
  for (size_t k = 0; k < n; k++) {
    char c = t[k];
    if (c == '\r' || c == 0)
      return 0;
    if (c == '<' && k + 3 < n && !memcmp(t + k + 1, "!--", 3))
      return 0;
    if (c == '<' && k + 7 < n && t[k + 1] == '/' && !strncasecmp(t + k + 2, "script", 6))
      return 0;
  }
  return 1;
}

/* The source's members of a file's data: "n" (its lines, null: no source)
 * and "c" (each chunk's first line); with inline, the chunks themselves as
 * "s", a list of JSON strings (in a data file; a page holds them as scripts
 * of their own, see html_chunks_put). */
void html_source_put(struct hout *o, const struct html_source *s, int inline_chunks) {
  if (!s->text) {
    hout_str(o, ", \"n\": null");
    return;
  }
  hout_str(o, ", \"n\": ");
  hout_u64(o, s->n);
  hout_str(o, ", \"c\": [");
  for (size_t k = 0; k < s->n_chunks; k++) {
    if (k)
      hout_put(o, ",", 1);
    hout_u64(o, s->line[k]);
  }
  hout_str(o, "]");
  if (!inline_chunks)
    return;
  hout_str(o, ", \"s\": [");
  for (size_t k = 0; k < s->n_chunks; k++) {
    if (k)
      hout_put(o, ",", 1);
    hout_js_string(o, s->text + s->cut[k], s->cut[k + 1] - s->cut[k]);
  }
  hout_str(o, "]");
}

/* File i's source chunks as scripts s<i>_<k>: its text as it is
 * (text/plain), or a JSON string where it could not be. */
void html_chunks_put(struct hout *o, size_t i, const struct html_source *s) {
  for (size_t k = 0; s->text && k < s->n_chunks; k++) {
    const char *t = s->text + s->cut[k];
    size_t n = s->cut[k + 1] - s->cut[k];
    int raw = raw_ok(t, n);
    char head[96];
    snprintf(head, sizeof(head), "<script type=\"%s\" id=\"s%zu_%zu\">",
             raw ? "text/plain" : "application/json", i, k);
    hout_str(o, head);
    if (raw)
      hout_put(o, t, n);
    else
      hout_js_string(o, t, n);
    hout_str(o, "</script>\n");
  }
}
