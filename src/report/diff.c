/* SPDX-License-Identifier: MIT */
/* Differential coverage: each line of the model against a baseline, through a diff (diff.h). */
#define _GNU_SOURCE
#include "diff.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const cov_category_name[COV_DIFF_CATEGORIES] = {"",    "GNC", "UNC", "GBC", "LBC",
                                                            "CBC", "UBC", "DCB", "DUB"};

/* ---- the unified diff ---- */

/* One run of changed lines ('-' and '+' together, no context line in
 * between): a hunk of the diff holds one or more of them, and its context
 * lines are in none (whatever -U the diff was made with). */
struct hunk {
  uint32_t old_start, old_n, new_start, new_n; /* starts of the ranges, even when empty */
};

/* A line the diff takes out ('-': old number) or puts in ('+': new number). */
struct dline {
  uint32_t line;
  uint32_t file; /* index in udiff.files */
  char *text;    /* whitespace at both ends taken off */
  char *raw;     /* a deleted line's text as it was (its source line), or NULL */
  uint64_t hash;
  int64_t match; /* the line it is matched with as moved (index in the other list), or -1 */
};

struct ufile {
  char *old_path, *new_path; /* NULL: /dev/null */
  struct hunk *hunks;
  size_t n_hunks, cap_hunks;
};

struct udiff {
  struct ufile *files;
  size_t n_files, cap_files;
  struct dline *minus, *plus;
  size_t n_minus, cap_minus, n_plus, cap_plus;
};

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

static void match_moves(struct udiff *u);

#define BAD(...) (snprintf(msg, len, __VA_ARGS__), err = -1)

int udiff_read(const char *path, struct udiff **out, char *msg, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f)
    return snprintf(msg, len, "%s: %s", path, strerror(errno)), -1;
  struct udiff *u = calloc(1, sizeof(*u));
  char *line = NULL;
  size_t cap = 0, lineno = 0;
  ssize_t n;
  int err = u ? 0 : BAD("out of memory");
  struct ufile *cur = NULL;
  uint32_t left_old = 0, left_new = 0, at_old = 0, at_new = 0; /* of the hunk being read */
  struct hunk *run = NULL; /* the run of changed lines being read, or NULL */
  struct hunk last = {0};  /* the file's last hunk header's ranges (for their order) */
  int git = 0;
  size_t text_lines = 0; /* lines with something on them (an empty diff has none) */
  while (!err && (n = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (n && line[n - 1] == '\n')
      line[--n] = 0;
    text_lines += strspn(line, " \t\r") < (size_t)n;
    if (left_old || left_new) {
      /* the body of a hunk */
      char c = line[0];
      if (c == '\\')
        continue; /* "\ No newline at end of file" */
      if ((c == '-' && left_old) || (c == '+' && left_new)) {
        if (!run) {
          if (UCOV_GROW(cur->hunks, cur->cap_hunks, cur->n_hunks, 8)) {
            BAD("out of memory");
            break;
          }
          run = &cur->hunks[cur->n_hunks++];
          *run = (struct hunk){at_old, 0, at_new, 0};
        }
        if (c == '-')
          run->old_n++;
        else
          run->new_n++;
      }
      if ((c == ' ' || c == 0) && left_old && left_new) {
        left_old--, left_new--, at_old++, at_new++;
        run = NULL; /* context: the run of changes ends */
      } else if (c == '-' && left_old) {
        if (add_dline(&u->minus, &u->n_minus, &u->cap_minus, at_old++, (uint32_t)(cur - u->files),
                      line + 1, (size_t)n - 1, 1))
          BAD("out of memory");
        left_old--;
      } else if (c == '+' && left_new) {
        if (add_dline(&u->plus, &u->n_plus, &u->cap_plus, at_new++, (uint32_t)(cur - u->files),
                      line + 1, (size_t)n - 1, 0))
          BAD("out of memory");
        left_new--;
      } else {
        BAD("%s:%zu: the hunk ends early (%u old and %u new lines still to come)", path, lineno,
            left_old, left_new);
      }
      continue;
    }
    int bad = 0;
    if (!strncmp(line, "diff --git ", 11)) {
      git = 1;
      last = (struct hunk){0};
      if (UCOV_GROW(u->files, u->cap_files, u->n_files, 16)) {
        BAD("out of memory");
        break;
      }
      cur = &u->files[u->n_files++];
      memset(cur, 0, sizeof(*cur));
      /* the paths come with ---/+++ or rename lines (a pure mode change has neither) */
    } else if (!strncmp(line, "--- ", 4)) {
      if (!git || !cur || last.old_start) {
        if (UCOV_GROW(u->files, u->cap_files, u->n_files, 16)) {
          BAD("out of memory");
          break;
        }
        cur = &u->files[u->n_files++];
        memset(cur, 0, sizeof(*cur));
        last = (struct hunk){0};
      }
      free(cur->old_path);
      cur->old_path = diff_path(line + 4, 1, &bad);
      git = 0; /* the next "---" without "diff --git" starts a file */
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
      const char *p = line + 4;
      struct hunk h;
      if (!cur || parse_range(&p, &h.old_start, &h.old_n) || strncmp(p, " +", 2) ||
          (p += 2, parse_range(&p, &h.new_start, &h.new_n)) || strncmp(p, " @@", 3)) {
        BAD("%s:%zu: not a hunk header: %.60s", path, lineno, line);
        break;
      }
      /* An empty range starts after the line its number names. */
      h.old_start += !h.old_n;
      h.new_start += !h.new_n;
      if (h.old_start < last.old_start + last.old_n || h.new_start < last.new_start + last.new_n) {
        BAD("%s:%zu: hunks out of order", path, lineno);
        break;
      }
      last = h;
      left_old = h.old_n, left_new = h.new_n;
      at_old = h.old_start, at_new = h.new_start;
      run = NULL;
    }
    if (bad)
      BAD("%s:%zu: a malformed path: %.60s", path, lineno, line);
  }
  if (!err && (left_old || left_new))
    BAD("%s: the last hunk is cut short", path);
  if (!err && !u->n_files && text_lines)
    BAD("%s: not a unified diff (no \"diff --git\" or \"---\" and \"+++\" lines)", path);
  if (!err && ferror(f))
    BAD("%s: %s", path, strerror(errno));
  free(line);
  fclose(f);
  if (err) {
    udiff_free(u);
    return -1;
  }
  match_moves(u);
  *out = u;
  return 0;
}

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

/* ---- the baseline's text ---- */

/* The diff entry whose old path is `path` (absolute): root/old_path, else
 * the one entry whose old path ends it. SIZE_MAX: none. */
static size_t entry_of_old(const struct udiff *u, const char *path, const char *root) {
  size_t only = SIZE_MAX, n = strlen(path), rn = root ? strlen(root) : 0;
  for (size_t k = 0; k < u->n_files; k++) {
    const char *o = u->files[k].old_path;
    size_t l = o ? strlen(o) : 0;
    if (!o || l >= n || path[n - l - 1] != '/' || strcmp(path + n - l, o))
      continue;
    if (root && n - l - 1 == rn && !strncmp(path, root, rn))
      return k;                                 /* root/old_path */
    only = only == SIZE_MAX ? k : SIZE_MAX - 1; /* (two: ambiguous) */
  }
  return only == SIZE_MAX - 1 ? SIZE_MAX : only;
}

/* A growing text; s NULL once out of memory. */
struct text {
  char *s;
  size_t n, cap;
};

static void emit(struct text *t, const char *s, size_t l) {
  if (t->s && t->n + l + 1 > t->cap) {
    char *n = realloc(t->s, t->cap = 2 * (t->n + l + 1));
    if (!n)
      free(t->s);
    t->s = n;
  }
  if (t->s)
    memcpy(t->s + t->n, s, l), t->n += l;
}

char *udiff_old_text(const struct udiff *u, const char *path, const char *root, size_t *len) {
  size_t k = entry_of_old(u, path, root);
  if (k == SIZE_MAX)
    return NULL; /* not in the diff: unchanged */
  const struct ufile *uf = &u->files[k];
  /* The current text: the new path in the old one's place. */
  char *cur = NULL;
  size_t cur_len = 0;
  if (uf->new_path) {
    size_t base = strlen(path) - strlen(uf->old_path);
    char *np = NULL;
    if (asprintf(&np, "%.*s%s", (int)base, path, uf->new_path) < 0)
      return NULL;
    cur = ucov_read_text(np, &cur_len);
    free(np);
    if (!cur)
      return NULL;
  }
  /* Unchanged lines from the current text, the deleted ones from the diff,
   * run after run; the current text's lines, in order. */
  struct text t = {malloc(cur_len + 64), 0, cur_len + 64};
  size_t m = 0;
  const char *p = cur ? cur : "", *end = cur ? cur + cur_len : p;
  uint32_t at_old = 1;
  while (m < u->n_minus && u->minus[m].file < k)
    m++;
  for (size_t r = 0; t.s && r <= uf->n_hunks; r++) {
    /* unchanged lines up to the run (all that is left after the last) */
    uint32_t upto = r < uf->n_hunks ? uf->hunks[r].old_start : UINT32_MAX;
    for (; at_old < upto && p < end; at_old++) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
      emit(&t, p, l);
      p += l;
    }
    if (r == uf->n_hunks)
      break;
    const struct hunk *h = &uf->hunks[r];
    for (uint32_t i = 0; i < h->old_n; i++, at_old++) {
      while (m < u->n_minus && u->minus[m].file == k && u->minus[m].line < at_old)
        m++;
      if (m < u->n_minus && u->minus[m].file == k && u->minus[m].line == at_old) {
        emit(&t, u->minus[m].raw, strlen(u->minus[m].raw));
        emit(&t, "\n", 1);
      }
    }
    for (uint32_t i = 0; i < h->new_n && p < end; i++) { /* the inserted lines: not there */
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      p = nl ? nl + 1 : end;
    }
  }
  free(cur);
  if (t.s) {
    t.s[t.n] = 0;
    *len = t.n;
  }
  return t.s;
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

/* ---- the categories ---- */

/* The file of a finished model by path (binary search), or NULL. */
static const struct cov_file *find(const struct cov_model *m, const char *path) {
  size_t lo = 0, hi = m->n_files;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(m->files[mid]->path, path);
    if (!c)
      return m->files[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* A diff path's file in a model: root/path, else the one file ending in /path. */
static const struct cov_file *resolve(const struct cov_model *m, const char *path,
                                      const char *root) {
  if (!path)
    return NULL;
  if (path[0] == '/')
    return find(m, path);
  char *full;
  if (asprintf(&full, "%s/%s", root, path) < 0)
    return NULL;
  const struct cov_file *f = find(m, full);
  free(full);
  if (f)
    return f;
  size_t n = strlen(path);
  const struct cov_file *only = NULL;
  for (size_t i = 0; i < m->n_files; i++) {
    const char *p = m->files[i]->path;
    size_t l = strlen(p);
    if (l > n && p[l - n - 1] == '/' && !strcmp(p + l - n, path)) {
      if (only)
        return NULL; /* ambiguous */
      only = m->files[i];
    }
  }
  return only;
}

/* The baseline line of new line l of a file with these hunks: 0 when the diff inserts it. */
static uint32_t old_line(const struct ufile *uf, uint32_t l) {
  int64_t delta = 0; /* new - old after the hunks passed */
  for (size_t i = 0; uf && i < uf->n_hunks; i++) {
    const struct hunk *h = &uf->hunks[i];
    if (l < h->new_start)
      break;
    if (l < h->new_start + h->new_n)
      return 0;
    delta = (int64_t)(h->new_start + h->new_n) - (int64_t)(h->old_start + h->old_n);
  }
  int64_t o = (int64_t)l - delta;
  return o > 0 && o <= UINT32_MAX ? (uint32_t)o : 0;
}

/* The baseline's count of a line: index of the line, or -1 when it has no code. */
static ssize_t base_index(const struct cov_file *b, uint32_t line) {
  size_t lo = 0, hi = b ? b->n_lines : 0;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (b->lines[mid].line == line)
      return (ssize_t)mid;
    if (b->lines[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* One baseline file's lines: which a current line took ("used"). */
struct base_use {
  const struct cov_file *file;
  uint8_t *used;
  size_t cur; /* the current file its gone lines are counted with, or SIZE_MAX */
};

static struct base_use *use_of(struct base_use *uses, size_t n, const struct cov_file *b) {
  for (size_t i = 0; b && i < n; i++)
    if (uses[i].file == b)
      return &uses[i];
  return NULL;
}

int cov_diff_compute(struct cov_diff *d, const struct cov_model *cur, const struct cov_model *base,
                     const struct udiff *u, const char *root) {
  memset(d, 0, sizeof(*d));
  d->have_patch = u != NULL;
  static const struct cov_model none; /* no baseline: only what the diff inserts is categorized */
  int have_base = base != NULL;
  if (!base)
    base = &none;
  char *cwd = NULL;
  if (!root)
    root = cwd = getcwd(NULL, 0);
  if (!root)
    root = ".";
  d->files = calloc(cur->n_files ? cur->n_files : 1, sizeof(*d->files));
  struct base_use *uses = calloc(base->n_files ? base->n_files : 1, sizeof(*uses));
  /* per current file: its diff entry */
  const struct ufile **entry = calloc(cur->n_files ? cur->n_files : 1, sizeof(*entry));
  /* per diff entry: its current and baseline files */
  const struct cov_file **ucur = NULL, **ubase = NULL;
  if (u) {
    ucur = calloc(u->n_files ? u->n_files : 1, sizeof(*ucur));
    ubase = calloc(u->n_files ? u->n_files : 1, sizeof(*ubase));
  }
  int err = 0;
  if (!d->files || !uses || !entry || (u && (!ucur || !ubase)))
    err = -1;
  d->n_files = d->files ? cur->n_files : 0;
  for (size_t i = 0; !err && i < base->n_files; i++) {
    uses[i].file = base->files[i];
    uses[i].cur = SIZE_MAX;
    if (!(uses[i].used = calloc(base->files[i]->n_lines ? base->files[i]->n_lines : 1, 1)))
      err = -1;
  }
  if (!err && u) {
    for (size_t k = 0; k < u->n_files; k++) {
      ucur[k] = resolve(cur, u->files[k].new_path, root);
      ubase[k] = resolve(base, u->files[k].old_path, root);
      for (size_t i = 0; ucur[k] && i < cur->n_files; i++)
        if (cur->files[i] == ucur[k])
          entry[i] = &u->files[k];
    }
  }
  for (size_t i = 0; !err && i < cur->n_files; i++) {
    const struct cov_file *c = cur->files[i];
    size_t k = entry[i] ? (size_t)(entry[i] - u->files) : 0;
    /* the baseline of this file: the diff's old path, or the same path */
    const struct cov_file *b = entry[i] ? ubase[k] : find(base, c->path);
    struct base_use *bu = use_of(uses, base->n_files, b);
    if (bu && bu->cur == SIZE_MAX)
      bu->cur = i;
    struct cov_diff_file *df = &d->files[i];
    df->lines = malloc((c->n_lines ? c->n_lines : 1) * sizeof(*df->lines));
    if (!df->lines) {
      err = -1;
      break;
    }
    size_t p = 0; /* the inserted lines of this file, in order */
    while (entry[i] && p < u->n_plus && u->plus[p].file < k)
      p++;
    for (size_t j = 0; j < c->n_lines; j++) {
      const struct cov_line *l = &c->lines[j];
      const struct cov_file *from = b;
      uint32_t o = entry[i] ? old_line(entry[i], l->line) : l->line;
      if (entry[i] && !o) {
        /* inserted (a line of the patch): moved from a deleted line, or new */
        d->patch_found++;
        d->patch_hit += l->count > 0;
        while (p < u->n_plus && u->plus[p].file == k && u->plus[p].line < l->line)
          p++;
        from = NULL;
        if (p < u->n_plus && u->plus[p].file == k && u->plus[p].line == l->line &&
            u->plus[p].match >= 0) {
          const struct dline *m = &u->minus[u->plus[p].match];
          from = ubase[m->file];
          o = m->line;
        }
      }
      if (!have_base && o)
        continue; /* unchanged code, and nothing to compare it with */
      ssize_t bi = from ? base_index(from, o) : -1;
      int cat;
      if (bi >= 0) {
        int was = from->lines[bi].count > 0, is = l->count > 0;
        cat = was && is ? COV_CBC : was ? COV_LBC : is ? COV_GBC : COV_UBC;
        struct base_use *fu = use_of(uses, base->n_files, from);
        if (fu)
          fu->used[bi] = 1;
      } else {
        cat = l->count ? COV_GNC : COV_UNC;
      }
      df->lines[df->n++] = (struct cov_diff_line){l->line, (uint8_t)cat};
      df->counts[cat]++;
    }
  }
  /* Baseline lines no current line took: deleted, or no code there now. */
  for (size_t i = 0; !err && i < base->n_files; i++) {
    const struct cov_file *b = base->files[i];
    for (size_t k = 0; k < b->n_lines; k++) {
      if (uses[i].used[k])
        continue;
      int cat = b->lines[k].count ? COV_DCB : COV_DUB;
      if (uses[i].cur != SIZE_MAX)
        d->files[uses[i].cur].counts[cat]++;
      else
        d->totals[cat]++; /* a file that is gone */
    }
  }
  for (size_t i = 0; !err && i < cur->n_files; i++)
    for (int cat = 1; cat < COV_DIFF_CATEGORIES; cat++)
      d->totals[cat] += d->files[i].counts[cat];
  for (size_t i = 0; uses && i < base->n_files; i++)
    free(uses[i].used);
  free(uses);
  free(entry);
  free(ucur);
  free(ubase);
  free(cwd);
  if (err)
    cov_diff_free(d);
  return err;
}

void cov_diff_free(struct cov_diff *d) {
  for (size_t i = 0; i < d->n_files; i++)
    free(d->files[i].lines);
  free(d->files);
  memset(d, 0, sizeof(*d));
}
