/* SPDX-License-Identifier: MIT */
/* A unified diff read for differential coverage: files, hunks, changed lines,
 * moved blocks matched (diff_int.h). */
#define _GNU_SOURCE
#include "diff.h"
#include "diff_int.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the unified diff ---- */

static void match_moves(struct udiff *u);

void udiff_free(struct udiff *u) {
  if (!u)
    return;
  for (size_t i = 0; i < u->n_files; i++) {
    free(u->files[i].old_path);
    free(u->files[i].new_path);
    free(u->files[i].hunks);
  }
  for (size_t i = 0; i < u->n_minus; i++)
    free(u->minus[i].text), free(u->minus[i].raw);
  for (size_t i = 0; i < u->n_plus; i++)
    free(u->plus[i].text);
  free(u->files);
  free(u->minus);
  free(u->plus);
  free(u);
}

/* A path of a "---", "+++", "rename" or "diff --git" line: git's quoting
 * undone (\" \\ \t \n and octal), a date after a tab dropped, "a/" or "b/"
 * taken off; NULL for /dev/null. *bad on a malformed quote or no memory. */
static char *diff_path(const char *s, int strip, int *bad) {
  char *out = malloc(strlen(s) + 1);
  if (!out) {
    *bad = 1;
    return NULL;
  }
  size_t n = 0;
  if (*s == '"') {
    for (s++; *s && *s != '"'; s++) {
      if (*s != '\\') {
        out[n++] = *s;
        continue;
      }
      s++;
      if (*s >= '0' && *s <= '7' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
        out[n++] = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
        s += 2;
      } else if (*s == 't' || *s == 'n' || *s == '"' || *s == '\\') {
        out[n++] = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
      } else {
        *bad = 1;
        break;
      }
    }
    if (*s != '"')
      *bad = 1;
  } else {
    for (; *s && *s != '\t' && *s != '\n' && *s != '\r'; s++)
      out[n++] = *s;
    while (n && out[n - 1] == ' ')
      n--;
  }
  out[n] = 0;
  if (*bad || !strcmp(out, "/dev/null") || !n) {
    free(out);
    return NULL;
  }
  if (strip && (out[0] == 'a' || out[0] == 'b') && out[1] == '/')
    memmove(out, out + 2, n - 1);
  return out;
}

static uint64_t text_hash(const char *s) {
  return ucov_hash_str(s);
}

static int add_dline(struct dline **v, size_t *n, size_t *cap, uint32_t line, uint32_t file,
                     const char *text, size_t len, int keep_raw) {
  char *raw = keep_raw ? strndup(text, len) : NULL;
  if (keep_raw && !raw)
    return -1;
  while (len && isspace((unsigned char)*text))
    text++, len--;
  while (len && isspace((unsigned char)text[len - 1]))
    len--;
  char *t = UCOV_GROW(*v, *cap, *n, 64) ? NULL : strndup(text, len);
  if (!t) {
    free(raw);
    return -1;
  }
  (*v)[(*n)++] = (struct dline){line, file, t, raw, text_hash(t), -1};
  return 0;
}

static int parse_range(const char **p, uint32_t *start, uint32_t *n) {
  char *end;
  errno = 0;
  unsigned long long a = strtoull(*p, &end, 10), b = 1;
  if (end == *p || errno || a > UINT32_MAX)
    return -1;
  if (*end == ',') {
    const char *q = end + 1;
    b = strtoull(q, &end, 10);
    if (end == q || errno || b > UINT32_MAX)
      return -1;
  }
  *start = (uint32_t)a;
  *n = (uint32_t)b;
  *p = end;
  return 0;
}

/* What reading a diff keeps from line to line. */
struct ud_read {
  const char *path;
  struct udiff *u;
  struct ufile *cur;
  uint32_t left_old, left_new, at_old, at_new; /* of the hunk being read */
  struct hunk *run;                            /* the run of changed lines being read, or NULL */
  struct hunk last; /* the file's last hunk header's ranges (for their order) */
  int git;
};

/* Said about the diff at line ln (0: the whole file): -1. */
#define BAD_AT(ln, ...) (diag_at(DIAG_ERROR, r->path, ln, __VA_ARGS__), -1)
#define NO_MEMORY() (UCOV_ERR("out of memory"), -1)

/* A line of a hunk's body (line[0] its kind). 0 or -1 (said). */
static int ud_body(struct ud_read *r, const char *line, size_t n, size_t lineno) {
  char c = line[0];
  if (c == '\\')
    return 0; /* "\ No newline at end of file" */
  struct udiff *u = r->u;
  if ((c == '-' && r->left_old) || (c == '+' && r->left_new)) {
    if (!r->run) {
      if (UCOV_GROW(r->cur->hunks, r->cur->cap_hunks, r->cur->n_hunks, 8))
        return NO_MEMORY();
      r->run = &r->cur->hunks[r->cur->n_hunks++];
      *r->run = (struct hunk){r->at_old, 0, r->at_new, 0};
    }
    if (c == '-')
      r->run->old_n++;
    else
      r->run->new_n++;
  }
  uint32_t file = (uint32_t)(r->cur - u->files);
  if ((c == ' ' || c == 0) && r->left_old && r->left_new) {
    r->left_old--, r->left_new--, r->at_old++, r->at_new++;
    r->run = NULL; /* context: the run of changes ends */
  } else if (c == '-' && r->left_old) {
    if (add_dline(&u->minus, &u->n_minus, &u->cap_minus, r->at_old++, file, line + 1, n - 1, 1))
      return NO_MEMORY();
    r->left_old--;
  } else if (c == '+' && r->left_new) {
    if (add_dline(&u->plus, &u->n_plus, &u->cap_plus, r->at_new++, file, line + 1, n - 1, 0))
      return NO_MEMORY();
    r->left_new--;
  } else {
    return BAD_AT(lineno, "the hunk ends early (%u old and %u new lines still to come)",
                  r->left_old, r->left_new);
  }
  return 0;
}

/* A new file of the diff. 0 or -1. */
static int ud_file(struct ud_read *r) {
  if (UCOV_GROW(r->u->files, r->u->cap_files, r->u->n_files, 16))
    return NO_MEMORY();
  r->cur = &r->u->files[r->u->n_files++];
  memset(r->cur, 0, sizeof(*r->cur));
  r->last = (struct hunk){0};
  return 0;
}

/* A hunk header "@@ -a,b +c,d @@". 0 or -1 (said). */
static int ud_hunk(struct ud_read *r, const char *line, size_t lineno) {
  const char *p = line + 4;
  struct hunk h;
  if (!r->cur || parse_range(&p, &h.old_start, &h.old_n) || strncmp(p, " +", 2) ||
      (p += 2, parse_range(&p, &h.new_start, &h.new_n)) || strncmp(p, " @@", 3))
    return BAD_AT(lineno, "not a hunk header: %.60s", line);
  /* An empty range starts after the line its number names. */
  h.old_start += !h.old_n;
  h.new_start += !h.new_n;
  if (h.old_start < r->last.old_start + r->last.old_n ||
      h.new_start < r->last.new_start + r->last.new_n)
    return BAD_AT(lineno, "hunks out of order");
  r->last = h;
  r->left_old = h.old_n, r->left_new = h.new_n;
  r->at_old = h.old_start, r->at_new = h.new_start;
  r->run = NULL;
  return 0;
}

/* A line between hunks: a file's header lines, or a hunk's. 0 or -1 (said). */
static int ud_header(struct ud_read *r, const char *line, size_t lineno) {
  int bad = 0;
  struct ufile *cur = r->cur;
  if (!strncmp(line, "diff --git ", 11)) {
    r->git = 1;
    /* the paths come with ---/+++ or rename lines (a pure mode change has neither) */
    return ud_file(r);
  } else if (!strncmp(line, "--- ", 4)) {
    if ((!r->git || !cur || r->last.old_start) && ud_file(r))
      return -1;
    free(r->cur->old_path);
    r->cur->old_path = diff_path(line + 4, 1, &bad);
    r->git = 0; /* the next "---" without "diff --git" starts a file */
  } else if (!strncmp(line, "+++ ", 4) && cur) {
    free(cur->new_path);
    cur->new_path = diff_path(line + 4, 1, &bad);
  } else if (!strncmp(line, "rename from ", 12) && cur) {
    free(cur->old_path);
    cur->old_path = diff_path(line + 12, 0, &bad);
  } else if (!strncmp(line, "rename to ", 10) && cur) {
    free(cur->new_path);
    cur->new_path = diff_path(line + 10, 0, &bad);
  } else if (!strncmp(line, "@@ -", 4)) {
    return ud_hunk(r, line, lineno);
  }
  return bad ? BAD_AT(lineno, "a malformed path: %.60s", line) : 0;
}

int udiff_read(const char *path, struct udiff **out) {
  FILE *f = fopen(path, "r");
  if (!f)
    return diag_at(DIAG_ERROR, path, 0, "%s", strerror(errno)), -1;
  struct ud_read rd = {.path = path, .u = calloc(1, sizeof(struct udiff))}, *r = &rd;
  char *line = NULL;
  size_t cap = 0, lineno = 0;
  ssize_t n;
  int err = rd.u ? 0 : NO_MEMORY();
  size_t text_lines = 0; /* lines with something on them (an empty diff has none) */
  while (!err && (n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (n && line[n - 1] == '\n')
      line[--n] = 0;
    text_lines += strspn(line, " \t\r") < (size_t)n;
    if (rd.left_old || rd.left_new)
      err = ud_body(r, line, (size_t)n, lineno);
    else
      err = ud_header(r, line, lineno);
  }
  if (!err && (rd.left_old || rd.left_new))
    err = BAD_AT(0, "the last hunk is cut short");
  if (!err && !rd.u->n_files && text_lines)
    err = BAD_AT(0, "not a unified diff (no \"diff --git\" or \"---\" and \"+++\" lines)");
  if (!err && ferror(f))
    err = BAD_AT(0, "%s", strerror(errno));
  free(line);
  fclose(f);
  if (err) {
    udiff_free(rd.u);
    return -1;
  }
  match_moves(rd.u);
  *out = rd.u;
  return 0;
}
#undef BAD_AT
#undef NO_MEMORY

void udiff_touched(const struct udiff *u,
                   void (*cb)(void *arg, const char *old_path, uint32_t line), void *arg) {
  for (size_t i = 0; i < u->n_files; i++) {
    const struct ufile *f = &u->files[i];
    if (!f->old_path)
      continue; /* a new file: no baseline line */
    for (size_t k = 0; k < f->n_hunks; k++) {
      const struct hunk *h = &f->hunks[k];
      if (h->old_n)
        for (uint32_t l = h->old_start; l < h->old_start + h->old_n; l++)
          cb(arg, f->old_path, l);
      else {
        if (h->old_start > 1)
          cb(arg, f->old_path, h->old_start - 1);
        cb(arg, f->old_path, h->old_start);
      }
    }
  }
}

/* ---- moved blocks ---- */

/* Worth matching alone: some letters or digits, four characters or more. */
static int significant(const char *t) {
  size_t alnum = 0;
  for (const char *p = t; *p; p++)
    alnum += isalnum((unsigned char)*p) != 0;
  return alnum && strlen(t) >= 4;
}

/*
 * Match runs of inserted lines with runs of deleted lines of the same text:
 * for each unmatched inserted line, the longest run starting at a deleted
 * line of its text (in its own file first), taken when it is two lines or
 * more with something significant, or one significant line.
 */
static void match_moves(struct udiff *u) {
  if (!u->n_minus || !u->n_plus)
    return;
  size_t n_slots = 64;
  while (n_slots < 2 * u->n_minus)
    n_slots *= 2;
  size_t *slots = calloc(n_slots, sizeof(*slots));  /* deleted lines by text: index + 1 */
  size_t *next = calloc(u->n_minus, sizeof(*next)); /* same-hash chain: index + 1 */
  if (!slots || !next) {
    free(slots);
    free(next);
    return; /* (no moves found: every line keeps its plain category) */
  }
  for (size_t i = u->n_minus; i-- > 0;) {
    size_t s = u->minus[i].hash & (n_slots - 1);
    while (slots[s] && u->minus[slots[s] - 1].hash != u->minus[i].hash)
      s = (s + 1) & (n_slots - 1);
    next[i] = slots[s];
    slots[s] = i + 1;
  }
  for (size_t p = 0; p < u->n_plus;) {
    if (u->plus[p].match >= 0 || !u->plus[p].text[0]) {
      p++;
      continue;
    }
    size_t s = u->plus[p].hash & (n_slots - 1);
    while (slots[s] && u->minus[slots[s] - 1].hash != u->plus[p].hash)
      s = (s + 1) & (n_slots - 1);
    size_t best = 0, best_len = 0, best_sig = 0;
    for (size_t c = slots[s]; c; c = next[c - 1]) {
      size_t m = c - 1, k = 0, sig = 0;
      /* a run: consecutive lines on both sides, in one file each */
      while (p + k < u->n_plus && m + k < u->n_minus && u->plus[p + k].match < 0 &&
             u->minus[m + k].match < 0 && !strcmp(u->plus[p + k].text, u->minus[m + k].text) &&
             (!k || (u->plus[p + k].file == u->plus[p].file &&
                     u->plus[p + k].line == u->plus[p + k - 1].line + 1 &&
                     u->minus[m + k].file == u->minus[m].file &&
                     u->minus[m + k].line == u->minus[m + k - 1].line + 1))) {
        sig += significant(u->plus[p + k].text);
        k++;
      }
      int better = k > best_len || (k == best_len && k && u->minus[m].file == u->plus[p].file &&
                                    u->minus[best - 1].file != u->plus[p].file);
      if (k && better) {
        best = c, best_len = k, best_sig = sig;
      }
    }
    if (best_len && best_sig) {
      for (size_t k = 0; k < best_len; k++) {
        u->plus[p + k].match = (int64_t)(best - 1 + k);
        u->minus[best - 1 + k].match = (int64_t)(p + k);
      }
      p += best_len;
    } else {
      p++;
    }
  }
  free(slots);
  free(next);
}
