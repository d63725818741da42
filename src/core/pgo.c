/* SPDX-License-Identifier: MIT */
/*
 * The LLVM raw profile, versions 8 (clang 14-17), 9 (clang 18) and 10 (clang
 * 19+), as compiler-rt writes it:
 *
 *   header       u64 words: magic, version, binary-ids size, data records,
 *                padding, counters, padding, [v9+: bitmap bytes, padding],
 *                names size, counters delta, [v9+: bitmap delta], names
 *                delta, [v10: vtable records, vtable names size],
 *                value-kind-last
 *   binary ids   u64 length, the GNU build-id, padding to 8
 *   data         the __llvm_prf_data records as they are
 *   counters     u64 each, live minus the reset baseline
 *   bitmaps      v9+: MC/DC bitmap bytes, padding to 8
 *   names        __llvm_prf_names, padding to 8
 *   vtables      v10: __llvm_prf_vtab, padding; __llvm_prf_vns, padding
 *   value data   for each record with value sites: u32 total size, u32 kinds,
 *                then per kind with sites {u32 kind, u32 sites, u8 values
 *                per site, padding to 8, {u64 value, u64 count} per value}
 *
 * A reset never writes a counter or a value node: it records them as a
 * baseline that later reads subtract. MC/DC bitmaps are the exception: bits
 * cannot be subtracted, so a reset takes them (an atomic exchange with 0 per
 * byte: a bit set concurrently is kept for the next read, never lost).
 */
#include "pgo.h"

#include "writer.h"
#include "ucov/port/port.h"

/* {value, count} of each value node at the last reset of its module. Nodes
 * are the process's (one pool for every module), so this is too. */
static uint64_t *base_vp;

/* Modes of a write: a live read, a read-and-reset, a snapshot. */
#define PGO_READ 0
#define PGO_RESET 1
#define PGO_SNAPSHOT 2

/* The state a snapshot write records value nodes into (lock held). */
static struct ucov_pgo_state *snapshotting;

/* Scratch of one write (the port lock is held): per site of one record, the
 * values its list holds and the values written; the nodes' {value, count}. */
static uint8_t *site_new, *site_all;
static uint64_t site_cap;
static uint64_t *snap;
static uint64_t snap_cap;

/* Scratch for records of up to `sites` sites. */
static UCOV_NOTRACE int scratch_for(uint64_t sites) {
  if (sites <= site_cap)
    return 0;
  uint8_t *a = ucov_port_alloc(sites), *b = ucov_port_alloc(sites);
  if (!a || !b) {
    ucov_port_free(a);
    ucov_port_free(b);
    return -UCOV_ENOMEM;
  }
  ucov_port_free(site_new);
  ucov_port_free(site_all);
  site_new = a;
  site_all = b;
  site_cap = sites;
  return 0;
}

/* Room in snap for a record's nodes (counted first: lists only grow, and
 * take_sites stops at snap_cap). */
static UCOV_RACY_READS UCOV_NOTRACE int snap_for(struct ucov_vp_node **heads, uint64_t sites) {
  uint64_t n = 0;
  for (uint64_t g = 0; heads && g < sites; g++) {
    struct ucov_vp_node *node = __atomic_load_n(&heads[g], __ATOMIC_ACQUIRE);
    for (uint32_t k = 0; node && k < 255; k++, n++)
      node = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);
  }
  if (n <= snap_cap)
    return 0;
  n = n < 64 ? 64 : n * 2;
  uint64_t *grown = ucov_port_alloc(n * 16);
  if (!grown)
    return -UCOV_ENOMEM;
  ucov_port_free(snap);
  snap = grown;
  snap_cap = n;
  return 0;
}

/* The counters' baseline, allocated at the first reset. 0 or -UCOV_ENOMEM. */
static UCOV_NOTRACE int alloc_cnt_baseline(struct ucov_pgo_state *c, uint64_t n) {
  if (!c->base_cnts && n)
    c->base_cnts = ucov_port_alloc(n * 8);
  return !c->base_cnts && n ? -UCOV_ENOMEM : 0;
}

static UCOV_NOTRACE int alloc_vp_baseline(void) {
  if (!base_vp && ucov_vp_used())
    base_vp = ucov_port_alloc(ucov_vp_nodes() * 16);
  return !base_vp && ucov_vp_used() ? -UCOV_ENOMEM : 0;
}

/* Does a value appear among n {value, count} pairs? Its index, or -1. */
static UCOV_NOTRACE int64_t find_value(const uint64_t *pairs, uint64_t n, uint64_t value) {
  for (uint64_t i = 0; i < n; i++)
    if (pairs[2 * i] == value)
      return (int64_t)i;
  return -1;
}

/*
 * Take a record's value sites: each site's nodes (at most 255) into snap as
 * {value, count since the reset}, how many into site_new. With reset the
 * baseline moves. Returns the pairs taken.
 */
static UCOV_RACY_READS UCOV_NOTRACE uint64_t take_sites(struct ucov_vp_node **heads, uint64_t sites,
                                                        int reset) {
  uint64_t used = 0;
  for (uint64_t g = 0; g < sites; g++) {
    site_new[g] = 0;
    struct ucov_vp_node *n = heads ? __atomic_load_n(&heads[g], __ATOMIC_ACQUIRE) : 0;
    for (; n && site_new[g] < 255 && used < snap_cap;
         n = __atomic_load_n(&n->next, __ATOMIC_ACQUIRE)) {
      uint64_t value = UCOV_LOAD(&n->value), count = UCOV_LOAD(&n->count), delta = count;
      uint64_t i = ucov_vp_index(n);
      if (base_vp && i != ~0ull) {
        if (base_vp[2 * i] == value)
          delta = count >= base_vp[2 * i + 1] ? count - base_vp[2 * i + 1] : 0;
        if (reset == PGO_RESET) {
          base_vp[2 * i] = value;
          base_vp[2 * i + 1] = count;
        } else if (reset == PGO_SNAPSHOT &&
                   snapshotting->n_pending_vp < snapshotting->cap_pending_vp) {
          uint64_t *t = snapshotting->pending_vp + 3 * snapshotting->n_pending_vp++;
          t[0] = i;
          t[1] = value;
          t[2] = count;
        }
      }
      snap[2 * used] = value;
      snap[2 * used + 1] = delta;
      used++;
      site_new[g]++;
    }
  }
  return used;
}

/* An old record's sites, walked in order: their value counts and values. */
struct old_sites {
  const uint8_t *counts, *values; /* of the current kind */
  uint32_t j;                     /* site within the kind */
};

/* Position o at kind k of the old record p (NULL p: no old data). */
static UCOV_NOTRACE void old_kind(struct old_sites *o, const uint8_t *p, const uint16_t ns[3],
                                  uint32_t k) {
  o->counts = o->values = 0;
  o->j = 0;
  if (!p)
    return;
  const uint8_t *q = p + 8;
  for (uint32_t i = 0; i < k; i++) {
    if (!ns[i])
      continue;
    uint64_t values = 0;
    for (uint32_t j = 0; j < ns[i]; j++)
      values += q[8 + j];
    q += 8 + ns[i] + pad8(ns[i]) + values * 16;
  }
  o->counts = q + 8;
  o->values = q + 8 + ns[k] + pad8(ns[k]);
}

/* The value data of every record with value sites (after old's, merged). */
static UCOV_NOTRACE int write_values(struct ucov_writer *o, const struct ucov_llvm_sections *s,
                                     const struct ucov_pgo_layout *l, int reset,
                                     const uint8_t *oldv, const uint8_t *old_end) {
  const struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  if (!c->max_sites) /* (set by ucov_pgo_prepare) */
    return 0;
  int err = scratch_for(c->max_sites);
  if (!err && reset)
    err = alloc_vp_baseline();
  if (err)
    return err;
  for (const uint8_t *r = s->data; r < s->data_end; r += l->rec) {
    uint16_t ns[3];
    uint64_t sites;
    uint32_t kinds = ucov_pgo_record_sites(r, l, ns, &sites);
    if (!kinds)
      continue;
    const uint8_t *oldrec = oldv;
    if (oldv)
      oldv = ucov_pgo_old_values_next(oldv, old_end, ns, kinds); /* checked whole before */
    struct ucov_vp_node **heads;
    __builtin_memcpy(&heads, r + l->off_values, sizeof(heads));
    err = snap_for(heads, sites);
    if (err)
      return err;
    take_sites(heads, sites, reset);
    /* Values per site: the live ones, then old ones not among them. */
    uint64_t size = 8, g = 0, at = 0;
    for (uint32_t k = 0; k < 3; k++) {
      if (!ns[k])
        continue;
      size += 8 + ns[k] + pad8(ns[k]);
      struct old_sites os;
      old_kind(&os, oldrec, ns, k);
      for (uint32_t j = 0; j < ns[k]; j++, g++) {
        uint32_t m = site_new[g];
        for (uint32_t v = 0; os.counts && v < os.counts[j]; v++, os.values += 16)
          if (m < 255 && find_value(snap + 2 * at, site_new[g], get_u64(os.values)) < 0)
            m++;
        site_all[g] = (uint8_t)m;
        size += 16ull * m;
        at += site_new[g];
      }
    }
    ucov_w_u32(o, (uint32_t)size);
    ucov_w_u32(o, kinds);
    g = 0;
    at = 0;
    for (uint32_t k = 0; k < 3; k++) {
      if (!ns[k])
        continue;
      static const uint8_t zero[8];
      ucov_w_u32(o, k);
      ucov_w_u32(o, ns[k]);
      ucov_w_bytes(o, site_all + g, ns[k]);
      ucov_w_bytes(o, zero, pad8(ns[k]));
      struct old_sites os;
      old_kind(&os, oldrec, ns, k);
      for (uint32_t j = 0; j < ns[k]; j++, g++) {
        const uint64_t *live = snap + 2 * at;
        const uint8_t *ov = os.values;
        uint32_t on = os.counts ? os.counts[j] : 0, m = site_new[g];
        for (uint32_t v = 0; v < site_new[g]; v++) {
          uint64_t count = live[2 * v + 1];
          for (uint32_t w = 0; w < on; w++)
            if (get_u64(ov + 16 * w) == live[2 * v])
              count += get_u64(ov + 16 * w + 8);
          ucov_w_u64(o, live[2 * v]);
          ucov_w_u64(o, count);
        }
        for (uint32_t w = 0; w < on && m < site_all[g]; w++)
          if (find_value(live, site_new[g], get_u64(ov + 16 * w)) < 0) {
            ucov_w_bytes(o, ov + 16 * w, 16);
            m++;
          }
        os.values += 16ull * on;
        at += site_new[g];
      }
    }
  }
  return 0;
}

UCOV_NOTRACE size_t ucov_pgo_size_bound(const struct ucov_llvm_sections *s) {
  struct ucov_pgo_layout l;
  if (ucov_pgo_prepare(s, &l))
    return 0;
  uint64_t n = l.header_words * 8 + 8 + s->build_id_size + 8;
  n += (uint64_t)(s->data_end - s->data) + (uint64_t)(s->cnts_end - s->cnts) * 8;
  n += (uint64_t)(s->bits_end - s->bits) + (uint64_t)(s->names_end - s->names) + 16;
  n += (uint64_t)(s->vtab_end - s->vtab) + (uint64_t)(s->vnames_end - s->vnames) + 16;
  n += ucov_pgo_state_of(s)->site_bytes;
  /* Every node is in one list at most; a few more may be linked meanwhile. */
  return (size_t)(n + 16 * (ucov_vp_used() + 64));
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_write(struct ucov_sink *sink,
                                                const struct ucov_llvm_sections *s, int reset) {
  return ucov_pgo_write_merged(sink, s, reset, 0, 0);
}

/* (Long: the raw profile's parts in file order (header, build-id, records, counters, bitmaps,
 * names, vtables, value data), each merged with the old profile's, through one writer.) */
UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_write_merged(struct ucov_sink *sink,
                                                       const struct ucov_llvm_sections *s,
                                                       int reset, const uint8_t *old,
                                                       size_t old_len) {
  struct ucov_pgo_layout l;
  int err = ucov_pgo_prepare(s, &l);
  if (err)
    return err;
  struct ucov_pgo_old_view ov = {0, 0, 0, 0};
  if (old && !ucov_pgo_old_parse(s, &l, old, old_len, &ov))
    return -UCOV_EINVAL;
  uint32_t num = (uint32_t)l.version;
  uint64_t n_data = (uint64_t)(s->data_end - s->data) / l.rec;
  uint64_t n_cnts = (uint64_t)(s->cnts_end - s->cnts);
  uint64_t n_bits = num >= 9 ? (uint64_t)(s->bits_end - s->bits) : 0;
  uint64_t names_size = (uint64_t)(s->names_end - s->names);
  struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  uint64_t *base_cnts = c->base_cnts;
  if (reset && alloc_cnt_baseline(c, n_cnts))
    return -UCOV_ENOMEM;
  base_cnts = c->base_cnts;
  if (reset == PGO_RESET)
    c->gen++;
  uint64_t ids = s->build_id ? 8 + s->build_id_size + pad8(s->build_id_size) : 0;
  static const uint8_t zero[8];
  struct ucov_writer o;
  ucov_w_init(&o, sink);
  ucov_w_u64(&o, UCOV_PROFRAW_MAGIC);
  ucov_w_u64(&o, l.version);
  ucov_w_u64(&o, ids);
  ucov_w_u64(&o, n_data);
  ucov_w_u64(&o, 0); /* padding before the counters */
  ucov_w_u64(&o, n_cnts);
  ucov_w_u64(&o, 0); /* padding after them */
  if (num >= 9) {
    ucov_w_u64(&o, n_bits);
    ucov_w_u64(&o, pad8(n_bits));
  }
  ucov_w_u64(&o, names_size);
  ucov_w_u64(&o, (uint64_t)((uintptr_t)s->cnts - (uintptr_t)s->data));
  if (num >= 9)
    ucov_w_u64(&o, n_bits ? (uint64_t)((uintptr_t)s->bits - (uintptr_t)s->data) : 0);
  ucov_w_u64(&o, (uint64_t)(uintptr_t)s->names);
  if (num >= 10) {
    ucov_w_u64(&o, (uint64_t)(s->vtab_end - s->vtab) / VTAB_RECORD);
    ucov_w_u64(&o, (uint64_t)(s->vnames_end - s->vnames));
  }
  ucov_w_u64(&o, l.kinds - 1); /* IPVK_Last */
  if (s->build_id) {
    ucov_w_u64(&o, s->build_id_size);
    ucov_w_bytes(&o, s->build_id, s->build_id_size);
    ucov_w_bytes(&o, zero, pad8(s->build_id_size));
  }
  ucov_w_bytes(&o, s->data, (size_t)(n_data * l.rec));
#ifndef UCOV_TSAN_BUILD
  /* Never reset, nothing to add: the counters as they are, in one block. */
  if (!base_cnts && !ov.cnts) {
    ucov_w_bytes(&o, s->cnts, (size_t)(n_cnts * 8));
    n_cnts = 0;
  }
#endif
  for (uint64_t i = 0; i < n_cnts; i++) {
    uint64_t live = UCOV_LOAD_RACY(&s->cnts[i]), v = live;
    if (base_cnts) {
      v -= base_cnts[i];
      if (reset)
        base_cnts[i] = live;
    }
    if (ov.cnts)
      v += get_u64(ov.cnts + i * 8);
    ucov_w_u64(&o, v);
  }
  for (uint64_t i = 0; i < n_bits; i++) {
    uint8_t b = reset == PGO_RESET ? UCOV_TAKE_RACY(&s->bits[i]) : UCOV_LOAD_RACY(&s->bits[i]);
    if (reset == PGO_SNAPSHOT)
      c->pending_bits[i] = b;
    if (ov.bits)
      b |= ov.bits[i];
    ucov_w_bytes(&o, &b, 1);
  }
  ucov_w_bytes(&o, zero, pad8(n_bits));
  ucov_w_bytes(&o, s->names, (size_t)names_size);
  ucov_w_bytes(&o, zero, pad8(names_size));
  if (num >= 10) {
    uint64_t n = (uint64_t)(s->vtab_end - s->vtab);
    ucov_w_bytes(&o, s->vtab, (size_t)n);
    ucov_w_bytes(&o, zero, pad8(n));
    n = (uint64_t)(s->vnames_end - s->vnames);
    ucov_w_bytes(&o, s->vnames, (size_t)n);
    ucov_w_bytes(&o, zero, pad8(n));
  }
  err = write_values(&o, s, &l, reset, ov.values, ov.end);
  ucov_w_flush(&o);
  if (reset == PGO_RESET)
    ucov_port_pgo_baseline_moved(s);
  return err ? err : o.err;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_reset(const struct ucov_llvm_sections *s) {
  struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  struct ucov_pgo_layout l;
  uint64_t n = (uint64_t)(s->cnts_end - s->cnts);
  int err = ucov_pgo_prepare(s, &l);
  if (!err)
    err = alloc_cnt_baseline(c, n) ? -UCOV_ENOMEM : alloc_vp_baseline();
  if (err)
    return err;
  for (uint64_t i = 0; i < n; i++)
    c->base_cnts[i] = UCOV_LOAD_RACY(&s->cnts[i]);
  for (uint8_t *b = s->bits; b < s->bits_end; b++)
    UCOV_TAKE_RACY(b);
  c->gen++;
  /* The value nodes of this module's sites (other modules' stay as they are). */
  for (const uint8_t *r = s->data; base_vp && c->max_sites && r < s->data_end; r += l.rec) {
    uint16_t ns[3];
    uint64_t sites;
    struct ucov_vp_node **heads;
    if (!ucov_pgo_record_sites(r, &l, ns, &sites))
      continue;
    __builtin_memcpy(&heads, r + l.off_values, sizeof(heads));
    for (uint64_t g = 0; heads && g < sites; g++) {
      struct ucov_vp_node *node = __atomic_load_n(&heads[g], __ATOMIC_ACQUIRE);
      for (uint32_t k = 0; node && k < 255;
           k++, node = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE)) {
        uint64_t i = ucov_vp_index(node);
        if (i == ~0ull)
          continue;
        base_vp[2 * i] = UCOV_LOAD(&node->value);
        base_vp[2 * i + 1] = UCOV_LOAD(&node->count);
      }
    }
  }
  ucov_port_pgo_baseline_moved(s);
  return 0;
}

/* ---------------------------------------------------- two-phase reset */

UCOV_NOTRACE int ucov_pgo_snapshot(struct ucov_sink *sink, const struct ucov_llvm_sections *s,
                                   uint64_t token) {
  struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  uint64_t n = (uint64_t)(s->cnts_end - s->cnts), nbits = (uint64_t)(s->bits_end - s->bits);
  uint64_t nodes = ucov_vp_nodes();
  if (alloc_cnt_baseline(c, n) || alloc_vp_baseline())
    return -UCOV_ENOMEM;
  if (!c->pending_cnts && n && !(c->pending_cnts = ucov_port_alloc(n * 8)))
    return -UCOV_ENOMEM;
  if (!c->pending_bits && nbits && !(c->pending_bits = ucov_port_alloc(nbits)))
    return -UCOV_ENOMEM;
  if (c->cap_pending_vp < nodes) {
    ucov_port_free(c->pending_vp);
    c->pending_vp = ucov_port_alloc(nodes * 24);
    c->cap_pending_vp = c->pending_vp ? nodes : 0;
    if (!c->pending_vp)
      return -UCOV_ENOMEM;
  }
  for (uint64_t i = 0; i < n; i++)
    c->pending_cnts[i] = c->base_cnts[i];
  c->n_pending_vp = 0;
  /* A read-and-reset of the counters into the copy; bits are loaded, not
   * taken, and value nodes recorded instead of moved (PGO_SNAPSHOT). */
  uint64_t *real = c->base_cnts;
  c->base_cnts = c->pending_cnts;
  snapshotting = c;
  int err = ucov_pgo_write_merged(sink, s, PGO_SNAPSHOT, 0, 0);
  snapshotting = 0;
  c->pending_cnts = c->base_cnts;
  c->base_cnts = real;
  c->pending_token = err ? 0 : token;
  c->pending_gen = c->gen;
  return err;
}

UCOV_RACY_READS UCOV_NOTRACE void ucov_pgo_commit(const struct ucov_llvm_sections *s) {
  struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  uint64_t *old = c->base_cnts;
  c->base_cnts = c->pending_cnts;
  c->pending_cnts = old;
  for (uint64_t i = 0; c->pending_bits && i < (uint64_t)(s->bits_end - s->bits); i++)
    if (c->pending_bits[i])
      UCOV_CLEAR_RACY(&s->bits[i], c->pending_bits[i]);
  for (uint64_t k = 0; base_vp && k < c->n_pending_vp; k++) {
    const uint64_t *t = c->pending_vp + 3 * k;
    base_vp[2 * t[0]] = t[1];
    base_vp[2 * t[0] + 1] = t[2];
  }
  c->pending_token = 0;
  c->gen++;
  ucov_port_pgo_baseline_moved(s);
}
