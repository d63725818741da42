/* SPDX-License-Identifier: MIT */
/*
 * .gcno/.gcda read natively (see gcov_native.h). The computation follows the
 * compiler's own tool step for step, because its output is the reference
 * users compare with. For gcc's notes, gcov's: arcs solved in the order gcov
 * solves them, a line's blocks and branches collected the way gcov collects
 * them (duplicates included), the loops on a line counted with the same
 * circuit enumeration (Hawick and James). For clang's, llvm-cov gcov's: tree
 * arcs by propagation over the spanning tree, every line of a block counted,
 * loops by cycle cancelling. So every count equals the tool's, not just the
 * totals.
 */
#define _GNU_SOURCE
#include "gcov_native.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define GCNO_MAGIC 0x67636e6fu
#define GCDA_MAGIC 0x67636461u
#define TAG_FUNCTION 0x01000000u
#define TAG_BLOCKS 0x01410000u
#define TAG_ARCS 0x01430000u
#define TAG_LINES 0x01450000u
#define TAG_ARC_COUNTS 0x01a10000u

#define ARC_ON_TREE 1u
#define ARC_FAKE 2u
#define ARC_FALLTHROUGH 4u

#define MAX_FILE (1ull << 31) /* a notes or counts file larger than this is refused */
#define MAX_LINE (1u << 24)   /* line numbers past this are corrupt */

/* Wrapping arithmetic on gcov's signed counts: corrupt counts must not be UB. */
static int64_t add64(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t sub64(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* ---- the graph ---- */

struct block;

struct arc {
  struct block *src, *dst;
  struct arc *succ_next, *pred_next;
  int64_t count, cs_count;
  unsigned count_valid : 1, on_tree : 1, fake : 1, fall_through : 1, is_throw : 1,
      is_call_non_return : 1, is_unconditional : 1;
};

struct location {
  uint32_t src; /* source index */
  uint32_t *lines;
  size_t n, cap;
};

struct block {
  struct arc *succ, *pred;
  int64_t num_succ, num_pred;
  int64_t count;
  struct block *chain;
  struct location *locs;
  size_t n_locs, cap_locs;
  uint32_t number;
  unsigned count_valid : 1, valid_chain : 1, invalid_chain : 1;
  /* llvm-cov's: propagation and cycle search */
  unsigned visited : 1, traversable : 1;
  struct arc *incoming;
};

struct ptrvec {
  void **v;
  size_t n, cap;
};

struct line {
  int64_t count;
  struct ptrvec blocks;   /* struct block * (the blocks that end on the line) */
  struct ptrvec branches; /* struct arc * */
  unsigned exists : 1;
};

/* Lines of a source file or of a group function: a dense index into records. */
struct lines {
  uint32_t *slot; /* line number -> record index + 1 */
  size_t size;    /* numbers 0 .. size-1 */
  struct line *rec;
  size_t n_rec, cap_rec;
};

struct function {
  char *name;
  uint32_t ident, lineno_checksum, cfg_checksum, artificial, src;
  uint32_t start_line, start_column, end_line, end_column;
  struct block *blocks;
  size_t n_blocks;
  size_t n_counts; /* arcs not on the spanning tree: the counted ones */
  int64_t *counts;
  struct ptrvec arcs; /* every arc, in file order */
  unsigned is_group : 1, solved : 1, has_counts : 1;
  struct lines lines; /* group functions only */
};

struct source {
  char *name;
  struct lines lines;
  struct ptrvec fns; /* struct function * starting in this file */
};

struct unit {
  char *cwd;
  uint32_t version, stamp;
  int bytes; /* lengths in bytes (GCC 12 and later) */
  int llvm;  /* clang's format ("408*"): llvm-cov gcov's counting */
  int vnum;  /* its version as a number: 408 */
  struct function *fns;
  size_t n_fns, cap_fns;
  struct source *srcs;
  size_t n_srcs, cap_srcs;
  size_t last_src;
  char *last_raw; /* the file name the last lines record gave, as spelled there */
  size_t raw_src; /* and its source */
  /* the graph's small arrays live in an arena, freed at once: a unit of
   * SQLite has a million of them, and malloc/free were most of the time */
  struct ptrvec chunks;
  char *cur;
  size_t left;
  char *err;
  size_t errlen;
};

/* n bytes of the unit's arena (not zeroed: arena0 zeroes), or NULL without memory. */
static void *arena(struct unit *u, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n > u->left) {
    /* chunks of 2 MiB, doubling to 32, on huge pages where the kernel has
     * them: touching 30 MiB of small pages was half of reading SQLite */
    size_t chunk = (size_t)2 << (u->chunks.n < 4 ? u->chunks.n : 4) << 20;
    size_t size = n > chunk ? n : chunk;
    void *b = NULL;
    if (posix_memalign(&b, (size_t)2 << 20, size))
      b = NULL;
#ifdef MADV_HUGEPAGE
    if (b)
      madvise(b, size, MADV_HUGEPAGE);
#endif
    if (!b || UCOV_GROW(u->chunks.v, u->chunks.cap, u->chunks.n, 64)) {
      free(b);
      return NULL;
    }
    u->chunks.v[u->chunks.n++] = b;
    if (n == size) /* a large one: the current chunk goes on */
      return b;
    u->cur = b;
    u->left = size;
  }
  void *p = u->cur;
  u->cur += n;
  u->left -= n;
  return p;
}

/* Room for element n of an arena array (doubled; the old copy is left). 0 or -1. */
static int agrow(struct unit *u, void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 4;
  if (c > ((size_t)1 << 40) / elem)
    return -1;
  void *p = arena(u, c * elem);
  if (!p)
    return -1;
  if (n)
    memcpy(p, *arr, n * elem);
  *arr = p;
  *cap = c;
  return 0;
}

static void *arena0(struct unit *u, size_t n) {
  void *p = arena(u, n);
  if (p)
    memset(p, 0, n);
  return p;
}

static int apush(struct unit *u, struct ptrvec *v, void *p) {
  if (agrow(u, (void **)&v->v, &v->cap, v->n, sizeof(void *)))
    return -1;
  v->v[v->n++] = p;
  return 0;
}

static int say(struct unit *u, const char *fmt, const char *what) {
  snprintf(u->err, u->errlen, fmt, what);
  return -1;
}

static int pv_push(struct ptrvec *v, void *p) {
  if (UCOV_GROW(v->v, v->cap, v->n, 4))
    return -1;
  v->v[v->n++] = p;
  return 0;
}

static int pv_has(const struct ptrvec *v, const void *p) {
  for (size_t i = 0; i < v->n; i++)
    if (v->v[i] == p)
      return 1;
  return 0;
}

/* The record of line ln (made, with the index grown to hold it); NULL without memory. */
static struct line *line_at(struct lines *l, uint32_t ln) {
  if (ln >= l->size)
    return NULL;
  if (!l->slot[ln]) {
    if (UCOV_GROW(l->rec, l->cap_rec, l->n_rec, 64))
      return NULL;
    memset(&l->rec[l->n_rec], 0, sizeof(l->rec[0]));
    l->slot[ln] = (uint32_t)++l->n_rec;
  }
  return &l->rec[l->slot[ln] - 1];
}

static struct line *line_if(const struct lines *l, uint32_t ln) {
  return ln < l->size && l->slot[ln] ? &l->rec[l->slot[ln] - 1] : NULL;
}

static int lines_resize(struct lines *l, size_t size) {
  if (size <= l->size)
    return 0;
  uint32_t *s = realloc(l->slot, size * sizeof(*s));
  if (!s)
    return -1;
  memset(s + l->size, 0, (size - l->size) * sizeof(*s));
  l->slot = s;
  l->size = size;
  return 0;
}

static void lines_free(struct lines *l) {
  free(l->rec);
  free(l->slot);
}

static void unit_free(struct unit *u) {
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    free(fn->name);
    lines_free(&fn->lines);
  }
  free(u->fns);
  for (size_t i = 0; i < u->n_srcs; i++) {
    free(u->srcs[i].name);
    lines_free(&u->srcs[i].lines);
    free(u->srcs[i].fns.v);
  }
  free(u->srcs);
  free(u->last_raw);
  for (size_t i = 0; i < u->chunks.n; i++)
    free(u->chunks.v[i]);
  free(u->chunks.v);
  free(u->cwd);
}

/* A source name as gcov keys it: "." components and repeated slashes gone. */
static char *canonical(const char *name) {
  size_t n = strlen(name);
  char *out = malloc(n + 1), *o = out;
  if (!out)
    return NULL;
  const char *p = name;
  if (*p == '/')
    *o++ = '/';
  while (*p) {
    while (*p == '/')
      p++;
    const char *e = p;
    while (*e && *e != '/')
      e++;
    size_t len = (size_t)(e - p);
    if (len && !(len == 1 && p[0] == '.')) {
      if (o > out && o[-1] != '/')
        *o++ = '/';
      memcpy(o, p, len);
      o += len;
    }
    p = e;
  }
  *o = 0;
  return out;
}

/* The index of a source (added if new), or -1 without memory. */
static long find_source(struct unit *u, const char *name) {
  if (!name)
    name = "<unknown>";
  char *canon = canonical(name);
  if (!canon)
    return -1;
  if (u->last_src < u->n_srcs && strcmp(u->srcs[u->last_src].name, canon) == 0) {
    free(canon);
    return (long)u->last_src;
  }
  for (size_t i = 0; i < u->n_srcs; i++)
    if (strcmp(u->srcs[i].name, canon) == 0) {
      free(canon);
      u->last_src = i;
      return (long)i;
    }
  if (UCOV_GROW(u->srcs, u->cap_srcs, u->n_srcs, 8)) {
    free(canon);
    return -1;
  }
  memset(&u->srcs[u->n_srcs], 0, sizeof(u->srcs[0]));
  u->srcs[u->n_srcs].name = canon;
  u->last_src = u->n_srcs;
  return (long)u->n_srcs++;
}

/* ---- reading ---- */

struct rd {
  const unsigned char *b;
  size_t n, at;
  int swap, bad;
};

static uint32_t rd_u32(struct rd *r) {
  if (r->n - r->at < 4) {
    r->bad = 1;
    r->at = r->n;
    return 0;
  }
  uint32_t v;
  memcpy(&v, r->b + r->at, 4);
  r->at += 4;
  return r->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd_u64(struct rd *r) {
  uint64_t lo = rd_u32(r);
  return lo | (uint64_t)rd_u32(r) << 32;
}

/* A string (a copy): length in bytes with its NUL (GCC 12 and later), or
 * in words of NUL-padded text. *out NULL: the empty marker (length 0). */
static int rd_str(struct rd *r, int bytes, char **out) {
  uint32_t len = rd_u32(r);
  *out = NULL;
  if (r->bad)
    return -1;
  if (!len)
    return 0;
  size_t nb = bytes ? len : (size_t)len * 4;
  if (nb > r->n - r->at) {
    r->bad = 1;
    return -1;
  }
  *out = strndup((const char *)r->b + r->at, nb);
  r->at += nb;
  return *out ? 0 : -1;
}

/*
 * The next record: its tag, its length word, and the payload bytes that
 * follow (a negative length, all-zero counters in a .gcda, has none). 1; 0
 * at the end (a 0 tag, or the file's end); -1 if truncated or longer than
 * the file.
 */
static int next_record(struct rd *r, int bytes, uint32_t *tag, uint32_t *length, size_t *payload) {
  if (r->n - r->at < 4)
    return r->n == r->at ? 0 : -1;
  if (!(*tag = rd_u32(r)))
    return 0;
  *length = rd_u32(r);
  *payload = (int32_t)*length < 0 ? 0 : bytes ? *length : (size_t)*length * 4;
  return r->bad || *payload > r->n - r->at ? -1 : 1;
}

static int load(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen) {
  FILE *f = ucov_fopen_regular(path);
  struct stat st;
  if (!f || fstat(fileno(f), &st)) {
    snprintf(err, errlen, "%s: %s", path, ucov_strerror(errno));
    if (f)
      fclose(f);
    return -1;
  }
  if ((unsigned long long)st.st_size > MAX_FILE) {
    snprintf(err, errlen, "%s: larger than 2 GiB: not a coverage file", path);
    fclose(f);
    return -1;
  }
  size_t n = (size_t)st.st_size;
  *buf = malloc(n + 1);
  if (!*buf || fread(*buf, 1, n, f) != n) {
    snprintf(err, errlen, "%s: %s", path, *buf ? "short read" : "out of memory");
    free(*buf);
    *buf = NULL;
    fclose(f);
    return -1;
  }
  fclose(f);
  *len = n;
  return 0;
}

/* gcc's version word: "B22*" is 12.2 (major = (c0-'A')*10 + c1). */
static int gcc_major(uint32_t version) {
  int c0 = (int)(version >> 24), c1 = (int)((version >> 16) & 0xff);
  if (c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9')
    return -1;
  return (c0 - 'A') * 10 + (c1 - '0');
}

enum gcovn_kind gcovn_kind(const char *gcno) {
  FILE *f = ucov_fopen_regular(gcno);
  uint32_t w[2] = {0, 0};
  size_t n = f ? fread(w, 4, 2, f) : 0;
  if (f)
    fclose(f);
  if (n != 2)
    return GCOVN_BAD;
  if (w[0] == __builtin_bswap32(GCNO_MAGIC))
    w[1] = __builtin_bswap32(w[1]);
  else if (w[0] != GCNO_MAGIC)
    return GCOVN_BAD;
  int c2 = (int)((w[1] >> 8) & 0xff), c3 = (int)(w[1] & 0xff);
  if ((w[1] >> 24) < 'A')
    return GCOVN_LLVM;
  int major = gcc_major(w[1]);
  if (major >= 12 && major <= 15)
    return GCOVN_GCC;
  /* another gcc's version ("A93*", "B6e"): gcov may read it; damage is no version */
  return major >= 0 && c2 >= '0' && c2 <= '9' && c3 && strchr("*epr", c3) ? GCOVN_OTHER : GCOVN_BAD;
}

/* One ARCS record of fn: arcs prepended to their blocks' lists, as gcov does. */
static int read_arcs(struct unit *u, struct function *fn, struct rd *r, size_t len) {
  uint32_t src = rd_u32(r);
  size_t num = len >= 4 ? (len / 4 - 1) / 2 : 0;
  if (r->bad || src >= fn->n_blocks || fn->blocks[src].succ)
    return say(u, "%s", "arcs of an unknown block, or twice");
  if (!num)
    return 0;
  struct arc *arcs = num <= ((size_t)1 << 32) ? arena0(u, num * sizeof(*arcs)) : NULL;
  if (!arcs)
    return say(u, "%s", "out of memory");
  struct block *sb = &fn->blocks[src];
  int mark_catches = 0;
  for (size_t i = 0; i < num; i++) {
    uint32_t dest = rd_u32(r), flags = rd_u32(r);
    if (r->bad || dest >= fn->n_blocks)
      return say(u, "%s", "an arc to an unknown block");
    struct arc *a = &arcs[i];
    a->src = sb;
    a->dst = &fn->blocks[dest];
    a->on_tree = !!(flags & ARC_ON_TREE);
    a->fake = !!(flags & ARC_FAKE);
    a->fall_through = !!(flags & ARC_FALLTHROUGH);
    a->succ_next = sb->succ;
    sb->succ = a;
    sb->num_succ++;
    a->pred_next = a->dst->pred;
    a->dst->pred = a;
    a->dst->num_pred++;
    if (a->fake && src) {
      /* an exceptional exit: the source block is a call */
      a->is_call_non_return = 1;
      mark_catches = 1;
    }
    if (!a->on_tree)
      fn->n_counts++;
    if (apush(u, &fn->arcs, a))
      return say(u, "%s", "out of memory");
  }
  if (mark_catches)
    for (struct arc *a = sb->succ; a; a = a->succ_next)
      if (!a->fake && !a->fall_through)
        a->is_throw = 1;
  return 0;
}

static int read_lines(struct unit *u, struct function *fn, struct rd *r, int bytes) {
  uint32_t bno = rd_u32(r);
  if (r->bad || bno >= fn->n_blocks)
    return say(u, "%s", "lines of an unknown block");
  struct block *b = &fn->blocks[bno];
  for (;;) {
    uint32_t ln = rd_u32(r);
    if (r->bad)
      return say(u, "%s", "a lines record without its end");
    if (ln) {
      if (!b->n_locs || ln >= MAX_LINE)
        return say(u, "%s", "a line number without a file, or past 16M");
      struct location *l = &b->locs[b->n_locs - 1];
      if (agrow(u, (void **)&l->lines, &l->cap, l->n, sizeof(*l->lines)))
        return say(u, "%s", "out of memory");
      l->lines[l->n++] = ln;
      continue;
    }
    /* most blocks name the file the one before named: no copy for those */
    uint32_t len = rd_u32(r);
    size_t nb = bytes ? len : (size_t)len * 4;
    if (r->bad || nb > r->n - r->at)
      return say(u, "%s", "a truncated file name");
    if (!len)
      return 0;
    const char *raw = (const char *)r->b + r->at;
    size_t rl = strnlen(raw, nb);
    r->at += nb;
    long s;
    if (u->last_raw && strlen(u->last_raw) == rl && memcmp(u->last_raw, raw, rl) == 0) {
      s = (long)u->raw_src;
    } else {
      char *name = strndup(raw, rl);
      s = name ? find_source(u, name) : -1;
      free(u->last_raw);
      u->last_raw = s < 0 ? (free(name), NULL) : name;
      u->raw_src = (size_t)s;
    }
    if (s < 0 || agrow(u, (void **)&b->locs, &b->cap_locs, b->n_locs, sizeof(*b->locs)))
      return say(u, "%s", "out of memory");
    memset(&b->locs[b->n_locs], 0, sizeof(b->locs[0]));
    b->locs[b->n_locs++].src = (uint32_t)s;
  }
}

/* The file's magic word, in either byte order (the reader follows it): 0 or -1. */
static int rd_magic(struct rd *r, uint32_t want) {
  uint32_t magic = rd_u32(r);
  r->swap = magic == __builtin_bswap32(want);
  return magic == want || r->swap ? 0 : -1;
}

static int read_notes(struct unit *u, const unsigned char *buf, size_t len) {
  struct rd r = {buf, len, 0, 0, 0};
  if (rd_magic(&r, GCNO_MAGIC))
    return say(u, "%s", "not a gcov notes file");
  uint32_t version = u->version = rd_u32(&r);
  int major = gcc_major(version), d0 = (int)(version >> 24) - '0',
      d1 = (int)((version >> 16) & 0xff) - '0', d2 = (int)((version >> 8) & 0xff) - '0';
  if (d0 >= 0 && d0 <= 9 && d1 >= 0 && d1 <= 9 && d2 >= 0 && d2 <= 9) {
    /* clang's: "408*" (gcc 4.8's layout): lengths in words, no cwd */
    u->llvm = 1;
    u->vnum = d0 * 100 + d1 * 10 + d2;
    u->stamp = rd_u32(&r);
  } else if (major >= 12 && major <= 15) {
    u->bytes = 1;
    u->stamp = rd_u32(&r);
    rd_u32(&r); /* checksum */
    if (rd_str(&r, 1, &u->cwd))
      return say(u, "%s", "truncated header");
    rd_u32(&r); /* has_unexecuted_blocks */
  } else {
    return say(u, "%s", "a notes format this reader does not know");
  }
  struct function *fn = NULL;
  uint32_t tag, length;
  size_t payload;
  int more;
  while ((more = next_record(&r, u->bytes, &tag, &length, &payload)) > 0) {
    if ((int32_t)length < 0)
      return say(u, "%s", "a record of negative length");
    struct rd rec = {r.b, r.at + payload, r.at, r.swap, 0};
    if (tag == TAG_FUNCTION) {
      if (UCOV_GROW(u->fns, u->cap_fns, u->n_fns, 64))
        return say(u, "%s", "out of memory");
      fn = &u->fns[u->n_fns++];
      memset(fn, 0, sizeof(*fn));
      fn->ident = rd_u32(&rec);
      fn->lineno_checksum = rd_u32(&rec);
      if (!u->llvm || u->vnum >= 407)
        fn->cfg_checksum = rd_u32(&rec);
      char *src = NULL;
      if (rd_str(&rec, u->bytes, &fn->name))
        return say(u, "%s", "a truncated function record");
      if (!u->llvm)
        fn->artificial = rd_u32(&rec);
      if (rd_str(&rec, u->bytes, &src))
        return say(u, "%s", "a truncated function record");
      long s = find_source(u, src);
      free(src);
      if (s < 0)
        return say(u, "%s", "out of memory");
      fn->src = (uint32_t)s;
      fn->start_line = rd_u32(&rec);
      if (!u->llvm) {
        fn->start_column = rd_u32(&rec);
        fn->end_line = rd_u32(&rec);
        fn->end_column = rd_u32(&rec);
      }
      if (rec.bad)
        return say(u, "%s", "a truncated function record");
      if (!fn->name && !(fn->name = strdup("")))
        return say(u, "%s", "out of memory");
    } else if (fn && tag == TAG_BLOCKS) {
      uint32_t nb = u->llvm ? length : rd_u32(&rec); /* 4.8's: a flags word per block */
      if (rec.bad || nb > len / 4 + 16)
        return say(u, "%s", "a blocks record out of bounds");
      if (!fn->blocks && nb) {
        fn->blocks = arena0(u, (size_t)nb * sizeof(*fn->blocks));
        if (!fn->blocks)
          return say(u, "%s", "out of memory");
        fn->n_blocks = nb;
        for (uint32_t b = 0; b < nb; b++)
          fn->blocks[b].number = b;
      }
    } else if (fn && tag == TAG_ARCS) {
      if (read_arcs(u, fn, &rec, payload))
        return -1;
    } else if (fn && tag == TAG_LINES) {
      if (read_lines(u, fn, &rec, u->bytes))
        return -1;
    }
    r.at += payload;
  }
  return more < 0 ? say(u, "%s", "truncated, or a record longer than the file") : 0;
}

struct ident_ix {
  uint32_t ident, index;
};

static int cmp_ident(const void *a, const void *b) {
  const struct ident_ix *x = a, *y = b;
  if (x->ident != y->ident)
    return x->ident < y->ident ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The function of an ident (ix: the functions by ident, then order): gcov's
 * map keeps the last function of an ident. */
static struct function *fn_by_ident(struct unit *u, const struct ident_ix *ix, uint32_t ident) {
  size_t lo = 0, hi = u->n_fns;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ix[mid].ident <= ident)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo && ix[lo - 1].ident == ident ? &u->fns[ix[lo - 1].index] : NULL;
}

static int read_counts(struct unit *u, const unsigned char *buf, size_t len) {
  struct rd r = {buf, len, 0, 0, 0};
  if (rd_magic(&r, GCDA_MAGIC))
    return say(u, "%s", "not a gcov data file");
  /* gcov warns of another version and goes on, llvm-cov refuses it: counts
   * another compiler wrote are not these notes' */
  if (rd_u32(&r) != u->version)
    return say(u, "%s", "version mismatch with its notes file");
  if (rd_u32(&r) != u->stamp || r.bad)
    return say(u, "%s", "stamp mismatch with its notes file (rebuilt since it ran?)");
  if (!u->llvm)
    rd_u32(&r); /* checksum */
  struct function *fn = NULL;
  struct ident_ix *ix = arena(u, (u->n_fns + 1) * sizeof(*ix));
  if (!ix)
    return say(u, "%s", "out of memory");
  for (size_t i = 0; i < u->n_fns; i++)
    ix[i] = (struct ident_ix){u->fns[i].ident, (uint32_t)i};
  if (u->n_fns > 1)
    qsort(ix, u->n_fns, sizeof(*ix), cmp_ident);
  uint32_t tag, length;
  size_t skip;
  int more;
  while ((more = next_record(&r, u->bytes, &tag, &length, &skip)) > 0) {
    int32_t signed_len = (int32_t)length;
    struct rd rec = {r.b, r.at + skip, r.at, r.swap, 0};
    if (tag == TAG_FUNCTION && (u->llvm ? length >= 2 : length == 12)) {
      uint32_t ident = rd_u32(&rec), lck = rd_u32(&rec);
      uint32_t cfg = !u->llvm || u->vnum >= 407 ? rd_u32(&rec) : 0;
      fn = fn_by_ident(u, ix, ident);
      if (fn && (lck != fn->lineno_checksum || cfg != fn->cfg_checksum)) {
        snprintf(u->err, u->errlen, "profile mismatch for '%s' (rebuilt since it ran?)", fn->name);
        return -1;
      }
    } else if (tag == TAG_ARC_COUNTS && fn) {
      uint64_t want = (uint64_t)fn->n_counts * (u->bytes ? 8 : 2);
      uint32_t abs_len = signed_len < 0 ? (uint32_t)0 - length : length;
      fn->has_counts = 1;
      if (abs_len != want) {
        snprintf(u->err, u->errlen, "profile mismatch for '%s' (rebuilt since it ran?)", fn->name);
        return -1;
      }
      for (size_t i = 0; signed_len > 0 && i < fn->n_counts; i++) {
        int64_t c = (int64_t)rd_u64(&rec);
        if (c < 0) { /* no arc runs a negative number of times: a corrupt file */
          snprintf(u->err, u->errlen, "negative counter %" PRId64 " in '%s' (a corrupt .gcda)", c,
                   fn->name);
          return -1;
        }
        fn->counts[i] = add64(fn->counts[i], c);
      }
    }
    r.at += skip;
  }
  if (more < 0)
    return say(u, "%s", "truncated, or a record longer than the file");
  return 0;
}

/* ---- solving (gcov's solve_flow_graph) ---- */

/* The last arc of a list (successors or predecessors) whose count is not
 * known, with *total less every arc's count. */
static struct arc *unknown_arc(struct arc *a, int succ, int64_t *total) {
  struct arc *inv = NULL;
  for (; a; a = succ ? a->succ_next : a->pred_next) {
    *total = sub64(*total, a->count);
    if (!a->count_valid)
      inv = a;
  }
  return inv;
}

/* The one unknown arc of a block gets what the block's count leaves; the
 * block at its other end (other_left: its arcs still unknown on that side)
 * goes on the chain it now belongs to. */
static void settle(struct arc *inv, int64_t total, struct block *other, int64_t *other_left,
                   struct block **valid, struct block **invalid) {
  inv->count_valid = 1;
  inv->count = total;
  (*other_left)--;
  if (other->count_valid) {
    if (*other_left == 1 && !other->valid_chain) {
      other->chain = *valid;
      other->valid_chain = 1;
      *valid = other;
    }
  } else if (!*other_left && !other->invalid_chain) {
    other->chain = *invalid;
    other->invalid_chain = 1;
    *invalid = other;
  }
}

/* The arc lists were built backwards: file order again. */
static void file_order(struct function *fn) {
  for (size_t i = fn->n_blocks; i--;) {
    struct block *b = &fn->blocks[i];
    struct arc *p = NULL, *a, *nx;
    for (a = b->succ; a; p = a, a = nx) {
      nx = a->succ_next;
      a->succ_next = p;
    }
    b->succ = p;
    p = NULL;
    for (a = b->pred; a; p = a, a = nx) {
      nx = a->pred_next;
      a->pred_next = p;
    }
    b->pred = p;
  }
}

static void solve(struct function *fn) {
  const int64_t *cp = fn->counts;
  size_t ci = 0;
  struct block *valid = NULL, *invalid = NULL;
  file_order(fn);
  if (fn->n_blocks >= 2) {
    if (!fn->blocks[0].num_pred)
      fn->blocks[0].num_pred = ~(unsigned)0;
    if (!fn->blocks[1].num_succ)
      fn->blocks[1].num_succ = ~(unsigned)0;
  }
  for (size_t i = 0; i < fn->n_blocks; i++) {
    struct block *b = &fn->blocks[i];
    const struct block *prev = NULL;
    int out_of_order = 0, non_fake = 0;
    for (struct arc *a = b->succ; a; a = a->succ_next) {
      if (!a->fake)
        non_fake++;
      if (!a->on_tree) {
        if (ci < fn->n_counts)
          a->count = cp[ci++];
        a->count_valid = 1;
        b->num_succ--;
        a->dst->num_pred--;
      }
      if (prev && prev > a->dst)
        out_of_order = 1;
      prev = a->dst;
    }
    if (non_fake == 1)
      for (struct arc *a = b->succ; a; a = a->succ_next)
        if (!a->fake)
          a->is_unconditional = 1;
    if (out_of_order) { /* ascending destinations; equal ones keep their order */
      struct arc *start = b->succ;
      for (int changes = 1; changes;) {
        changes = 0;
        struct arc *a = start, *p = NULL, *n;
        while ((n = a->succ_next)) {
          if (a->dst > n->dst) {
            changes = 1;
            if (p)
              p->succ_next = n;
            else
              start = n;
            a->succ_next = n->succ_next;
            n->succ_next = a;
            p = n;
          } else {
            p = a;
            a = n;
          }
        }
      }
      b->succ = start;
    }
    b->invalid_chain = 1;
    b->chain = invalid;
    invalid = b;
  }
  while (invalid || valid) {
    struct block *b;
    while ((b = invalid)) {
      int64_t total = 0;
      invalid = b->chain;
      b->invalid_chain = 0;
      if (!b->num_succ)
        for (struct arc *a = b->succ; a; a = a->succ_next)
          total = add64(total, a->count);
      else if (!b->num_pred)
        for (struct arc *a = b->pred; a; a = a->pred_next)
          total = add64(total, a->count);
      else
        continue;
      b->count = total;
      b->count_valid = 1;
      b->chain = valid;
      b->valid_chain = 1;
      valid = b;
    }
    while ((b = valid)) {
      valid = b->chain;
      b->valid_chain = 0;
      if (b->num_succ == 1) {
        int64_t total = b->count;
        struct arc *inv = unknown_arc(b->succ, 1, &total);
        if (!inv)
          break; /* inconsistent graph: gcov would crash here */
        b->num_succ--;
        settle(inv, total, inv->dst, &inv->dst->num_pred, &valid, &invalid);
      }
      if (b->num_pred == 1) {
        int64_t total = b->count;
        struct arc *inv = unknown_arc(b->pred, 0, &total);
        if (!inv)
          break;
        b->num_pred--;
        settle(inv, total, inv->src, &inv->src->num_succ, &valid, &invalid);
      }
    }
  }
}

/* ---- lines (gcov's add_line_counts, accumulate_line_counts) ---- */

static int u32cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int sorted_u32(const uint32_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (v[i - 1] > v[i])
      return 0;
  return 1;
}

static int group_line(const struct function *fn, uint32_t ln, uint32_t src) {
  return fn->is_group && fn->src == src && fn->start_line <= ln && ln <= fn->end_line;
}

static int add_line_counts(struct unit *u, struct function *fn) {
  for (size_t ix = 0; ix < fn->n_blocks; ix++) {
    struct block *b = &fn->blocks[ix];
    struct line *line = NULL;
    for (size_t i = 0; i < b->n_locs; i++) {
      struct location *loc = &b->locs[i];
      for (size_t j = 0; j < loc->n; j++) {
        uint32_t ln = loc->lines[j];
        line = group_line(fn, ln, loc->src) ? line_at(&fn->lines, ln - fn->start_line)
                                            : line_at(&u->srcs[loc->src].lines, ln);
        if (!line)
          return say(u, "%s", "out of memory");
        line->exists = 1;
        line->count = add64(line->count, b->count);
      }
      if (!ix || ix + 1 == fn->n_blocks || !line)
        continue; /* entry or exit block */
      if (apush(u, &line->blocks, b))
        return say(u, "%s", "out of memory");
      for (struct arc *a = b->succ; a; a = a->succ_next)
        if (apush(u, &line->branches, a))
          return say(u, "%s", "out of memory");
    }
  }
  return 0;
}

/* The loops of a line: elementary circuits through its blocks, each adding
 * its smallest remaining arc count (gcov's get_cycles_count). */
struct circ {
  const struct line *line;
  struct ptrvec path;    /* struct arc * */
  struct ptrvec blocked; /* struct block * */
  struct ptrvec *lists;  /* per blocked block: the blocks it blocks */
  size_t n_lists, cap_lists;
  int64_t count;
  int oom;
};

static void handle_cycle(struct circ *c) {
  int64_t min = INT64_MAX;
  for (size_t i = 0; i < c->path.n; i++) {
    int64_t e = ((struct arc *)c->path.v[i])->cs_count;
    if (min > e)
      min = e;
  }
  c->count = add64(c->count, min);
  for (size_t i = 0; i < c->path.n; i++) {
    struct arc *a = c->path.v[i];
    a->cs_count = sub64(a->cs_count, min);
  }
}

static void unblock(struct circ *c, const struct block *b) {
  size_t i = 0;
  while (i < c->blocked.n && c->blocked.v[i] != b)
    i++;
  if (i == c->blocked.n)
    return;
  memmove(&c->blocked.v[i], &c->blocked.v[i + 1], (c->blocked.n - i - 1) * sizeof(void *));
  c->blocked.n--;
  struct ptrvec to = c->lists[i];
  memmove(&c->lists[i], &c->lists[i + 1], (c->n_lists - i - 1) * sizeof(c->lists[0]));
  c->n_lists--;
  for (size_t k = 0; k < to.n; k++)
    unblock(c, to.v[k]);
  free(to.v);
}

static int path_has_spent_arc(const struct circ *c) {
  for (size_t i = 0; i < c->path.n; i++)
    if (((struct arc *)c->path.v[i])->cs_count <= 0)
      return 1;
  return 0;
}

static int circuit(struct circ *c, struct block *v, struct block *start, unsigned depth) {
  int found = 0;
  if (depth > 20000 || pv_push(&c->blocked, v) ||
      UCOV_GROW(c->lists, c->cap_lists, c->n_lists, 8)) {
    c->oom = 1;
    return 0;
  }
  memset(&c->lists[c->n_lists++], 0, sizeof(c->lists[0]));
  for (struct arc *a = v->succ; a && !c->oom; a = a->succ_next) {
    struct block *w = a->dst;
    if (w < start || a->cs_count <= 0 || !pv_has(&c->line->blocks, w))
      continue;
    if (pv_push(&c->path, a)) {
      c->oom = 1;
      break;
    }
    if (w == start) {
      handle_cycle(c);
      found = 1;
    } else if (!path_has_spent_arc(c) && !pv_has(&c->blocked, w)) {
      found |= circuit(c, w, start, depth + 1);
    }
    c->path.n--;
  }
  if (found) {
    unblock(c, v);
  } else {
    for (struct arc *a = v->succ; a && !c->oom; a = a->succ_next) {
      struct block *w = a->dst;
      if (w < start || a->cs_count <= 0 || !pv_has(&c->line->blocks, w))
        continue;
      size_t i = 0;
      while (i < c->blocked.n && c->blocked.v[i] != w)
        i++;
      if (i == c->blocked.n)
        continue; /* gcov asserts it is blocked */
      if (!pv_has(&c->lists[i], v) && pv_push(&c->lists[i], v))
        c->oom = 1;
    }
  }
  return found;
}

static int accumulate_line(struct line *line) {
  if (!line->blocks.n)
    return 0;
  int64_t count = 0;
  for (size_t i = 0; i < line->blocks.n; i++) {
    struct block *b = line->blocks.v[i];
    for (struct arc *a = b->pred; a; a = a->pred_next)
      if (!pv_has(&line->blocks, a->src))
        count = add64(count, a->count);
    for (struct arc *a = b->succ; a; a = a->succ_next)
      a->cs_count = a->count;
  }
  if (line->blocks.n == 1) {
    /* one block: its only circuits are its arcs to itself, each counted once */
    struct block *b = line->blocks.v[0];
    for (struct arc *a = b->succ; a; a = a->succ_next)
      if (a->dst == b && a->cs_count > 0) {
        count = add64(count, a->cs_count);
        a->cs_count = 0;
      }
    line->count = count;
    return 0;
  }
  struct circ c = {.line = line};
  for (size_t i = 0; i < line->blocks.n && !c.oom; i++) {
    c.path.n = 0;
    for (size_t k = 0; k < c.n_lists; k++)
      free(c.lists[k].v);
    c.n_lists = 0;
    c.blocked.n = 0;
    circuit(&c, line->blocks.v[i], line->blocks.v[i], 0);
  }
  for (size_t k = 0; k < c.n_lists; k++)
    free(c.lists[k].v);
  free(c.lists);
  free(c.path.v);
  free(c.blocked.v);
  line->count = add64(count, c.count);
  return c.oom ? -1 : 0;
}

/* ---- clang's notes: llvm-cov gcov's counting (LLVM's GCOV.cpp) ---- */

/* Tree arc counts from the counted ones: each tree arc carries the excess
 * of the part of the tree beyond it (a depth-first walk, iterative). */
struct pframe {
  struct block *v;
  struct arc *pred, *cur;
  int in_dst, phase, started;
  uint64_t excess;
};

static int propagate(struct block *root) {
  struct pframe *st = NULL;
  size_t n = 0, cap = 0;
  if (UCOV_GROW(st, cap, n, 16))
    return -1;
  st[n++] = (struct pframe){.v = root};
  while (n) {
    struct pframe *u = &st[n - 1];
    if (!u->started) {
      if (u->v->visited) {
        n--;
        continue;
      }
      u->v->visited = 1;
      u->started = 1;
      u->cur = u->v->pred;
    }
    struct arc *e = u->cur;
    if (e && !u->phase) {
      u->cur = e->pred_next;
      if (e != u->pred) {
        if (!e->on_tree)
          u->excess += (uint64_t)e->count;
        else if (UCOV_GROW(st, cap, n, 16))
          goto oom;
        else
          st[n++] = (struct pframe){.v = e->src, .pred = e};
      }
      continue;
    }
    if (!u->phase) {
      u->phase = 1;
      u->cur = u->v->succ;
      continue;
    }
    if (e) {
      u->cur = e->succ_next;
      if (e != u->pred) {
        if (!e->on_tree)
          u->excess -= (uint64_t)e->count;
        else if (UCOV_GROW(st, cap, n, 16))
          goto oom;
        else
          st[n++] = (struct pframe){.v = e->dst, .pred = e, .in_dst = 1};
      }
      continue;
    }
    uint64_t excess = (int64_t)u->excess < 0 ? (uint64_t)0 - u->excess : u->excess;
    if (u->pred)
      u->pred->count = (int64_t)excess;
    int in_dst = u->in_dst;
    if (--n)
      st[n - 1].excess += in_dst ? (uint64_t)0 - excess : excess;
  }
  free(st);
  return 0;
oom:
  free(st);
  return -1;
}

/* Block counts: every arc's count added to its source block. */
static int llvm_counts(struct unit *u, struct function *fn) {
  size_t ci = 0;
  file_order(fn);
  for (size_t i = 0; i < fn->arcs.n; i++) {
    struct arc *a = fn->arcs.v[i];
    if (a->on_tree)
      continue;
    a->count = ci < fn->n_counts ? fn->counts[ci++] : 0;
    a->src->count = add64(a->src->count, a->count);
  }
  if (!fn->has_counts || fn->n_blocks < 2)
    return 0;
  /* the exit block's arc back to the entry closes the graph */
  struct arc *back = arena0(u, sizeof(*back));
  if (!back)
    return -1;
  struct block *entry = &fn->blocks[0], *sink = &fn->blocks[u->vnum < 408 ? fn->n_blocks - 1 : 1];
  back->src = sink;
  back->dst = entry;
  back->on_tree = 1;
  struct arc **tail = &sink->succ;
  while (*tail)
    tail = &(*tail)->succ_next;
  *tail = back;
  for (tail = &entry->pred; *tail;)
    tail = &(*tail)->pred_next;
  *tail = back;
  for (size_t b = 0; b < fn->n_blocks; b++)
    if (propagate(&fn->blocks[b]))
      return -1;
  for (size_t i = 0; i < fn->arcs.n; i++) {
    struct arc *a = fn->arcs.v[i];
    if (a->on_tree)
      a->src->count = add64(a->src->count, a->count);
  }
  return 0;
}

static struct arc start_mark; /* the incoming arc of a cycle search's start */

/* One cycle through the line's blocks from src, cancelled by its smallest
 * remaining count (returned; 0: none). */
static uint64_t augment_one_cycle(struct block *src, struct ptrvec *stack) {
  stack->n = 0;
  if (pv_push(stack, src))
    return 0;
  src->incoming = &start_mark;
  /* a frame: the block, and its next successor arc (kept in the block's chain field) */
  src->chain = (struct block *)src->succ;
  while (stack->n) {
    struct block *v = stack->v[stack->n - 1];
    struct arc *a = (struct arc *)v->chain;
    if (!a) {
      v->traversable = 0;
      stack->n--;
      continue;
    }
    v->chain = (struct block *)a->succ_next;
    struct block *w = a->dst;
    if (!a->cs_count || !w->traversable || w == v)
      continue;
    if (!w->incoming) {
      w->incoming = a;
      w->chain = (struct block *)w->succ;
      if (pv_push(stack, w))
        return 0;
      continue;
    }
    uint64_t min = (uint64_t)a->cs_count;
    for (struct block *x = v; x != w; x = x->incoming->src)
      if ((uint64_t)x->incoming->cs_count < min)
        min = (uint64_t)x->incoming->cs_count;
    a->cs_count = (int64_t)((uint64_t)a->cs_count - min);
    for (struct block *x = v; x != w; x = x->incoming->src)
      x->incoming->cs_count = (int64_t)((uint64_t)x->incoming->cs_count - min);
    return min;
  }
  return 0;
}

static uint64_t llvm_cycles(const struct ptrvec *blocks, struct ptrvec *stack) {
  uint64_t count = 0, d;
  do {
    for (size_t i = 0; i < blocks->n; i++) {
      struct block *b = blocks->v[i];
      b->traversable = 1;
      b->incoming = NULL;
    }
    d = 0;
    for (size_t i = 0; i < blocks->n && !d; i++) {
      struct block *b = blocks->v[i];
      if (b->traversable)
        d = augment_one_cycle(b, stack);
    }
    count += d;
  } while (d);
  for (size_t i = 0; i < blocks->n; i++)
    ((struct block *)blocks->v[i])->traversable = 0;
  return count;
}

static uint32_t last_line(const struct block *b) {
  for (size_t i = b->n_locs; i--;)
    if (b->locs[i].n)
      return b->locs[i].lines[b->locs[i].n - 1];
  return 0;
}

static int llvm_emit(struct cov_model *m, struct unit *u) {
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    if (llvm_counts(u, fn))
      return say(u, "%s", "out of memory");
    for (size_t b = 0; b < fn->n_blocks; b++)
      for (size_t k = 0; k < fn->blocks[b].n_locs; k++) {
        struct location *l = &fn->blocks[b].locs[k];
        struct lines *lines = &u->srcs[l->src].lines;
        for (size_t j = 0; j < l->n; j++) {
          struct line *line;
          if (lines_resize(lines, (size_t)l->lines[j] + 1) ||
              !(line = line_at(lines, l->lines[j])) || apush(u, &line->blocks, &fn->blocks[b]))
            return say(u, "%s", "out of memory");
          line->exists = 1;
        }
      }
  }
  struct ptrvec stack = {0};
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    struct cov_file *f = cov_file(m, src->name, u->cwd);
    if (!f)
      continue;
    for (size_t i = 0; i < u->n_fns; i++) {
      const struct function *fn = &u->fns[i];
      int64_t c = fn->n_blocks ? fn->blocks[0].count : 0;
      if (fn->src == s)
        cov_add_func_end(f, fn->name, fn->start_line,
                         fn->end_line >= fn->start_line ? fn->end_line : 0,
                         c < 0 ? 0 : (uint64_t)c);
    }
    for (uint32_t ln = 1; ln < src->lines.size; ln++) {
      struct line *line = line_if(&src->lines, ln);
      if (!line)
        continue;
      uint64_t count = 0;
      for (size_t i = 0; i < line->blocks.n; i++) {
        struct block *b = line->blocks.v[i];
        if (!b->number) {
          for (struct arc *a = b->succ; a; a = a->succ_next)
            count += (uint64_t)a->count;
        } else {
          for (struct arc *a = b->pred; a; a = a->pred_next)
            if (!pv_has(&line->blocks, a->src))
              count += (uint64_t)a->count;
        }
        for (struct arc *a = b->succ; a; a = a->succ_next)
          a->cs_count = a->count;
      }
      count += llvm_cycles(&line->blocks, &stack);
      cov_add_line(f, ln, count);
      uint32_t k = 0;
      for (size_t i = 0; i < line->blocks.n; i++) {
        const struct block *b = line->blocks.v[i];
        if (last_line(b) != ln || !b->succ || !b->succ->succ_next)
          continue; /* a block's branches are on its last line; one arc is none */
        uint64_t total = 0;
        for (const struct arc *a = b->succ; a; a = a->succ_next)
          total += (uint64_t)a->count;
        for (const struct arc *a = b->succ; a; a = a->succ_next)
          cov_add_branch(f, ln, 0, k++, total > 0, (uint64_t)a->count);
      }
    }
  }
  free(stack.v);
  return 0;
}

/* ---- into the model (as gcov_json_read takes gcov's JSON) ---- */

static void emit_line(struct cov_file *f, const struct line *line, uint32_t ln) {
  if (!line || !line->exists || !ln)
    return;
  uint64_t count = line->count < 0 ? 0 : (uint64_t)line->count;
  cov_add_line(f, ln, count);
  uint32_t k = 0;
  for (size_t i = 0; i < line->branches.n; i++) {
    const struct arc *a = line->branches.v[i];
    if (a->is_unconditional || a->is_call_non_return)
      continue; /* (calls are no branches; exception edges are, marked as lcov 2 marks them) */
    cov_add_branch_e(f, ln, 0, k++, count > 0, a->count < 0 ? 0 : (uint64_t)a->count, a->is_throw);
  }
}

static int fn_start_cmp(const void *a, const void *b) {
  const struct function *x = *(struct function *const *)a, *y = *(struct function *const *)b;
  if (x->start_line != y->start_line)
    return x->start_line < y->start_line ? -1 : 1;
  return x->start_column < y->start_column ? -1 : x->start_column > y->start_column;
}

static int fn_src_line_cmp(const void *a, const void *b) {
  const struct function *x = *(struct function *const *)a, *y = *(struct function *const *)b;
  if (x->src != y->src)
    return x->src < y->src ? -1 : 1;
  return x->start_line < y->start_line ? -1 : x->start_line > y->start_line;
}

static int emit(struct cov_model *m, struct unit *u, int have_data) {
  /* group functions: several (not artificial) starting on one line of a file */
  struct function **by_start = malloc((u->n_fns + 1) * sizeof(*by_start));
  size_t n = 0;
  if (!by_start)
    return say(u, "%s", "out of memory");
  for (size_t i = 0; i < u->n_fns; i++)
    if (!u->fns[i].artificial)
      by_start[n++] = &u->fns[i];
  if (n > 1)
    qsort(by_start, n, sizeof(*by_start), fn_src_line_cmp);
  for (size_t i = 1; i < n; i++)
    if (by_start[i]->src == by_start[i - 1]->src &&
        by_start[i]->start_line == by_start[i - 1]->start_line)
      by_start[i]->is_group = by_start[i - 1]->is_group = 1;
  free(by_start);
  for (size_t i = 0; i < u->n_fns; i++) {
    struct function *fn = &u->fns[i];
    if (fn->artificial || (!fn->n_counts && have_data))
      continue; /* gcov drops both */
    if (pv_push(&u->srcs[fn->src].fns, fn))
      return say(u, "%s", "out of memory");
    for (size_t b = 0; b < fn->n_blocks; b++)
      for (size_t k = 0; k < fn->blocks[b].n_locs; k++) {
        struct location *l = &fn->blocks[b].locs[k];
        if (!l->n)
          continue;
        if (!sorted_u32(l->lines, l->n))
          qsort(l->lines, l->n, sizeof(*l->lines), u32cmp);
        if (lines_resize(&u->srcs[l->src].lines, (size_t)l->lines[l->n - 1] + 1))
          return say(u, "%s", "out of memory");
      }
    if (fn->is_group && fn->end_line >= fn->start_line &&
        lines_resize(&fn->lines, (size_t)(fn->end_line - fn->start_line) + 1))
      return say(u, "%s", "out of memory");
    solve(fn);
    fn->solved = 1;
  }
  for (size_t i = 0; i < u->n_fns; i++)
    if (u->fns[i].solved && add_line_counts(u, &u->fns[i]))
      return -1;
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    for (size_t i = 0; i < src->fns.n; i++) {
      struct function *fn = src->fns.v[i];
      for (size_t k = 0; fn->is_group && k < fn->lines.n_rec; k++)
        if (accumulate_line(&fn->lines.rec[k]))
          return say(u, "%s", "out of memory, or a line too deep to count its loops");
    }
    for (size_t k = 0; k < src->lines.n_rec; k++)
      if (accumulate_line(&src->lines.rec[k]))
        return say(u, "%s", "out of memory, or a line too deep to count its loops");
  }
  for (size_t s = 0; s < u->n_srcs; s++) {
    struct source *src = &u->srcs[s];
    struct cov_file *f = cov_file(m, src->name, u->cwd);
    if (!f)
      continue;
    if (src->fns.n > 1)
      qsort(src->fns.v, src->fns.n, sizeof(void *), fn_start_cmp);
    for (size_t i = 0; i < src->fns.n; i++) {
      const struct function *fn = src->fns.v[i];
      int64_t c = fn->n_blocks ? fn->blocks[0].count : 0;
      cov_add_func_end(f, fn->name, fn->start_line,
                       fn->end_line >= fn->start_line ? fn->end_line : 0, c < 0 ? 0 : (uint64_t)c);
    }
    /* gcov's order: a group function's own lines where it starts, then the file's */
    size_t fi = 0;
    for (size_t ln = 1; ln <= src->lines.size; ln++) {
      for (; fi < src->fns.n && ((struct function *)src->fns.v[fi])->start_line <= ln; fi++) {
        const struct function *fn = src->fns.v[fi];
        if (fn->start_line != ln)
          continue;
        for (size_t k = 0; k < fn->lines.size; k++)
          emit_line(f, line_if(&fn->lines, (uint32_t)k), (uint32_t)(ln + k));
      }
      if (ln < src->lines.size)
        emit_line(f, line_if(&src->lines, (uint32_t)ln), (uint32_t)ln);
    }
  }
  return 0;
}

/* The notes into u (its counters allocated, at 0). 0, or -1 with the
 * message in u's err, prefixed with gcno. */
static int unit_open(struct unit *u, const char *gcno, const unsigned char *nb, size_t nl) {
  if (read_notes(u, nb, nl)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", gcno, msg);
    return -1;
  }
  for (size_t i = 0; i < u->n_fns; i++)
    if (u->fns[i].n_counts &&
        !(u->fns[i].counts = arena0(u, u->fns[i].n_counts * sizeof(*u->fns[i].counts)))) {
      snprintf(u->err, u->errlen, "%s: out of memory", gcno);
      return -1;
    }
  return 0;
}

/* The notes file gcno read and opened into u (nothing keeps the file's
 * bytes: names are copied). 0, or -1 with the message in u's err. */
static int unit_load(struct unit *u, const char *gcno) {
  unsigned char *nb = NULL;
  size_t nl = 0;
  int ret = load(gcno, &nb, &nl, u->err, u->errlen) || unit_open(u, gcno, nb, nl) ? -1 : 0;
  free(nb);
  return ret;
}

/* A .gcda's counters added to u's. 0, or -1 with the message. */
static int unit_add_gcda(struct unit *u, const char *gcda) {
  unsigned char *db = NULL;
  size_t dl = 0;
  if (load(gcda, &db, &dl, u->err, u->errlen))
    return -1;
  int r = read_counts(u, db, dl);
  free(db);
  if (r) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", gcda, msg);
  }
  return r;
}

/* clang's notes name no directory: relative names are from the notes file's. */
static void unit_llvm_cwd(struct unit *u, const char *gcno) {
  if (u->llvm && !u->cwd) {
    const char *slash = strrchr(gcno, '/');
    u->cwd = slash ? strndup(gcno, (size_t)(slash - gcno)) : NULL;
  }
}

/* u's lines, functions and branches into m. */
static int unit_emit(struct cov_model *m, struct unit *u, const char *gcno, int have_data,
                     const char *what) {
  unit_llvm_cwd(u, gcno);
  if (u->llvm ? llvm_emit(m, u) : emit(m, u, have_data)) {
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", u->err);
    snprintf(u->err, u->errlen, "%s: %s", what, msg);
    return -1;
  }
  return 0;
}

int gcovn_relative_dir(const char *gcno, char **dir, char *err, size_t errlen) {
  struct unit u = {.err = err, .errlen = errlen, .last_src = SIZE_MAX};
  int ret = -1;
  *dir = NULL;
  if (unit_load(&u, gcno))
    goto out;
  ret = 0;
  for (size_t i = 0; i < u.n_fns; i++)
    ret += u.srcs[u.fns[i].src].name && u.srcs[u.fns[i].src].name[0] != '/';
  for (size_t i = 0; !ret && i < u.n_srcs; i++) /* (named by lines records only) */
    ret = u.srcs[i].name && u.srcs[i].name[0] != '/';
  unit_llvm_cwd(&u, gcno);
  if (ret && !(*dir = u.cwd ? strdup(u.cwd) : NULL)) {
    snprintf(err, errlen, "%s: %s", gcno, u.cwd ? "out of memory" : "no build directory");
    ret = -1;
  }
out:
  unit_free(&u);
  return ret;
}

int gcovn_read_many(struct cov_model *m, const char *gcno, const char *const *gcdas, size_t n,
                    char *err, size_t errlen) {
  struct unit u = {.err = err, .errlen = errlen, .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_load(&u, gcno))
    goto out;
  for (size_t i = 0; i < n; i++)
    if (unit_add_gcda(&u, gcdas[i]))
      goto out;
  ret = unit_emit(m, &u, gcno, n > 0, n ? gcdas[0] : gcno);
out:
  unit_free(&u);
  return ret;
}

int gcovn_read(struct cov_model *m, const char *gcno, const char *gcda, char *err, size_t errlen) {
  return gcovn_read_many(m, gcno, &gcda, gcda != NULL, err, errlen);
}

int gcovn_counters(const char *gcno, const char *const *gcdas, size_t n_gcdas,
                   int (*fn)(void *arg, uint32_t ident, int has_counts, const int64_t *counts,
                             size_t n),
                   void *arg, char *err, size_t errlen) {
  struct unit u = {.err = err, .errlen = errlen, .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_load(&u, gcno))
    goto out;
  for (size_t i = 0; i < n_gcdas; i++)
    if (unit_add_gcda(&u, gcdas[i]))
      goto out;
  for (size_t i = 0; i < u.n_fns; i++)
    if (fn(arg, u.fns[i].ident, u.fns[i].has_counts, u.fns[i].counts, u.fns[i].n_counts)) {
      snprintf(err, errlen, "%s: out of memory", gcno);
      goto out;
    }
  ret = 0;
out:
  unit_free(&u);
  return ret;
}

int gcovn_read_counted(struct cov_model *m, const char *gcno, const unsigned char *notes,
                       size_t len, int have_data,
                       int (*fill)(void *arg, uint32_t ident, int64_t *counts, size_t n), void *arg,
                       char *err, size_t errlen) {
  struct unit u = {.err = err, .errlen = errlen, .last_src = SIZE_MAX};
  int ret = -1;
  if (unit_open(&u, gcno, notes, len))
    goto out;
  for (size_t i = 0; i < u.n_fns; i++) {
    struct function *fn = &u.fns[i];
    int r = fill(arg, fn->ident, fn->counts, fn->n_counts);
    if (r < 0) {
      snprintf(err, errlen, "%s: the stored counters of '%s' do not fit its notes", gcno, fn->name);
      goto out;
    }
    fn->has_counts = r > 0;
  }
  ret = unit_emit(m, &u, gcno, have_data, gcno);
out:
  unit_free(&u);
  return ret;
}
