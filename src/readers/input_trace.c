/* SPDX-License-Identifier: MIT */
/*
 * Traces (input_session.h): PC dumps (one hex PC a line, as KCOV clients
 * and syzkaller's rawcover print them) and KCOV buffer dumps (*.kcov: the
 * u64 count, then the PCs), against the trace-pc call sites of their
 * modules (--binary, or the module map): every call site is a line with
 * code, hit or not.
 */
#define _GNU_SOURCE
#include "input_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "symbols/dwarf.h"
#include "symbols/modcache.h"
#include "symbols/modmap.h"
#include "ucov/kcov.h"
#include "base/util.h"

/* Read a module map file; quiet: no message when it cannot be read. 0 or -1. */
int input_modmap_load(const char *path, struct modmap *map, int quiet) {
  FILE *f = ucov_fopen_regular(path);
  if (!f) {
    if (!quiet)
      diag_at(DIAG_ERROR, path, 0, "%s", ucov_strerror(errno));
    return -1;
  }
  struct diag_context ctx = {.quiet = quiet};
  diag_context_begin(&ctx);
  int ret = modmap_read(map, f, path);
  diag_context_end(&ctx);
  fclose(f);
  return ret ? -1 : 0;
}

/* A traced module: its call sites and DWARF (the session's module cache's),
 * and what the traces read so far counted at each site. */
struct trace_module {
  char *path;
  const struct dw_module *dw;
  const uint64_t *sites; /* calls and tail jumps (tail[i]), in address order */
  uint64_t *hits;
  const uint8_t *tail;
  long n_sites;
  const struct dw_tail_return *rets; /* calls into functions with tail jumps */
  size_t n_rets;
  const struct dw_tail_return *tail_fns; /* functions with tail jumps */
  size_t n_tail_fns;
  const uint64_t *indirect; /* returns after indirect calls */
  size_t n_indirect;
  long recent[64]; /* the sites counted last, in trace order (a ring) */
  unsigned n_recent;
  int ok, used, warned;
};

/* The trace family's state (input_session.h): the traced modules, and the
 * modules' call sites and DWARF, loaded once. */
struct trace_state {
  struct trace_module *v;
  size_t n;
  struct modcache mods;
};

/* s's trace state, made at its first use; NULL without memory (said). */
static struct trace_state *trace_of(struct input_session *s) {
  if (!s->trace && !(s->trace = calloc(1, sizeof(*s->trace))))
    UCOV_ERR("out of memory\n");
  return s->trace;
}

/* A module's call sites and DWARF, loaded once; quiet: a module without the
 * hook (libc, the vdso) is left out without a word. */
static struct trace_module *trace_module_q(struct input_session *s, const char *path, int quiet) {
  struct trace_state *ts = trace_of(s);
  if (!ts)
    return NULL;
  for (size_t i = 0; i < ts->n; i++)
    if (strcmp(ts->v[i].path, path) == 0)
      return ts->v[i].ok ? &ts->v[i] : NULL;
  struct trace_module *v = realloc(ts->v, (ts->n + 1) * sizeof(*v));
  if (!v)
    return NULL;
  ts->v = v;
  struct trace_module *t = &ts->v[ts->n++];
  memset(t, 0, sizeof(*t));
  t->path = strdup(path);
  const struct dw_hook_sites *hs;
  int st = modcache_sites(&ts->mods, path, &hs);
  if (st < 0) {
    if (st == -3 && !quiet)
      dw_say_no_hook(path);
    return NULL;
  }
  if (modcache_dwarf(&ts->mods, path, &t->dw) < 0)
    return NULL;
  t->sites = hs->at;
  t->tail = hs->tail;
  t->n_sites = (long)hs->n;
  t->rets = hs->rets;
  t->n_rets = hs->n_rets;
  t->tail_fns = hs->tail_fns;
  t->n_tail_fns = hs->n_tail_fns;
  t->indirect = hs->indirect;
  t->n_indirect = hs->n_indirect;
  if (!t->dw->has_dwarf)
    diag_at(DIAG_ERROR, path, 0, "no DWARF debug info (build with -g): its PCs have no lines");
  t->hits = calloc((size_t)t->n_sites + 1, sizeof(*t->hits));
  t->ok = t->hits != NULL;
  return t->ok ? t : NULL;
}

static struct trace_module *trace_module(struct input_session *s, const char *path) {
  return trace_module_q(s, path, 0);
}

/* The index of the first of v[0..n) (sorted) at or after a. */
static size_t lower_u64(const uint64_t *v, size_t n, uint64_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid] < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The first site at or after address a. */
static long site_from(const struct trace_module *t, uint64_t a) {
  return (long)lower_u64(t->sites, (size_t)t->n_sites, a);
}

static void count_site(struct trace_module *t, long s) {
  t->hits[s]++;
  t->recent[t->n_recent++ % 64] = s;
}

/* The function with tail jumps that holds address a, or NULL. */
static const struct dw_tail_return *tail_fn_of(const struct trace_module *t, uint64_t a) {
  size_t lo = 0, hi = t->n_tail_fns;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->tail_fns[mid].lo <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && a < t->tail_fns[lo - 1].hi ? &t->tail_fns[lo - 1] : NULL;
}

/* Count the first tail jump after site r and before site end: 0, or -1 if none. */
static int count_tail_after(struct trace_module *t, long r, long end) {
  for (long s = r + 1; s < end; s++)
    if (t->tail[s]) {
      count_site(t, s);
      return 0;
    }
  return -1;
}

/* After an indirect call, the callee is the function of the latest site
 * traced that a tail jump of its function follows: count that jump. */
static int count_indirect(struct trace_module *t, uint64_t ret) {
  size_t at = lower_u64(t->indirect, t->n_indirect, ret);
  if (at == t->n_indirect || t->indirect[at] != ret)
    return -1;
  for (unsigned k = 0; k < 64 && k < t->n_recent; k++) {
    long r = t->recent[(t->n_recent - 1 - k) % 64];
    const struct dw_tail_return *fn = tail_fn_of(t, t->sites[r]);
    if (fn && count_tail_after(t, r, site_from(t, fn->hi)) == 0)
      return 0;
  }
  return -1;
}

/*
 * Count a traced PC (a return address) at its site: the 5-byte call just
 * before it. Else, if it returns from a direct call to a function whose
 * hook call became a tail jump, at one of that function's tail jumps: the
 * first after the function's own site traced last (its path's block before
 * the jump); with no such site among the recent ones (a deduplicated or
 * sorted dump), at each of them. Else after an indirect call (above).
 * 0, or -1: no site of this module.
 */
static int count_pc(struct trace_module *t, uint64_t ret) {
  long s = site_from(t, ret - 5);
  if (s < t->n_sites && t->sites[s] == ret - 5 && !t->tail[s]) {
    count_site(t, s);
    return 0;
  }
  size_t lo = 0, hi = t->n_rets;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->rets[mid].ret < ret)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == t->n_rets || t->rets[lo].ret != ret)
    return count_indirect(t, ret);
  long first = site_from(t, t->rets[lo].lo), end = site_from(t, t->rets[lo].hi);
  for (unsigned k = 0; k < 64 && k < t->n_recent; k++) {
    long r = t->recent[(t->n_recent - 1 - k) % 64];
    if (r >= first && r < end) {
      if (count_tail_after(t, r, end) == 0)
        return 0;
      break;
    }
  }
  int found = -1;
  for (s = first; s < end; s++)
    if (t->tail[s]) {
      count_site(t, s);
      found = 0;
    }
  return found;
}

struct line_hit {
  const char *file;
  uint32_t line;
  uint64_t count;
};

static int cmp_line_hit(const void *a, const void *b) {
  const struct line_hit *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  return c ? c : (x->line < y->line ? -1 : x->line > y->line);
}

/*
 * A module's sites into the model: each site's line (the innermost frame's),
 * hit as often as its PC came back (a line with several sites: the most
 * hits); each function once, counted by its first site.
 */
static void trace_flush(struct cov_model *m, struct trace_module *t) {
  struct line_hit *lh = malloc(((size_t)t->n_sites + 1) * sizeof(*lh));
  size_t n = 0;
  char **seen = NULL;
  size_t n_seen = 0;
  long no_line = 0;
  for (long i = 0; lh && i < t->n_sites; i++) {
    struct dw_frame fr[16];
    if (dw_lookup(t->dw, t->sites[i], fr, 16) <= 0 || !fr[0].file || !fr[0].line) {
      no_line++;
      continue;
    }
    lh[n++] = (struct line_hit){fr[0].file, fr[0].line, t->hits[i]};
    if (!fr[0].function)
      continue;
    size_t k = 0;
    while (k < n_seen && strcmp(seen[k], fr[0].function) != 0)
      k++;
    if (k < n_seen)
      continue;
    char **ns = realloc(seen, (n_seen + 1) * sizeof(*ns));
    if (!ns)
      continue;
    seen = ns;
    seen[n_seen++] = (char *)fr[0].function;
    struct cov_file *f = cov_file(m, fr[0].fn_file ? fr[0].fn_file : fr[0].file, NULL);
    if (f)
      cov_add_func(f, fr[0].function, fr[0].fn_line ? fr[0].fn_line : fr[0].line, t->hits[i]);
  }
  if (n > 1)
    qsort(lh, n, sizeof(*lh), cmp_line_hit);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    uint64_t most = 0;
    for (; j < n && !cmp_line_hit(&lh[i], &lh[j]); j++)
      most = lh[j].count > most ? lh[j].count : most;
    struct cov_file *f = cov_file(m, lh[i].file, NULL);
    if (f)
      cov_add_line(f, lh[i].line, most);
    i = j;
  }
  if (no_line && t->dw->has_dwarf && !t->warned) {
    diag_at(DIAG_ERROR, t->path, 0, "%ld of %ld trace-pc call sites have no line information%s",
            no_line, t->n_sites, no_line == t->n_sites ? " (build with -g)" : "");
    t->warned = 1;
  }
  free(seen);
  free(lh);
  memset(t->hits, 0, ((size_t)t->n_sites + 1) * sizeof(*t->hits));
}

/* The PCs of a dump, one at a time: text (hex per line) or a KCOV buffer. */
struct pc_reader {
  FILE *f;
  const char *path;
  int kcov;
  uint64_t words, limit; /* .kcov: words read, and the count word's PCs */
  char *line;
  size_t cap;
  unsigned long lineno;
};

/* The next PC: 1; 0 for a line that is none (said, the first 3 counted in
 * *bad); -1 at the end. */
static int next_pc(struct pc_reader *r, uint64_t *pc, int *bad) {
  if (r->kcov) {
    if (fread(pc, 8, 1, r->f) != 1)
      return -1;
    if (r->words++ == 0) { /* the count word: PCs after it are stale */
      r->limit = *pc;
      return 0;
    }
    return r->words - 1 > r->limit ? -1 : 1;
  }
  if (getline(&r->line, &r->cap, r->f) < 0)
    return -1;
  r->lineno++;
  char *p = r->line, *end;
  while (*p == ' ' || *p == '\t')
    p++;
  if (!*p || *p == '\n' || *p == '#')
    return 0;
  errno = 0;
  *pc = strtoull(p, &end, 16);
  if (end == p || errno) {
    if ((*bad)++ < 3)
      diag_at(DIAG_ERROR, r->path, r->lineno, "not a hexadecimal PC");
    return 0;
  }
  return 1;
}

/* Every instrumented module counts, hit or not: the binaries, or the
 * mapped files that call the hook. */
static void modules_used(struct input_session *s, const struct modmap *map) {
  const struct input_opts *o = s->o;
  struct trace_state *ts = s->trace;
  for (size_t i = 0; i < ts->n; i++)
    ts->v[i].used = 0, ts->v[i].n_recent = 0;
  for (int i = 0; !map && i < o->n_binaries; i++) {
    struct trace_module *t = trace_module(s, o->binaries[i]);
    if (t)
      t->used = 1;
  }
  for (size_t i = 0; map && i < map->count; i++) {
    const struct modmap_entry *e = &map->entries[i];
    struct trace_module *t =
        e->perms[2] == 'x' && e->path[0] == '/' ? trace_module_q(s, e->path, 1) : NULL;
    if (t)
      t->used = 1;
  }
}

int input_pcs_read(struct input_session *s, struct cov_model *m, const char *path,
                   const char *modules) {
  const struct input_opts *o = s->o;
  struct modmap map = {0};
  int have_map = 0, bad = 0;
  if (modules) {
    if (input_modmap_load(modules, &map, 0))
      return 1;
    have_map = 1;
  } else if (!o->n_binaries) {
    diag_at(DIAG_ERROR, path, 0, "PCs need --binary PROG or --modules MAP");
    return 1;
  }
  struct trace_state *ts = trace_of(s);
  struct pc_reader r = {.f = ts ? ucov_fopen_regular(path) : NULL, .path = path};
  if (!r.f) {
    diag_at(DIAG_ERROR, path, 0, "%s", ucov_strerror(errno));
    if (have_map)
      modmap_free(&map);
    return 1;
  }
  modules_used(s, have_map ? &map : NULL);
  r.kcov = ucov_ends_with(path, ".kcov");
  uint64_t total = 0, unknown = 0, pc;
  for (int got; (got = next_pc(&r, &pc, &bad)) >= 0;) {
    if (!got)
      continue;
    pc = KCOV_RECORD_PC(pc); /* (a kernel's PCs keep their top byte) */
    total++;
    const char *mod = o->n_binaries ? o->binaries[0] : NULL;
    uint64_t addr = pc;
    if (have_map) {
      const struct modmap_entry *e = modmap_find(&map, pc);
      mod = e ? e->path : NULL;
      addr = e ? pc - e->bias : 0;
    }
    struct trace_module *t = mod ? trace_module(s, mod) : NULL;
    if (!t || count_pc(t, addr)) {
      unknown++;
      continue;
    }
    t->used = 1;
  }
  free(r.line);
  fclose(r.f);
  for (size_t i = 0; i < ts->n; i++)
    if (ts->v[i].ok && ts->v[i].used)
      trace_flush(m, &ts->v[i]);
  if (unknown)
    diag_at(DIAG_ERROR, path, 0, "%" PRIu64 " of %" PRIu64 " PCs are no trace-pc call site of %s%s",
            unknown, total, have_map ? "their module" : o->binaries[0],
            have_map ? "" : " (another build? PIE or shared objects need --modules)");
  if (total && unknown == total)
    bad++;
  if (have_map)
    modmap_free(&map);
  return bad;
}

/* The traced modules forgotten, their sites and DWARF freed. */
void input_trace_free(struct input_session *s) {
  struct trace_state *ts = s->trace;
  if (!ts)
    return;
  for (size_t i = 0; i < ts->n; i++) {
    struct trace_module *t = &ts->v[i];
    free(t->hits);
    free(t->path);
  }
  free(ts->v);
  modcache_free(&ts->mods);
  free(ts);
  s->trace = NULL;
}
