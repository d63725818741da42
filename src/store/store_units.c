/* SPDX-License-Identifier: MIT */
/*
 * The gcov units of the store (see store_int.h): what adds across runs.
 *
 * gcov derives a line's count from the unit's arc counters with a rule that
 * does not add: the loops that stay on a line count once per turn of their
 * smallest arc, and the smallest arc of a sum is not the sum of the
 * smallest. So the store keeps, besides each push's line counts (for `who`,
 * `tests-for` and the history), each unit's notes and its counters summed
 * over the pushes, and a report solves the unit again from the sums: any
 * partition of the same work gives the lines of one run.
 */
#define _GNU_SOURCE
#include "db.h"
#include "store_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/gcovn.h"
#include "base/md5.h"
#include "base/util.h"

struct store_unit {
  char *gcno;
  char **gcdas;
  size_t n_gcdas, cap_gcdas;
  char **pairs; /* "raw\tpath" ("raw\t": left out), as path_seen heard them */
  size_t n_pairs, cap_pairs;
  int64_t id; /* in gcov_units, once pushed */
};

/* ---- collecting (the push's inputs being read) ---- */

static int add_str(char ***v, size_t *n, size_t *cap, const char *s) {
  char *c = strdup(s);
  if (!c || UCOV_GROW(*v, *cap, *n, 4)) {
    free(c);
    return -1;
  }
  (*v)[(*n)++] = c;
  return 0;
}

static int units_index(struct store_units *u) {
  size_t n = u->n_slots ? u->n_slots * 2 : 64;
  size_t *s = calloc(n, sizeof(*s));
  if (!s)
    return -1;
  for (size_t i = 0; i < u->n; i++) {
    size_t k = ucov_hash_str(u->v[i].gcno) & (n - 1);
    while (s[k])
      k = (k + 1) & (n - 1);
    s[k] = i + 1;
  }
  free(u->slots);
  u->slots = s;
  u->n_slots = n;
  return 0;
}

int store_units_add(void *arg, const char *gcno, const char *gcda) {
  struct store_units *u = arg;
  if (u->n_slots < 2 * (u->n + 1) && units_index(u))
    return u->oom = -1;
  size_t k = ucov_hash_str(gcno) & (u->n_slots - 1);
  for (; u->slots[k]; k = (k + 1) & (u->n_slots - 1))
    if (!strcmp(u->v[u->slots[k] - 1].gcno, gcno))
      break;
  if (!u->slots[k]) {
    if (UCOV_GROW(u->v, u->cap, u->n, 16))
      return u->oom = -1;
    struct store_unit *n = &u->v[u->n];
    memset(n, 0, sizeof(*n));
    if (!(n->gcno = strdup(gcno)))
      return u->oom = -1;
    u->slots[k] = ++u->n;
  }
  u->cur = u->slots[k] - 1;
  struct store_unit *x = &u->v[u->cur];
  if (gcda && add_str(&x->gcdas, &x->n_gcdas, &x->cap_gcdas, gcda))
    return u->oom = -1;
  return 0;
}

void store_units_path(void *arg, const char *raw, const char *path) {
  struct store_units *u = arg;
  if (u->cur >= u->n)
    return;
  struct store_unit *x = &u->v[u->cur];
  char *pair = NULL;
  if (asprintf(&pair, "%s\t%s", raw, path ? path : "") < 0) {
    u->oom = -1;
    return;
  }
  for (size_t i = x->n_pairs; i-- > 0;)
    if (!strcmp(x->pairs[i], pair)) { /* (a source told again) */
      free(pair);
      return;
    }
  if (UCOV_GROW(x->pairs, x->cap_pairs, x->n_pairs, 8)) {
    free(pair);
    u->oom = -1;
    return;
  }
  x->pairs[x->n_pairs++] = pair;
}

void store_units_free(struct store_units *u) {
  for (size_t i = 0; i < u->n; i++) {
    struct store_unit *x = &u->v[i];
    free(x->gcno);
    for (size_t k = 0; k < x->n_gcdas; k++)
      free(x->gcdas[k]);
    free(x->gcdas);
    for (size_t k = 0; k < x->n_pairs; k++)
      free(x->pairs[k]);
    free(x->pairs);
  }
  free(u->v);
  free(u->slots);
  memset(u, 0, sizeof(*u));
}

/* ---- pushing ---- */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *hex_of(const unsigned char *b, size_t n) {
  static const char dig[] = "0123456789abcdef";
  char *h = n < SIZE_MAX / 2 ? malloc(2 * n + 1) : NULL;
  if (!h)
    return NULL;
  for (size_t i = 0; i < n; i++) {
    h[2 * i] = dig[b[i] >> 4];
    h[2 * i + 1] = dig[b[i] & 15];
  }
  h[2 * n] = 0;
  return h;
}

static int nibble(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* hex back to bytes (*n of them), NULL if it is not hex or no memory */
static unsigned char *bytes_of(const char *h, size_t *n) {
  size_t l = strlen(h);
  unsigned char *b = l % 2 ? NULL : malloc(l / 2 + 1);
  for (size_t i = 0; b && i < l / 2; i++) {
    int hi = nibble(h[2 * i]), lo = nibble(h[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(b);
      return NULL;
    }
    b[i] = (unsigned char)(hi << 4 | lo);
  }
  *n = l / 2;
  return b;
}

/* The unit's notes stored (once per content) and the unit itself (notes,
 * path, where its sources went), its id in x->id. */
static int push_unit(struct store *s, struct store_unit *x) {
  size_t nl = 0;
  unsigned char *nb = (unsigned char *)ucov_read_text(x->gcno, &nl);
  if (!nb)
    return SAY_AT(x->gcno, "%s: its counters are not stored", strerror(errno ? errno : EIO));
  struct md5 c;
  char nh[33], mh[33];
  md5_init(&c);
  md5_update(&c, nb, nl);
  md5_hex(&c, nh);
  const char *const key[] = {nh};
  int have = store_q1(s, "SELECT 1 FROM gcov_notes WHERE hash = $1", key, 1, NULL, 0, NULL);
  if (have == 0) {
    char *hex = hex_of(nb, nl);
    const char *const row[] = {nh, hex};
    have = hex ? store_q1(s,
                          "INSERT INTO gcov_notes (hash, body) VALUES ($1, $2) ON CONFLICT "
                          "(hash) DO NOTHING",
                          row, 2, NULL, 0, NULL)
               : -2;
    free(hex);
  }
  free(nb);
  if (have < 0)
    return have == -2 ? SAY("out of memory") : store_fail(s, "notes");
  /* where its sources went: sorted, a line each */
  if (x->n_pairs > 1)
    qsort(x->pairs, x->n_pairs, sizeof(char *), cmp_str);
  size_t ml = 1;
  for (size_t i = 0; i < x->n_pairs; i++)
    ml += strlen(x->pairs[i]) + 1;
  char *map = malloc(ml), *w = map;
  if (!map)
    return SAY("out of memory");
  for (size_t i = 0; i < x->n_pairs; i++)
    w += sprintf(w, "%s\n", x->pairs[i]);
  *w = 0;
  md5_init(&c);
  md5_update(&c, map, strlen(map));
  md5_hex(&c, mh);
  const char *const u[] = {nh, x->gcno, mh, map};
  int r = store_q1(s,
                   "INSERT INTO gcov_units (notes_hash, gcno, map_hash, map) VALUES ($1, $2, $3, "
                   "$4) ON CONFLICT (notes_hash, gcno, map_hash) DO NOTHING",
                   u, 4, NULL, 0, NULL) < 0 ||
                  store_q1(s,
                           "SELECT id FROM gcov_units WHERE notes_hash = $1 AND gcno = $2 AND "
                           "map_hash = $3",
                           u, 3, NULL, 0, &x->id) != 1
              ? -1
              : 0;
  free(map);
  return r ? store_fail(s, "units") : 0;
}

/* One function's counters staged (the nonzero ones, and idx -1 when a
 * .gcda had a record of it). */
struct stager {
  struct store *s;
  int64_t unit;
  int err;
};

static int stage_fn(void *arg, uint32_t ident, int has_counts, const int64_t *counts, size_t n) {
  struct stager *g = arg;
  const struct db_ops *o = g->s->db->ops;
  char a[24], b[24], c[24], d[24];
  snprintf(a, sizeof(a), "%" PRId64, g->unit);
  snprintf(b, sizeof(b), "%" PRIu32, ident);
  for (size_t i = 0; i < n + 1; i++) {
    int64_t v = i < n ? counts[i] : 0;
    if (i < n ? v == 0 : !has_counts)
      continue;
    snprintf(c, sizeof(c), "%" PRId64, i < n ? (int64_t)i : -1);
    snprintf(d, sizeof(d), "%" PRId64, v);
    const char *row[] = {a, b, c, d};
    if (o->copy_row(g->s->db, row, 4))
      return g->err = -1;
  }
  return 0;
}

static int push_units(struct store *s, struct store_unit **by, size_t n, int64_t build,
                      int64_t ctx);

static int cmp_unit(const void *a, const void *b) {
  return strcmp((*(struct store_unit *const *)a)->gcno, (*(struct store_unit *const *)b)->gcno);
}

int units_push(struct store *s, const struct store_units *us, int64_t build, int64_t ctx) {
  if (us->oom)
    return SAY("out of memory");
  /* by notes path: concurrent pushers of the same units take their rows'
   * locks in one order (no deadlock) */
  struct store_unit **by = malloc((us->n + 1) * sizeof(*by));
  if (!by)
    return SAY("out of memory");
  for (size_t i = 0; i < us->n; i++)
    by[i] = &us->v[i];
  if (us->n > 1)
    qsort(by, us->n, sizeof(*by), cmp_unit);
  int r = push_units(s, by, us->n, build, ctx);
  free(by);
  return r;
}

static int push_units(struct store *s, struct store_unit **by, size_t n, int64_t build,
                      int64_t ctx) {
  const struct db_ops *o = s->db->ops;
  for (size_t i = 0; i < n; i++) {
    struct store_unit *x = by[i];
    if (push_unit(s, x))
      return -1;
    int64_t ids[] = {build, ctx, x->id, x->n_gcdas > 0};
    if (store_q1(s,
                 "INSERT INTO unit_runs (build_id, context_id, unit_id, had_data) VALUES ($1, $2, "
                 "$3, $4) ON CONFLICT (build_id, context_id, unit_id) DO UPDATE SET had_data = "
                 "CASE WHEN unit_runs.had_data > excluded.had_data THEN unit_runs.had_data ELSE "
                 "excluded.had_data END",
                 NULL, 0, ids, 4, NULL) < 0)
      return store_fail(s, "units run");
  }
  /* the counters, every unit's at once (no other statement while COPY runs) */
  if (o->copy_begin(s->db, "stage_arcs", 4))
    return store_fail(s, "staging counters");
  for (size_t i = 0; i < n; i++) {
    struct store_unit *x = by[i];
    struct stager g = {s, x->id, 0};
    if (gcovn_counters(x->gcno, (const char *const *)x->gcdas, x->n_gcdas, stage_fn, &g)) {
      o->copy_end(s->db);
      return g.err ? store_fail(s, "staging counters") : -1; /* (said) */
    }
  }
  if (o->copy_end(s->db))
    return store_fail(s, "staging counters");
  char upd[256], sql[1024];
  snprintf(upd, sizeof(upd), store_sat, "unit_counts", "count");
  snprintf(sql, sizeof(sql),
           "INSERT INTO unit_counts (build_id, context_id, unit_id, ident, idx, count) SELECT "
           "$1, $2, unit, ident, idx, count FROM stage_arcs WHERE true ORDER BY unit, ident, idx "
           "ON CONFLICT (build_id, context_id, unit_id, ident, idx) DO UPDATE SET count = %s",
           upd);
  int64_t ids[] = {build, ctx};
  if (store_q1(s, sql, NULL, 0, ids, 2, NULL) < 0)
    return store_fail(s, "counters");
  return 0;
}

/* ---- reading ---- */

struct arc_row {
  int64_t unit, ident, idx, count;
};

/* The rows of one unit, for gcovn_read_counted's fill. */
struct filler {
  const struct arc_row *v;
  size_t n;
};

static int fill_fn(void *arg, uint32_t ident, int64_t *counts, size_t n) {
  const struct filler *f = arg;
  size_t lo = 0, hi = f->n;
  while (lo < hi) { /* the first row of ident (rows by ident, then idx) */
    size_t mid = lo + (hi - lo) / 2;
    if (f->v[mid].ident < (int64_t)ident)
      lo = mid + 1;
    else
      hi = mid;
  }
  int had = 0;
  for (size_t i = lo; i < f->n && f->v[i].ident == (int64_t)ident; i++) {
    if (f->v[i].idx == -1) {
      had = 1;
      continue;
    }
    if (f->v[i].idx < 0 || (uint64_t)f->v[i].idx >= n)
      return -1;
    counts[f->v[i].idx] = f->v[i].count;
    had = 1;
  }
  return had;
}

int store_cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
  return x < y ? -1 : x > y;
}

/* "raw\tpath" lines: the path raw went to ("" left out), NULL if not told */
static const char *mapped(char **pairs, size_t n, const char *raw) {
  size_t rl = strlen(raw), lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strncmp(pairs[mid], raw, rl);
    if (c == 0)
      c = pairs[mid][rl] == '\t' ? 0 : (unsigned char)pairs[mid][rl] < '\t' ? -1 : 1;
    if (c == 0)
      return pairs[mid] + rl + 1;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* One unit solved from its rows into m's files of the take set. */
static int read_unit(struct store *s, int64_t id, int had_data, const struct arc_row *rows,
                     size_t n_rows, struct cov_model *m, struct cov_file **take, int *filled,
                     size_t n_take) {
  const struct db_ops *o = s->db->ops;
  struct db_stmt *st = o->prepare(s->db, "SELECT u.gcno, u.map, n.body FROM gcov_units u JOIN "
                                         "gcov_notes n ON n.hash = u.notes_hash WHERE u.id = $1");
  if (!st)
    return store_fail(s, "units");
  o->bind_int(st, 1, id);
  char *gcno = NULL, *map = NULL;
  unsigned char *notes = NULL;
  size_t nl = 0;
  int r = o->step(st);
  if (r == 1) {
    const char *g = o->col_text(st, 0), *mp = o->col_text(st, 1), *b = o->col_text(st, 2);
    gcno = g ? strdup(g) : NULL;
    map = mp ? strdup(mp) : NULL;
    notes = b ? bytes_of(b, &nl) : NULL;
  }
  o->finalize(st);
  if (r != 1 || !gcno || !map || !notes) {
    free(gcno);
    free(map);
    free(notes);
    return r < 0 ? store_fail(s, "units")
                 : SAY("unit %" PRId64 ": its notes are not in the store", id);
  }
  /* its map, a pair a line (sorted when pushed) */
  char **pairs = NULL;
  size_t n_pairs = 0, cap = 0;
  for (char *save = NULL, *l = strtok_r(map, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    if (!UCOV_GROW(pairs, cap, n_pairs, 16))
      pairs[n_pairs++] = l;
  struct cov_model u;
  cov_init(&u);
  struct filler fl = {rows, n_rows};
  int ret = gcovn_read_counted(&u, gcno, notes, nl, had_data, fill_fn, &fl);
  for (size_t i = 0; !ret && i < u.n_files; i++) {
    const char *to = mapped(pairs, n_pairs, u.files[i]->path);
    if (to && !*to)
      continue; /* left out when pushed */
    struct cov_file *f = cov_file_there(m, to ? to : u.files[i]->path);
    struct cov_file **hit = f ? bsearch(&f, take, n_take, sizeof(*take), store_cmp_ptr) : NULL;
    if (!hit)
      continue; /* (a file some of whose counts came otherwise: its line rows) */
    if (cov_merge_file(f, u.files[i]))
      ret = SAY("out of memory");
    filled[hit - take] = 1;
  }
  cov_free(&u);
  free(pairs);
  free(map);
  free(notes);
  free(gcno);
  return ret;
}

int units_read(struct store *s, const char *where, const struct store_filter *f, int64_t build,
               struct cov_model *m, struct cov_file **take, int *filled, size_t n_take) {
  const struct db_ops *o = s->db->ops;
  if (n_take > 1)
    qsort(take, n_take, sizeof(*take), store_cmp_ptr);
  memset(filled, 0, n_take * sizeof(*filled));
  /* the units run in the selection, then all their summed counters (read
   * whole: PostgreSQL's rows come one statement at a time) */
  char sql[1024];
  int64_t(*units)[2] = NULL;
  struct arc_row *rows = NULL;
  size_t n_units = 0, cap_units = 0, n_rows = 0, cap_rows = 0;
  int r = 0;
  snprintf(sql, sizeof(sql),
           "SELECT l.unit_id, MAX(l.had_data) FROM unit_runs l JOIN contexts c ON c.id = "
           "l.context_id %s GROUP BY l.unit_id ORDER BY l.unit_id",
           where);
  struct db_stmt *st = o->prepare(s->db, sql);
  if (!st)
    return store_fail(s, "units");
  store_bind_filter(s, st, f, 1, build);
  while ((r = o->step(st)) == 1) {
    if (UCOV_GROW(units, cap_units, n_units, 64)) {
      r = -2;
      break;
    }
    units[n_units][0] = o->col_int(st, 0);
    units[n_units++][1] = o->col_int(st, 1);
  }
  o->finalize(st);
  if (r == 0) {
    snprintf(sql, sizeof(sql),
             "SELECT l.unit_id, l.ident, l.idx, SUMSAT(l.count) FROM unit_counts l JOIN contexts "
             "c ON c.id = l.context_id %s GROUP BY l.unit_id, l.ident, l.idx ORDER BY l.unit_id, "
             "l.ident, l.idx",
             where);
    if (!(st = o->prepare(s->db, sql))) {
      free(units);
      return store_fail(s, "counters");
    }
    store_bind_filter(s, st, f, 1, build);
    while ((r = o->step(st)) == 1) {
      if (UCOV_GROW(rows, cap_rows, n_rows, 1024)) {
        r = -2;
        break;
      }
      rows[n_rows++] = (struct arc_row){o->col_int(st, 0), o->col_int(st, 1), o->col_int(st, 2),
                                        o->col_int(st, 3)};
    }
    o->finalize(st);
  }
  if (r != 0) {
    free(units);
    free(rows);
    return r == -2 ? SAY("out of memory") : store_fail(s, "counters");
  }
  size_t k = 0;
  for (size_t i = 0; r == 0 && i < n_units; i++) {
    while (k < n_rows && rows[k].unit < units[i][0])
      k++;
    size_t e = k;
    while (e < n_rows && rows[e].unit == units[i][0])
      e++;
    r = read_unit(s, units[i][0], units[i][1] != 0, rows + k, e - k, m, take, filled, n_take);
    k = e;
  }
  free(units);
  free(rows);
  return r;
}
