/* SPDX-License-Identifier: MIT */
/*
 * Exclusions (see exclude.h). The markers are read as gcovr 5 reads them:
 * every "[GL]COVR?_EXCL_(LINE|START|STOP)" on a line, anywhere in it (so
 * LCOV_ and GCOVR_ spellings both work), and the same with "_EXCL_BR_" for
 * branches. A START..STOP region excludes the START line up to the line
 * before STOP, as lcov and gcovr do; a START without STOP excludes nothing
 * and is warned about, like a STOP without START.
 */
#define _GNU_SOURCE
#include "exclude.h"
#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A source bigger than this is not read for markers (nor is anything but a regular file). */

enum { EX_LINE = 1, EX_BRANCH = 2, NO_CODE = 4, NONCODE = 8 };

/*
 * gcovr's patterns are Python's: what a yes/no match at a line's start needs
 * of them, in ERE. \d and \D (in and out of brackets), (?: groups, and lazy
 * quantifiers (*? +? ?? }?: lazy or greedy, the same lines match). The rest
 * is ERE already, glibc's \w \s \b included.
 */
static char *python_ere(const char *p) {
  size_t n = strlen(p);
  char *o = malloc(5 * n + 1), *w = o; /* \D -> [^0-9]: six for two */
  if (!o)
    return NULL;
  int bracket = 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == '\\' && i + 1 < n) {
      char d = p[++i];
      if (d == 'd' || d == 'D') {
        const char *r = bracket ? "0-9" : d == 'd' ? "[0-9]" : "[^0-9]";
        w = stpcpy(w, r);
      } else {
        *w++ = c;
        *w++ = d;
      }
      continue;
    }
    if (bracket) {
      if (c == ']' && bracket > 1)
        bracket = 0;
      else
        bracket++;
      *w++ = c;
      continue;
    }
    if (c == '[') {
      bracket = 1;
      *w++ = c;
      if (i + 1 < n && p[i + 1] == '^')
        *w++ = p[++i];
      continue;
    }
    if (c == '(' && i + 2 < n && p[i + 1] == '?' && p[i + 2] == ':') {
      *w++ = '(';
      i += 2;
      continue;
    }
    if (c == '?' && i > 0 && strchr("*+?}", p[i - 1]) && !(i > 1 && p[i - 2] == '\\'))
      continue; /* a lazy quantifier's mark */
    *w++ = c;
  }
  *w = 0;
  return o;
}

/* --exclude-pattern-prefix: "(PREFIX)_EXCL_(LINE|START|STOP)" and the same
 * with _EXCL_BR_, as gcovr builds them. 0, or -1 (said). */
static int compile_markers(struct cov_excl *x) {
  char *ere = python_ere(x->marker_prefix), *full[2] = {NULL, NULL};
  for (int k = 0; ere && k < 2; k++)
    if (asprintf(&full[k], "(%s)_EXCL_%s(LINE|START|STOP)", ere, k ? "BR_" : "") < 0)
      full[k] = NULL;
  free(ere);
  if (!full[0] || !full[1]) {
    free(full[0]);
    free(full[1]);
    UCOV_ERR("out of memory");
    return -1;
  }
  int rc = regcomp(&x->marker_re[0], full[0], REG_EXTENDED), k = 0;
  if (!rc && (rc = regcomp(&x->marker_re[1], full[1], REG_EXTENDED)) != 0)
    k = 1;
  free(full[0]);
  free(full[1]);
  if (rc) {
    char why[128];
    regerror(rc, &x->marker_re[k], why, sizeof(why));
    if (k)
      regfree(&x->marker_re[0]);
    UCOV_ERR("--exclude-pattern-prefix '%s' is not a regular expression (ERE): %s",
             x->marker_prefix, why);
    return -1;
  }
  x->have_marker_re = 1;
  return 0;
}

int cov_excl_compile(struct cov_excl *x) {
  const char *pat[3] = {x->line_pattern, x->branch_pattern, x->function_pattern};
  const char *opt[3] = {"--exclude-lines-by-pattern", "--exclude-branches-by-pattern",
                        "--exclude-function"};
  regex_t *re[3] = {&x->line_re, &x->branch_re, &x->func_re};
  int *have[3] = {&x->have_line_re, &x->have_branch_re, &x->have_func_re};
  for (int k = 0; k < 3; k++) {
    if (!pat[k] || *have[k])
      continue;
    char *ere = python_ere(pat[k]);
    if (!ere) {
      UCOV_ERR("out of memory");
      return -1;
    }
    if (k == 2) { /* the whole name: ^(RE)$ */
      char *whole = NULL;
      if (asprintf(&whole, "^(%s)$", ere) < 0)
        whole = NULL;
      free(ere);
      if (!(ere = whole)) {
        UCOV_ERR("out of memory");
        return -1;
      }
    }
    int rc = regcomp(re[k], ere, REG_EXTENDED);
    free(ere);
    if (rc) {
      char why[128];
      regerror(rc, re[k], why, sizeof(why));
      UCOV_ERR("%s '%s' is not a regular expression (ERE): %s", opt[k], pat[k], why);
      return -1;
    }
    *have[k] = 1;
  }
  return x->marker_prefix && !x->have_marker_re ? compile_markers(x) : 0;
}

void cov_excl_free(struct cov_excl *x) {
  if (x->have_line_re)
    regfree(&x->line_re);
  if (x->have_branch_re)
    regfree(&x->branch_re);
  if (x->have_func_re)
    regfree(&x->func_re);
  if (x->have_marker_re) {
    regfree(&x->marker_re[0]);
    regfree(&x->marker_re[1]);
  }
  x->have_line_re = x->have_branch_re = x->have_func_re = x->have_marker_re = 0;
}

int cov_excl_active(const struct cov_excl *x) {
  return x->markers || x->unreachable_branches || x->throw_branches || x->line_pattern ||
         x->branch_pattern || x->gcovr_lines || x->function_pattern || x->function_lines;
}

/* Whether an ERE matches the line from its first character on (Python's re.match). */
static int match_start(const regex_t *re, const char *text) {
  regmatch_t m[1];
  return regexec(re, text, 1, m, 0) == 0 && m[0].rm_so == 0;
}

/*
 * A line's code as gcovr sees it: "//" to the end taken out, then each "/" "*"
 * to the next "*" "/", then blanks at both ends (NULL without memory).
 */
static char *code_of(const char *text) {
  const char *cpp = strstr(text, "//");
  size_t end = cpp ? (size_t)(cpp - text) : strlen(text), n = 0;
  char *t = malloc(end + 1);
  if (!t)
    return NULL;
  for (size_t i = 0; i < end; i++) {
    if (text[i] == '/' && i + 1 < end && text[i + 1] == '*') {
      const char *close = strstr(text + i + 2, "*/");
      if (close && (size_t)(close - text) + 2 <= end) {
        i = (size_t)(close - text) + 1;
        continue;
      }
    }
    t[n++] = text[i];
  }
  size_t a = 0;
  while (a < n && strchr(" \t\n\r\v\f", t[a]))
    a++;
  while (n > a && strchr(" \t\n\r\v\f", t[n - 1]))
    n--;
  memmove(t, t + a, n - a);
  t[n - a] = 0;
  return t;
}

/* gcovr's test for a line that cannot hold a branch: its code, every space
 * taken out, is "", "{", "}" or "{}". (-1 without memory.) */
static int no_code(const char *text) {
  char *t = code_of(text);
  if (!t)
    return -1;
  size_t k = 0;
  for (size_t i = 0; t[i]; i++)
    if (t[i] != ' ')
      t[k++] = t[i];
  t[k] = 0;
  int r = !strcmp(t, "") || !strcmp(t, "{") || !strcmp(t, "}") || !strcmp(t, "{}");
  free(t);
  return r;
}

/* gcovr's noncode line (its line rule: such a line never run has no code):
 * its code is "", "{", "}" or "else". (-1 without memory.) */
static int noncode(const char *text) {
  char *t = code_of(text);
  if (!t)
    return -1;
  int r = !strcmp(t, "") || !strcmp(t, "{") || !strcmp(t, "}") || !strcmp(t, "else");
  free(t);
  return r;
}

struct marker_stack {
  struct mark {
    uint32_t line;
    char header[32];
  } * v;
  size_t n, cap;
};

struct scan {
  const struct cov_excl *x;
  const char *path;
  uint8_t *flags; /* per line, up to n_flags - 1 */
  uint32_t n_flags;
  struct marker_stack st[2]; /* lines, branches */
  int oom;
};

static void set_range(struct scan *s, uint32_t from, uint32_t to, int bit) {
  for (uint32_t l = from; l < to && l < s->n_flags; l++)
    s->flags[l] |= (uint8_t)bit;
}

static void marker(struct scan *s, uint32_t ln, const char *header, int kind, const char *flag) {
  struct marker_stack *st = &s->st[kind];
  const char *word = kind ? "BR_" : "";
  int bit = kind ? EX_BRANCH : EX_LINE;
  if (!strcmp(flag, "LINE")) {
    if (st->n)
      diag_at(DIAG_WARNING, s->path, ln,
              "%s_EXCL_%sLINE in the region %s_EXCL_%sSTART opened on line %u", header, word,
              st->v[st->n - 1].header, word, st->v[st->n - 1].line);
    else
      set_range(s, ln, ln + 1, bit);
  } else if (!strcmp(flag, "START")) {
    if (UCOV_GROW(st->v, st->cap, st->n, 4)) {
      s->oom = 1;
      return;
    }
    st->v[st->n].line = ln;
    snprintf(st->v[st->n].header, sizeof(st->v[st->n].header), "%s", header);
    st->n++;
  } else if (!st->n) {
    diag_at(DIAG_WARNING, s->path, ln, "%s_EXCL_%sSTOP without a %s_EXCL_%sSTART", header, word,
            header, word);
  } else {
    struct mark *m = &st->v[--st->n];
    if (strcmp(m->header, header))
      diag_at(DIAG_WARNING, s->path, m->line, "%s_EXCL_%sSTART ended by %s_EXCL_%sSTOP on line %u",
              m->header, word, header, word, ln);
    set_range(s, m->line, ln, bit);
  }
}

/* The markers of a custom prefix (--exclude-pattern-prefix), left to right,
 * as gcovr's findall finds them: the header is the prefix's match, the flag
 * the last group's. */
static void prefixed_markers(struct scan *s, uint32_t ln, const char *text) {
  for (int kind = 0; kind < 2; kind++) {
    const regex_t *re = &s->x->marker_re[kind];
    regmatch_t m[16];
    size_t last = re->re_nsub < 16 ? re->re_nsub : 0;
    for (const char *p = text;
         last && *p && !regexec(re, p, last + 1, m, p == text ? 0 : REG_NOTBOL);) {
      char header[32], flag[8];
      int hl = (int)(m[1].rm_eo - m[1].rm_so), fl = (int)(m[last].rm_eo - m[last].rm_so);
      snprintf(header, sizeof(header), "%.*s", hl, p + m[1].rm_so);
      snprintf(flag, sizeof(flag), "%.*s", fl, p + m[last].rm_so);
      marker(s, ln, header, kind, flag);
      p += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
    }
  }
}

/* Every marker of a line, left to right, as a regex findall would find them. */
static void markers(struct scan *s, uint32_t ln, const char *text) {
  static const char *const flags[] = {"LINE", "START", "STOP"};
  if (s->x->have_marker_re) {
    prefixed_markers(s, ln, text);
    return;
  }
  for (int kind = 0; kind < 2; kind++) {
    const char *p = text;
    while ((p = strstr(p, "_EXCL_"))) {
      size_t at = (size_t)(p - text);
      char header[6] = "";
      /* the leftmost header: [GL]COVR before [GL]COV */
      if (at >= 5 && (p[-5] == 'G' || p[-5] == 'L') && !strncmp(p - 4, "COVR", 4))
        memcpy(header, p - 5, 5);
      else if (at >= 4 && (p[-4] == 'G' || p[-4] == 'L') && !strncmp(p - 3, "COV", 3))
        memcpy(header, p - 4, 4);
      const char *q = p + 6;
      p += 6;
      if (!header[0])
        continue;
      if (kind) {
        if (strncmp(q, "BR_", 3))
          continue;
        q += 3;
      }
      for (int f = 0; f < 3; f++)
        if (!strncmp(q, flags[f], strlen(flags[f]))) {
          marker(s, ln, header, kind, flags[f]);
          p = q + strlen(flags[f]);
          break;
        }
    }
  }
}

/* Lines from..to, both in. */
struct range {
  uint32_t from, to;
};

/* Whether line l is in one of the n ranges. */
static int in_ranges(const struct range *r, size_t n, uint32_t l) {
  for (size_t i = 0; i < n; i++)
    if (l >= r[i].from && l <= r[i].to)
      return 1;
  return 0;
}

static uint32_t max_line(const struct cov_file *f) {
  uint32_t m = 0;
  if (f->n_lines)
    m = f->lines[f->n_lines - 1].line;
  for (size_t i = 0; i < f->n_funcs; i++)
    if (f->funcs[i].line > m)
      m = f->funcs[i].line;
  if (f->n_branches && f->branches[f->n_branches - 1].line > m)
    m = f->branches[f->n_branches - 1].line;
  for (size_t i = 0; i < f->n_mcdc; i++)
    if (f->mcdc[i].line > m)
      m = f->mcdc[i].line;
  return m;
}

/* The source's lines flagged (s->flags) by markers, patterns and the line
 * rules; an unclosed region said. 0, or -1 (out of memory). */
static int scan_source(const struct cov_file *f, const struct cov_excl *x, struct scan *s,
                       char *src, size_t len, uint32_t top) {
  /* flags only for lines that have data, and only as far as the source goes */
  uint32_t n_src = 1;
  for (const char *p = src; n_src < top && (p = memchr(p, '\n', (size_t)(src + len - p))); p++)
    n_src++;
  s->n_flags = (n_src < top ? n_src : top) + 1;
  s->flags = calloc(s->n_flags, 1);
  if (!s->flags) {
    return -1;
  }
  /* Line by line where a pattern or --exclude-unreachable-branches looks
   * at every line; elsewhere from one marker to the next. */
  int per_line = x->have_line_re || x->have_branch_re || x->unreachable_branches || x->gcovr_lines;
  char *line = src, *end = src + len;
  for (uint32_t ln = 1; line <= end && !s->oom; ln++) {
    if (!per_line || ln >= s->n_flags) {
      char *hit = x->markers ? memmem(line, (size_t)(end - line), "_EXCL_", 6) : NULL;
      if (!hit)
        break;
      for (char *p = line; (p = memchr(p, '\n', (size_t)(hit - p))); p++, ln++)
        line = p + 1;
      if (ln == UINT32_MAX)
        break;
    }
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (nl)
      *nl = 0;
    if (x->markers && strstr(line, "_EXCL_"))
      markers(s, ln, line);
    if (per_line && ln < s->n_flags) {
      if (x->have_line_re && match_start(&x->line_re, line))
        s->flags[ln] |= EX_LINE;
      if (x->have_branch_re && match_start(&x->branch_re, line))
        s->flags[ln] |= EX_BRANCH;
      if (x->unreachable_branches) {
        int nc = no_code(line);
        if (nc < 0)
          s->oom = 1;
        else if (nc)
          s->flags[ln] |= NO_CODE;
      }
      if (x->gcovr_lines) {
        int nc = noncode(line);
        if (nc < 0)
          s->oom = 1;
        else if (nc)
          s->flags[ln] |= NONCODE;
      }
    }
    if (!nl || ln == UINT32_MAX)
      break;
    line = nl + 1;
  }
  static const char *const word[2] = {"", "BR_"};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < s->st[k].n; i++)
      diag_at(DIAG_WARNING, f->path, s->st[k].v[i].line,
              "%s_EXCL_%sSTART without a %s_EXCL_%sSTOP: nothing excluded", s->st[k].v[i].header,
              word[k], s->st[k].v[i].header, word[k]);
  free(s->st[0].v);
  free(s->st[1].v);
  return 0;
}

/* --exclude-function: the lines of the functions it names, as ranges
 * (*fr, malloc'd). 0 or -1. */
static int function_ranges(const struct cov_file *f, const struct cov_excl *x, struct range **fr,
                           size_t *n_fr) {
  *fr = NULL;
  *n_fr = 0;
  for (size_t i = 0; x->have_func_re && i < f->n_funcs; i++) {
    const struct cov_func *fn = &f->funcs[i];
    if (regexec(&x->func_re, fn->name, 0, NULL, 0) != 0)
      continue;
    uint32_t to = fn->end_line;
    if (to < fn->line) { /* not known: up to the next function */
      to = UINT32_MAX;
      for (size_t k = 0; k < f->n_funcs; k++)
        if (f->funcs[k].line > fn->line && f->funcs[k].line - 1 < to)
          to = f->funcs[k].line - 1;
    }
    struct range *g = realloc(*fr, (*n_fr + 1) * sizeof(**fr));
    if (!g) {
      return -1;
    }
    *fr = g;
    (*fr)[(*n_fr)++] = (struct range){fn->line, to};
  }
  return 0;
}

/* Whether a function of f starts on line l (its functions sorted by line). */
static int starts_function(const struct cov_file *f, uint32_t l) {
  size_t lo = 0, hi = f->n_funcs;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->funcs[mid].line < l)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < f->n_funcs && f->funcs[lo].line == l;
}

/* The flagged lines, branches, conditions and functions taken out of f. 0 or -1. */
static int apply_flags(struct cov_file *f, const struct cov_excl *x, const struct scan *sc,
                       const struct range *fr, size_t n_fr) {
#define IN_FUNC(l) in_ranges(fr, n_fr, (l))
#define FLAGS(l) (((l) < sc->n_flags ? sc->flags[l] : 0) | (IN_FUNC(l) ? EX_LINE : 0))
  size_t o = 0;
  for (size_t i = 0; i < f->n_lines; i++) {
    if ((FLAGS(f->lines[i].line) & NONCODE) && !f->lines[i].count)
      continue; /* --line-rule gcovr: never run, and no code there */
    if (x->function_lines && starts_function(f, f->lines[i].line))
      continue; /* --exclude-function-lines: no code there */
    if (!(FLAGS(f->lines[i].line) & EX_LINE))
      f->lines[o++] = f->lines[i];
    else if (cov_add_excluded(f, f->lines[i].line)) {
      return -1; /* (the lines not yet looked at are lost with the report) */
    }
  }
  f->n_lines = o;
  o = 0;
  for (size_t i = 0; i < f->n_branches; i++) {
    const struct cov_branch *b = &f->branches[i];
    int fl = FLAGS(b->line);
    if (x->function_lines && starts_function(f, b->line))
      continue; /* --exclude-function-lines: no code there, so no branch */
    if ((fl & (EX_LINE | EX_BRANCH | NO_CODE)) || (x->throw_branches && b->exception))
      f->excl_branches++;
    else
      f->branches[o++] = *b;
  }
  f->n_branches = o;
  o = 0;
  for (size_t i = 0; i < f->n_mcdc; i++) {
    if (FLAGS(f->mcdc[i].line) & (EX_LINE | EX_BRANCH))
      free(f->mcdc[i].expr);
    else
      f->mcdc[o++] = f->mcdc[i];
  }
  f->n_mcdc = o;
  o = 0;
  for (size_t i = 0; i < f->n_funcs; i++) {
    if (FLAGS(f->funcs[i].line) & EX_LINE) {
      free(f->funcs[i].name);
      f->excl_funcs++;
    } else {
      f->funcs[o++] = f->funcs[i];
    }
  }
  f->n_funcs = o;
#undef FLAGS
#undef IN_FUNC
  return 0;
}

static int exclude_file(struct cov_file *f, const struct cov_excl *x) {
  int need_source = x->markers || x->have_line_re || x->have_branch_re || x->unreachable_branches ||
                    x->gcovr_lines;
  char *src = NULL, *path = NULL;
  size_t len = 0;
  uint32_t top = max_line(f);
  struct scan s = {.x = x, .path = f->path};
  if (need_source && top) {
    if (f->path[0] != '/' && x->root && asprintf(&path, "%s/%s", x->root, f->path) < 0)
      return -1;
    src = x->source ? x->source(x->source_arg, path ? path : f->path, &len) : NULL;
    if (!src)
      src = ucov_read_text(path ? path : f->path, &len);
  }
  if (src && scan_source(f, x, &s, src, len, top))
    s.oom = 1;
  free(src);
  free(path);
  struct range *fr = NULL;
  size_t n_fr = 0;
  int r = s.oom ? -1 : function_ranges(f, x, &fr, &n_fr);
  if (!r)
    r = apply_flags(f, x, &s, fr, n_fr);
  free(fr);
  free(s.flags);
  if (!r)
    cov_sort_excluded(f);
  return r;
}

int cov_exclude(struct cov_model *m, const struct cov_excl *x) {
  if (!cov_excl_active(x))
    return 0;
  int err = 0;
  for (size_t i = 0; i < m->n_files; i++)
    err |= exclude_file(m->files[i], x);
  return err;
}
