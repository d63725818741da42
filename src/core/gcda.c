/* SPDX-License-Identifier: MIT */
/*
 * .gcda for GCC 12 and later, the format alone: the writer (each counter taken
 * through a struct ucov_counts, plus an existing file's counts when merging)
 * and the reader that checks an existing file against a unit the way
 * libgcov's merge does. Baselines are the registry's (gcov.c, baseline.h).
 *
 * Layout: 32-bit words in host order; header {magic, version, stamp,
 * checksum}; OBJECT_SUMMARY {runs, sum_max}; per function FUNCTION {ident,
 * lineno_checksum, cfg_checksum} (length 0 for a function this unit does not
 * own) followed by one counter record per kind the unit has (64-bit values
 * low word first; an all-zero record has a negative length and no values;
 * TOPN records are {total, n, n x (value, count)}); a 0 word ends the file.
 */
#include "gcov.h"

#include "ucov/port/port.h"

#include "writer.h"

/* ------------------------------------------------------------ reader */

/* One function record of the file being merged. */
struct gcda_merge_fn {
  const uint8_t *raw; /* the whole record, for functions the unit does not own */
  size_t raw_len;
  const uint8_t *values[GCOV_COUNTERS_MAX]; /* counter values by kind (NULL: none or all zero) */
  uint32_t n_values[GCOV_COUNTERS_MAX];     /* in 64-bit counters (TOPN: disk counters) */
};

struct ucov_gcda_merge {
  struct ucov_gcov_summary summary;
  unsigned n_functions;
  struct gcda_merge_fn fn[];
};

struct gcda_in {
  const uint8_t *p, *end;
};

static UCOV_NOTRACE int in_u32(struct gcda_in *in, uint32_t *v) {
  if (in->end - in->p < 4)
    return -1;
  __builtin_memcpy(v, in->p, 4);
  in->p += 4;
  return 0;
}

static UCOV_NOTRACE gcov_type read_counter(const uint8_t *p) {
  uint32_t lo, hi;
  __builtin_memcpy(&lo, p, 4);
  __builtin_memcpy(&hi, p + 4, 4);
  return (gcov_type)((uint64_t)hi << 32 | lo);
}

UCOV_NOTRACE void ucov_msg_set(char *msg, size_t len, const char *a, unsigned num) {
  if (!len)
    return;
  size_t i = 0;
  for (; *a && i + 1 < len; a++)
    msg[i++] = *a;
  if (num != ~0u) {
    char d[12];
    int n = 0;
    do
      d[n++] = (char)('0' + num % 10);
    while ((num /= 10) && n < 11);
    while (n && i + 1 < len)
      msg[i++] = d[--n];
  }
  msg[i] = 0;
}

/* (Long: the file's records in order, each checked against the unit before it is used.) */
UCOV_NOTRACE int ucov_gcda_parse(const uint8_t *buf, size_t len, const struct ucov_gcov_unit *u,
                                 struct ucov_gcda_merge **out, char *msg, size_t msglen) {
  const struct gcov_info *gi = u->info;
  struct gcda_in in = {buf, buf + len};
  uint32_t magic, version, stamp, checksum, tag, length;
  *out = 0;
  if (in_u32(&in, &magic) || magic != GCOV_DATA_MAGIC) {
    ucov_msg_set(msg, msglen, "not a gcov data file", ~0u);
    return UCOV_GCDA_ERROR;
  }
  if (in_u32(&in, &version) || version != gi->version) {
    ucov_msg_set(msg, msglen, "version mismatch", ~0u);
    return UCOV_GCDA_ERROR;
  }
  if (in_u32(&in, &stamp) || in_u32(&in, &checksum)) {
    ucov_msg_set(msg, msglen, "truncated header", ~0u);
    return UCOV_GCDA_ERROR;
  }
  if (checksum != gi->checksum)
    return UCOV_GCDA_OVERWRITE;
  uint32_t runs, sum_max;
  if (in_u32(&in, &tag) || tag != GCOV_TAG_OBJECT_SUMMARY || in_u32(&in, &length) ||
      length != GCOV_TAG_OBJECT_SUMMARY_LENGTH || in_u32(&in, &runs) || in_u32(&in, &sum_max)) {
    ucov_msg_set(msg, msglen, "merge mismatch for summary", ~0u);
    return UCOV_GCDA_ERROR;
  }
  struct ucov_gcda_merge *m =
      ucov_port_alloc(sizeof(*m) + (size_t)u->n_functions * sizeof(struct gcda_merge_fn));
  if (!m) {
    ucov_msg_set(msg, msglen, "out of memory", ~0u);
    return UCOV_GCDA_ERROR;
  }
  m->summary.runs = runs;
  m->summary.sum_max = sum_max;
  m->n_functions = u->n_functions;
  unsigned f = 0;
  for (; f < u->n_functions; f++) {
    const uint8_t *rec = in.p;
    if (in_u32(&in, &tag) || tag != GCOV_TAG_FUNCTION || in_u32(&in, &length))
      goto mismatch;
    if (length == 0)
      continue; /* not in the other program */
    if (length != GCOV_TAG_FUNCTION_LENGTH)
      goto mismatch;
    const struct gcov_fn_info *fn = u->functions[f];
    int owned = fn && fn->key == gi;
    uint32_t ident, lsum, csum;
    if (in_u32(&in, &ident) || in_u32(&in, &lsum) || in_u32(&in, &csum))
      goto mismatch;
    if (owned && (ident != fn->ident || lsum != fn->lineno_checksum || csum != fn->cfg_checksum))
      goto mismatch;
    const struct gcov_ctr_info *ctr = owned ? fn->ctrs : 0;
    for (unsigned k = 0; k < u->n_counters; k++) {
      if (!gi->merge[k])
        continue;
      int32_t slen;
      if (in_u32(&in, &tag) || tag != GCOV_TAG_FOR_COUNTER(k) || in_u32(&in, &length))
        goto mismatch;
      slen = (int32_t)length;
      /* Magnitudes in unsigned arithmetic: -INT32_MIN is not an int32_t. */
      uint32_t bytes = slen < 0 ? 0 : length;
      uint32_t count = (slen < 0 ? 0u - length : length) / 8;
      if (owned && !gcov_kind_is_topn(k) && count != ctr->num)
        goto mismatch;
      if ((size_t)(in.end - in.p) < bytes || bytes % 8)
        goto mismatch;
      if (bytes) {
        m->fn[f].values[k] = in.p;
        m->fn[f].n_values[k] = bytes / 8;
      }
      in.p += bytes;
      if (ctr)
        ctr++;
    }
    if (!owned) {
      m->fn[f].raw = rec;
      m->fn[f].raw_len = (size_t)(in.p - rec);
    }
  }
  if (in_u32(&in, &tag) || tag != 0)
    goto mismatch;
  *out = m;
  return UCOV_GCDA_MERGE;
mismatch:
  ucov_msg_set(msg, msglen, "merge mismatch for function ", f);
  ucov_port_free(m);
  return UCOV_GCDA_ERROR;
}

UCOV_NOTRACE void ucov_gcda_merge_free(struct ucov_gcda_merge *m) {
  ucov_port_free(m);
}

UCOV_NOTRACE struct ucov_gcov_summary ucov_gcda_merge_summary(const struct ucov_gcda_merge *m) {
  return m->summary;
}

/* ------------------------------------------------------- counters */

#define TOPN_TRACKED 32 /* GCOV_TOPN_MAXIMUM_TRACKED_VALUES */
#define TOPN_SLOTS 64   /* room for lists that raced past 32 */

/* A counter plus one read from a file, saturated: a corrupt or hostile file
 * (counters near INT64_MAX) must not overflow a signed addition. */
static UCOV_NOTRACE gcov_type sat_add(gcov_type a, gcov_type b) {
  gcov_type r;
  if (!__builtin_add_overflow(a, b, &r))
    return r;
  return b > 0 ? (gcov_type)0x7fffffffffffffffll : (gcov_type)(-0x7fffffffffffffffll - 1);
}

UCOV_NOTRACE uint64_t ucov_gcov_size_bound(const struct ucov_gcov_unit *u) {
  uint64_t n = 4 * 4 + 4 * 4 + 4; /* header, summary, end */
  for (unsigned f = 0; f < u->n_functions; f++) {
    const struct gcov_fn_info *fn = u->functions[f];
    n += 8 + 12;
    if (!fn || fn->key != u->info)
      continue;
    const struct gcov_ctr_info *ctr = fn->ctrs;
    for (unsigned k = 0; k < u->n_counters; k++) {
      if (!u->info->merge[k])
        continue;
      uint64_t words = ctr->num;
      if (gcov_kind_is_topn(k)) /* on disk: total, n, up to 32 pairs a group */
        words = (uint64_t)(ctr->num / GCOV_TOPN_MEM_COUNTERS) * (2 + 2 * TOPN_SLOTS);
      n += 8 + 8 * words;
      ctr++;
    }
  }
  return n;
}

/* One TOPN group being written: total and (value, count) pairs. */
struct topn_group {
  gcov_type total;
  uint32_t n;
  gcov_type value[TOPN_SLOTS], count[TOPN_SLOTS];
};

/* libgcov's gcov_topn_add_value for a merge (the total is handled apart). */
static UCOV_NOTRACE void topn_merge_pair(struct topn_group *g, gcov_type value, gcov_type count) {
  uint32_t minimal = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    if (g->value[i] == value) {
      g->count[i] = sat_add(g->count[i], count);
      return;
    }
    if (g->count[i] < g->count[minimal])
      minimal = i;
  }
  if (g->n >= TOPN_TRACKED) {
    if (--g->count[minimal] < count) {
      g->value[minimal] = value;
      g->count[minimal] = count;
    }
    return;
  }
  g->value[g->n] = value;
  g->count[g->n] = count;
  g->n++;
}

/*
 * TOPN: each group's in-memory list {total, n, list}, merged with the file's
 * group {total, n, n pairs} as libgcov merges (values add up, new ones are
 * appended while fewer than 32 are tracked). Groups are built first, then
 * written, so the record length matches its contents.
 */
static UCOV_RACY_READS UCOV_NOTRACE int write_topn(struct ucov_writer *o, unsigned kind,
                                                   const struct gcov_ctr_info *ctr,
                                                   const uint8_t *file, uint32_t file_n) {
  uint32_t groups = ctr->num / GCOV_TOPN_MEM_COUNTERS;
  struct topn_group *g = ucov_port_alloc((groups ? groups : 1) * sizeof(*g));
  if (!g)
    return -UCOV_ENOMEM;
  const uint8_t *fp = file, *fend = file ? file + (size_t)file_n * 8 : 0;
  uint64_t disk = 0;
  for (uint32_t i = 0; i < groups; i++) {
    g[i].total = UCOV_LOAD_RACY(&ctr->values[i * 3]);
    const struct gcov_kvp *node =
        (const struct gcov_kvp *)(uintptr_t)UCOV_LOAD_RACY(&ctr->values[i * 3 + 2]);
    for (; node && g[i].n < TOPN_SLOTS; node = node->next) {
      g[i].value[g[i].n] = node->value;
      g[i].count[g[i].n] = node->count;
      g[i].n++;
    }
    if (fp && fend - fp >= 16) {
      gcov_type all = read_counter(fp);
      uint64_t n = (uint64_t)read_counter(fp + 8);
      if ((uint64_t)(fend - fp - 16) / 16 >= n) {
        int full = all < 0;
        gcov_type mag = !full                                           ? all
                        : all == (gcov_type)(-0x7fffffffffffffffll - 1) ? -(all + 1)
                                                                        : -all;
        g[i].total = sat_add(g[i].total, mag);
        for (uint64_t k = 0; k < n; k++)
          topn_merge_pair(&g[i], read_counter(fp + 16 + k * 16), read_counter(fp + 24 + k * 16));
        if (full)
          g[i].total = -g[i].total;
        fp += 16 + n * 16;
      }
    }
    disk += GCOV_TOPN_DISK_COUNTERS + 2ull * g[i].n;
  }
  ucov_w_u32(o, GCOV_TAG_FOR_COUNTER(kind));
  ucov_w_u32(o, (uint32_t)(disk * 8));
  for (uint32_t i = 0; i < groups; i++) {
    ucov_w_counter(o, g[i].total);
    ucov_w_counter(o, (gcov_type)g[i].n);
    for (uint32_t k = 0; k < g[i].n; k++) {
      ucov_w_counter(o, g[i].value[k]);
      ucov_w_counter(o, g[i].count[k]);
    }
  }
  ucov_port_free(g);
  return 0;
}

/* (Long: gcov's record order (header, summary, then each function's counters by kind), through
 * one writer.) */
UCOV_RACY_READS UCOV_NOTRACE int ucov_gcda_write(struct ucov_sink *sink,
                                                 const struct ucov_gcov_unit *u,
                                                 const struct ucov_gcov_summary *sum,
                                                 const struct ucov_gcda_merge *merge,
                                                 const struct ucov_counts *c) {
  const struct gcov_info *gi = u->info;
  gcov_type *scratch = 0;
  if (u->max_num) {
    scratch = ucov_port_alloc((size_t)u->max_num * sizeof(gcov_type));
    if (!scratch)
      return -UCOV_ENOMEM;
  }
  struct ucov_writer o;
  ucov_w_init(&o, sink);
  ucov_w_u32(&o, GCOV_DATA_MAGIC);
  ucov_w_u32(&o, gi->version);
  ucov_w_u32(&o, gi->stamp);
  ucov_w_u32(&o, gi->checksum);
  ucov_w_u32(&o, GCOV_TAG_OBJECT_SUMMARY);
  ucov_w_u32(&o, GCOV_TAG_OBJECT_SUMMARY_LENGTH);
  ucov_w_u32(&o, sum->runs);
  ucov_w_u32(&o, (uint32_t)sum->sum_max);

  unsigned bidx = 0;
  for (unsigned f = 0; f < u->n_functions; f++) {
    const struct gcov_fn_info *fn = u->functions[f];
    const struct gcda_merge_fn *mf = merge ? &merge->fn[f] : 0;
    if (!fn || fn->key != gi) {
      /* Another unit owns it; keep what the merged file had for it. */
      if (mf && mf->raw) {
        ucov_w_bytes(&o, mf->raw, mf->raw_len);
      } else {
        ucov_w_u32(&o, GCOV_TAG_FUNCTION);
        ucov_w_u32(&o, 0);
      }
      continue;
    }
    ucov_w_u32(&o, GCOV_TAG_FUNCTION);
    ucov_w_u32(&o, GCOV_TAG_FUNCTION_LENGTH);
    ucov_w_u32(&o, fn->ident);
    ucov_w_u32(&o, fn->lineno_checksum);
    ucov_w_u32(&o, fn->cfg_checksum);
    const struct gcov_ctr_info *ctr = fn->ctrs;
    for (unsigned k = 0; k < u->n_counters; k++) {
      if (!gi->merge[k])
        continue;
      const uint8_t *fv = mf ? mf->values[k] : 0;
      if (gcov_kind_is_topn(k)) {
        if (!o.err)
          o.err = write_topn(&o, k, ctr, fv, mf ? mf->n_values[k] : 0);
        ctr++;
        continue;
      }
      /* One load per counter: what is written and a moved baseline agree. */
      int additive = gcov_kind_is_additive(k), nonzero = 0;
      for (uint32_t i = 0; i < ctr->num; i++) {
        gcov_type live = UCOV_LOAD_RACY(&ctr->values[i]), v = live;
        if (additive)
          v = (gcov_type)ucov_counts_take(c, bidx + i, (uint64_t)live);
        if (fv) {
          gcov_type old = read_counter(fv + (size_t)i * 8);
          if (additive)
            v = sat_add(v, old);
          else if (k == GCOV_TIME_PROFILER)
            v = old && (!v || old < v) ? old : v;
          else
            v |= old; /* ior, conditions */
        }
        scratch[i] = v;
        nonzero |= v != 0;
      }
      ucov_w_u32(&o, GCOV_TAG_FOR_COUNTER(k));
      if (!nonzero) {
        ucov_w_u32(&o, 0u - ctr->num * 8);
      } else {
        ucov_w_u32(&o, ctr->num * 8);
        for (uint32_t i = 0; i < ctr->num; i++)
          ucov_w_counter(&o, scratch[i]);
      }
      if (additive)
        bidx += ctr->num;
      ctr++;
    }
  }
  ucov_w_u32(&o, 0);
  ucov_w_flush(&o);
  ucov_port_free(scratch);
  return o.err;
}
