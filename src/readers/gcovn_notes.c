/* SPDX-License-Identifier: MIT */
/*
 * The native reader's input: notes (.gcno) and counts (.gcda) files of
 * gcc's formats (GCC 12-15) and clang's ("408*"), every length bounded by
 * the file (gcovn.h).
 */
#define _GNU_SOURCE
#include "gcovn_int.h"
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

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

FILE *gcovn_open(struct unit *u, const char *path, struct stat *st) {
  FILE *f = ucov_fopen_regular(path);
  if (!f || fstat(fileno(f), st)) {
    snprintf(u->err, u->errlen, "%s: %s", path, ucov_strerror(errno));
    if (f)
      fclose(f);
    return NULL;
  }
  return f;
}

int gcovn_load(struct unit *u, const char *path, unsigned char **buf, size_t *len) {
  struct stat st;
  FILE *f = gcovn_open(u, path, &st);
  if (!f)
    return -1;
  if ((unsigned long long)st.st_size > MAX_FILE) {
    snprintf(u->err, u->errlen, "%s: larger than 2 GiB: not a coverage file", path);
    fclose(f);
    return -1;
  }
  size_t n = (size_t)st.st_size;
  *buf = malloc(n + 1);
  if (!*buf || fread(*buf, 1, n, f) != n) {
    snprintf(u->err, u->errlen, "%s: %s", path, *buf ? "short read" : "out of memory");
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
    return gcovn_say(u, "%s", "arcs of an unknown block, or twice");
  if (!num)
    return 0;
  struct arc *arcs = num <= ((size_t)1 << 32) ? gcovn_arena0(u, num * sizeof(*arcs)) : NULL;
  if (!arcs)
    return gcovn_say(u, "%s", "out of memory");
  struct block *sb = &fn->blocks[src];
  int mark_catches = 0;
  for (size_t i = 0; i < num; i++) {
    uint32_t dest = rd_u32(r), flags = rd_u32(r);
    if (r->bad || dest >= fn->n_blocks)
      return gcovn_say(u, "%s", "an arc to an unknown block");
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
    if (gcovn_apush(u, &fn->arcs, a))
      return gcovn_say(u, "%s", "out of memory");
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
    return gcovn_say(u, "%s", "lines of an unknown block");
  struct block *b = &fn->blocks[bno];
  for (;;) {
    uint32_t ln = rd_u32(r);
    if (r->bad)
      return gcovn_say(u, "%s", "a lines record without its end");
    if (ln) {
      if (!b->n_locs || ln >= MAX_LINE)
        return gcovn_say(u, "%s", "a line number without a file, or past 16M");
      struct location *l = &b->locs[b->n_locs - 1];
      if (gcovn_agrow(u, (void **)&l->lines, &l->cap, l->n, sizeof(*l->lines)))
        return gcovn_say(u, "%s", "out of memory");
      l->lines[l->n++] = ln;
      continue;
    }
    /* most blocks name the file the one before named: no copy for those */
    uint32_t len = rd_u32(r);
    size_t nb = bytes ? len : (size_t)len * 4;
    if (r->bad || nb > r->n - r->at)
      return gcovn_say(u, "%s", "a truncated file name");
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
      s = name ? gcovn_find_source(u, name) : -1;
      free(u->last_raw);
      u->last_raw = s < 0 ? (free(name), NULL) : name;
      u->raw_src = (size_t)s;
    }
    if (s < 0 || gcovn_agrow(u, (void **)&b->locs, &b->cap_locs, b->n_locs, sizeof(*b->locs)))
      return gcovn_say(u, "%s", "out of memory");
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

/* (Long: one case per notes record kind, in file order.) */
int gcovn_read_notes(struct unit *u, const unsigned char *buf, size_t len) {
  struct rd r = {buf, len, 0, 0, 0};
  if (rd_magic(&r, GCNO_MAGIC))
    return gcovn_say(u, "%s", "not a gcov notes file");
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
      return gcovn_say(u, "%s", "truncated header");
    rd_u32(&r); /* has_unexecuted_blocks */
  } else {
    return gcovn_say(u, "%s", "a notes format this reader does not know");
  }
  struct function *fn = NULL;
  uint32_t tag, length;
  size_t payload;
  int more;
  while ((more = next_record(&r, u->bytes, &tag, &length, &payload)) > 0) {
    if ((int32_t)length < 0)
      return gcovn_say(u, "%s", "a record of negative length");
    struct rd rec = {r.b, r.at + payload, r.at, r.swap, 0};
    if (tag == TAG_FUNCTION) {
      if (UCOV_GROW(u->fns, u->cap_fns, u->n_fns, 64))
        return gcovn_say(u, "%s", "out of memory");
      fn = &u->fns[u->n_fns++];
      memset(fn, 0, sizeof(*fn));
      fn->ident = rd_u32(&rec);
      fn->lineno_checksum = rd_u32(&rec);
      if (!u->llvm || u->vnum >= 407)
        fn->cfg_checksum = rd_u32(&rec);
      char *src = NULL;
      if (rd_str(&rec, u->bytes, &fn->name))
        return gcovn_say(u, "%s", "a truncated function record");
      if (!u->llvm)
        fn->artificial = rd_u32(&rec);
      if (rd_str(&rec, u->bytes, &src))
        return gcovn_say(u, "%s", "a truncated function record");
      long s = gcovn_find_source(u, src);
      free(src);
      if (s < 0)
        return gcovn_say(u, "%s", "out of memory");
      fn->src = (uint32_t)s;
      fn->start_line = rd_u32(&rec);
      if (!u->llvm) {
        fn->start_column = rd_u32(&rec);
        fn->end_line = rd_u32(&rec);
        fn->end_column = rd_u32(&rec);
      }
      if (rec.bad)
        return gcovn_say(u, "%s", "a truncated function record");
      if (fn->start_line >= MAX_LINE || fn->end_line >= MAX_LINE)
        return gcovn_say(u, "%s", "a function's lines past 16M");
      if (!fn->name && !(fn->name = strdup("")))
        return gcovn_say(u, "%s", "out of memory");
    } else if (fn && tag == TAG_BLOCKS) {
      uint32_t nb = u->llvm ? length : rd_u32(&rec); /* 4.8's: a flags word per block */
      if (rec.bad || nb > len / 4 + 16)
        return gcovn_say(u, "%s", "a blocks record out of bounds");
      if (!fn->blocks && nb) {
        fn->blocks = gcovn_arena0(u, (size_t)nb * sizeof(*fn->blocks));
        if (!fn->blocks)
          return gcovn_say(u, "%s", "out of memory");
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
  return more < 0 ? gcovn_say(u, "%s", "truncated, or a record longer than the file") : 0;
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

/* A counts file read record by record: memory bounded by one function's
 * counters, whatever the file's size. */
struct sr {
  FILE *f;
  uint64_t left; /* bytes of the file not read yet */
  int swap, bad;
};

static uint32_t sr_u32(struct sr *r) {
  uint32_t v = 0;
  if (r->left < 4 || fread(&v, 4, 1, r->f) != 1) {
    r->bad = 1;
    r->left = 0;
    return 0;
  }
  r->left -= 4;
  return r->swap ? __builtin_bswap32(v) : v;
}

static int sr_skip(struct sr *r, uint64_t n) {
  if (n > r->left || fseeko(r->f, (off_t)n, SEEK_CUR) != 0)
    return r->bad = 1, -1;
  r->left -= n;
  return 0;
}

/* (Long: the header checked, then one case per record kind, in file order.) */
int gcovn_read_counts(struct unit *u, FILE *f, uint64_t size) {
  struct sr r = {f, size, 0, 0};
  uint32_t magic = sr_u32(&r);
  r.swap = magic == __builtin_bswap32(GCDA_MAGIC);
  if (magic != GCDA_MAGIC && !r.swap)
    return gcovn_say(u, "%s", "not a gcov data file");
  /* gcov warns of another version and goes on, llvm-cov refuses it: counts
   * another compiler wrote are not these notes' */
  if (sr_u32(&r) != u->version)
    return gcovn_say(u, "%s", "version mismatch with its notes file");
  if (sr_u32(&r) != u->stamp || r.bad)
    return gcovn_say(u, "%s", "stamp mismatch with its notes file (rebuilt since it ran?)");
  if (!u->llvm)
    sr_u32(&r); /* checksum */
  struct function *fn = NULL;
  int any_function = 0;
  struct ident_ix *ix = gcovn_arena(u, (u->n_fns + 1) * sizeof(*ix));
  if (!ix)
    return gcovn_say(u, "%s", "out of memory");
  for (size_t i = 0; i < u->n_fns; i++)
    ix[i] = (struct ident_ix){u->fns[i].ident, (uint32_t)i};
  if (u->n_fns > 1)
    qsort(ix, u->n_fns, sizeof(*ix), cmp_ident);
  while (r.left >= 4 && !r.bad) {
    uint32_t tag = sr_u32(&r);
    if (!tag)
      break;
    uint32_t length = sr_u32(&r);
    int32_t signed_len = (int32_t)length;
    uint64_t payload = signed_len < 0 ? 0 : u->bytes ? length : (uint64_t)length * 4;
    if (r.bad || payload > r.left)
      return gcovn_say(u, "%s", "truncated, or a record longer than the file");
    uint64_t used = 0;
    if (tag == TAG_FUNCTION && (u->llvm ? length >= 2 : length == 12)) {
      uint32_t ident = sr_u32(&r), lck = sr_u32(&r);
      uint32_t cfg = !u->llvm || u->vnum >= 407 ? sr_u32(&r) : 0;
      used = !u->llvm || u->vnum >= 407 ? 12 : 8;
      any_function = 1;
      fn = fn_by_ident(u, ix, ident);
      if (fn && (lck != fn->lineno_checksum || cfg != fn->cfg_checksum)) {
        snprintf(u->err, u->errlen, "profile mismatch for '%s' (rebuilt since it ran?)", fn->name);
        return -1;
      }
    } else if (tag == TAG_ARC_COUNTS && !any_function) {
      return gcovn_say(u, "%s", "a counter record before any function record (a corrupt .gcda)");
    } else if (tag == TAG_ARC_COUNTS && fn) {
      uint64_t want = (uint64_t)fn->n_counts * (u->bytes ? 8 : 2);
      uint32_t abs_len = signed_len < 0 ? (uint32_t)0 - length : length;
      fn->has_counts = 1;
      if (abs_len != want) {
        snprintf(u->err, u->errlen, "profile mismatch for '%s' (rebuilt since it ran?)", fn->name);
        return -1;
      }
      for (size_t i = 0; signed_len > 0 && i < fn->n_counts; i++) {
        uint64_t lo = sr_u32(&r);
        int64_t c = (int64_t)(lo | (uint64_t)sr_u32(&r) << 32);
        if (c < 0) { /* no arc runs a negative number of times: a corrupt file */
          snprintf(u->err, u->errlen, "negative counter %" PRId64 " in '%s' (a corrupt .gcda)", c,
                   fn->name);
          return -1;
        }
        fn->counts[i] = add64(fn->counts[i], c);
      }
      used = signed_len > 0 ? (uint64_t)fn->n_counts * 8 : 0;
    }
    if (used > payload || sr_skip(&r, payload - used))
      return gcovn_say(u, "%s", "truncated, or a record longer than the file");
  }
  if (r.bad || (r.left && r.left < 4))
    return gcovn_say(u, "%s", "truncated, or a record longer than the file");
  return 0;
}
