/* SPDX-License-Identifier: MIT */
/*
 * The LLVM raw profile's layout (pgo.c has the format): which version the
 * sections are and where each record's fields lie, the value sites of each
 * record, the state the writer keeps per sections, and an old profile (one
 * to merge into) checked whole before anything of it is used.
 */
#include "pgo.h"

#include "ucov/port/port.h"

static UCOV_NOTRACE int set_layout(struct ucov_pgo_layout *l, uint32_t v) {
  struct ucov_pgo_layout v8 = {.version = 8,
                               .rec = 48,
                               .off_values = 32,
                               .off_ncnts = 40,
                               .off_sites = 44,
                               .off_nbits = 0,
                               .kinds = 2,
                               .header_words = 11};
  struct ucov_pgo_layout v9 = {.version = 9,
                               .rec = 64,
                               .off_values = 40,
                               .off_ncnts = 48,
                               .off_sites = 52,
                               .off_nbits = 56,
                               .kinds = 2,
                               .header_words = 14};
  struct ucov_pgo_layout v10 = v9;
  v10.version = 10;
  v10.off_nbits = 60;
  v10.kinds = 3;
  v10.header_words = 16;
  if (v == 8)
    *l = v8;
  else if (v == 9)
    *l = v9;
  else if (v == 10)
    *l = v10;
  else
    return -1;
  return 0;
}

/* Do s's data records have this layout? Every record's counters must lie in
 * the counters section (a wrong record size reads hashes as offsets). */
static UCOV_NOTRACE int records_fit(const struct ucov_llvm_sections *s,
                                    const struct ucov_pgo_layout *l) {
  uint64_t size = (uint64_t)(s->data_end - s->data);
  if (size % l->rec)
    return 0;
  for (uint64_t off = 0; off < size; off += l->rec) {
    const uint8_t *r = s->data + off;
    uintptr_t at = (uintptr_t)r + (uintptr_t)get_u64(r + 16);
    uint64_t n = get_u32(r + l->off_ncnts);
    if (at < (uintptr_t)s->cnts || at > (uintptr_t)s->cnts_end ||
        n > ((uintptr_t)s->cnts_end - at) / 8)
      return 0;
  }
  return 1;
}

UCOV_NOTRACE int ucov_pgo_layout(const struct ucov_llvm_sections *s, struct ucov_pgo_layout *l) {
  if (s->version & VARIANT_BYTE_COVERAGE)
    return -UCOV_EOPNOTSUPP;
  uint32_t v = (uint32_t)s->version;
  if (v) {
    if (set_layout(l, v))
      return -UCOV_EOPNOTSUPP;
    l->version = s->version;
    return records_fit(s, l) ? 0 : -UCOV_EINVAL;
  }
  set_layout(l, 8);
  if (records_fit(s, l))
    return 0;
  set_layout(l, 10);
  if (!records_fit(s, l))
    return -UCOV_EINVAL;
  /* 64-byte records: clang 19+ (v10) unless the bitmap sizes sit where clang
   * 18 (v9) keeps them. Without MC/DC both read the same: v10. */
  uint64_t bits = (uint64_t)(s->bits_end - s->bits), at56 = 0, at60 = 0;
  for (const uint8_t *r = s->data; bits && r < s->data_end; r += l->rec) {
    at56 += get_u32(r + 56);
    at60 += get_u32(r + 60);
  }
  if (bits && at56 == bits && at60 != bits)
    set_layout(l, 9);
  return 0;
}

/* Value sites of a record, per kind; returns how many kinds have any. */
UCOV_NOTRACE uint32_t ucov_pgo_record_sites(const uint8_t *r, const struct ucov_pgo_layout *l,
                                            uint16_t ns[3], uint64_t *total) {
  uint32_t kinds = 0;
  *total = 0;
  for (uint32_t k = 0; k < 3; k++) {
    ns[k] = k < l->kinds ? get_u16(r + l->off_sites + 2 * k) : 0;
    kinds += ns[k] != 0;
    *total += ns[k];
  }
  return kinds;
}

/* A port that keeps no state of its own for the sections: one shared. */
static struct ucov_pgo_state default_state;

UCOV_NOTRACE struct ucov_pgo_state *ucov_pgo_state_of(const struct ucov_llvm_sections *s) {
  return s->state ? s->state : &default_state;
}

UCOV_NOTRACE int ucov_pgo_prepare(const struct ucov_llvm_sections *s, struct ucov_pgo_layout *l) {
  struct ucov_pgo_state *c = ucov_pgo_state_of(s);
  if (!c->valid || c->data != s->data || c->data_end != s->data_end || c->cnts_end != s->cnts_end ||
      c->bits_end != s->bits_end || c->version != s->version) {
    c->err = ucov_pgo_layout(s, &c->l);
    c->max_sites = c->site_bytes = 0;
    for (const uint8_t *r = s->data; !c->err && r < s->data_end; r += c->l.rec) {
      uint16_t ns[3];
      uint64_t sites;
      uint32_t kinds = ucov_pgo_record_sites(r, &c->l, ns, &sites);
      c->max_sites = sites > c->max_sites ? sites : c->max_sites;
      for (uint32_t k = 0; k < 3; k++)
        c->site_bytes += ns[k] ? 8 + ns[k] + pad8(ns[k]) : 0;
      c->site_bytes += kinds ? 8 : 0;
    }
    c->data = s->data;
    c->data_end = s->data_end;
    c->cnts_end = s->cnts_end;
    c->bits_end = s->bits_end;
    c->version = s->version;
    c->valid = 1;
  }
  *l = c->l;
  return c->err;
}

/*
 * One function's value data in an old profile: the end of it, or NULL if it
 * is malformed or does not have these sites.
 */
UCOV_NOTRACE const uint8_t *ucov_pgo_old_values_next(const uint8_t *p, const uint8_t *end,
                                                     const uint16_t ns[3], uint32_t kinds) {
  if (end - p < 8)
    return 0;
  uint32_t total = get_u32(p);
  if (total < 8 || total % 8 || total > (uint64_t)(end - p) || get_u32(p + 4) != kinds)
    return 0;
  const uint8_t *q = p + 8, *rec_end = p + total;
  for (uint32_t k = 0; k < 3; k++) {
    if (!ns[k])
      continue;
    if (rec_end - q < 8 || get_u32(q) != k || get_u32(q + 4) != ns[k])
      return 0;
    uint64_t head = 8 + ns[k] + pad8(ns[k]), values = 0;
    if ((uint64_t)(rec_end - q) < head)
      return 0;
    for (uint32_t j = 0; j < ns[k]; j++)
      values += q[8 + j];
    q += head;
    if ((uint64_t)(rec_end - q) / 16 < values)
      return 0;
    q += values * 16;
  }
  return q == rec_end ? rec_end : 0;
}

/* Is old a raw profile of the same functions, whole? Fills *v if so. */
UCOV_NOTRACE int ucov_pgo_old_parse(const struct ucov_llvm_sections *s,
                                    const struct ucov_pgo_layout *l, const uint8_t *old, size_t len,
                                    struct ucov_pgo_old_view *v) {
  uint64_t n_data = (uint64_t)(s->data_end - s->data) / l->rec;
  uint64_t n_cnts = (uint64_t)(s->cnts_end - s->cnts);
  uint64_t n_bits = (uint64_t)(s->bits_end - s->bits);
  uint64_t n_names = (uint64_t)(s->names_end - s->names);
  uint64_t n_vtab = (uint64_t)(s->vtab_end - s->vtab);
  uint64_t n_vnames = (uint64_t)(s->vnames_end - s->vnames);
  uint32_t num = (uint32_t)l->version;
  uint64_t hdr = l->header_words * 8;
  if (len < hdr || get_u64(old) != UCOV_PROFRAW_MAGIC || get_u64(old + 8) != l->version)
    return 0;
#define W(i) get_u64(old + 8 * (i))
  uint64_t names_at = num >= 9 ? 9 : 7;
  if (W(3) != n_data || W(5) != n_cnts || W(names_at) != n_names)
    return 0;
  if (num >= 9 && W(7) != n_bits)
    return 0;
  if (num >= 10 && (W(13) != n_vtab / VTAB_RECORD || W(14) != n_vnames))
    return 0;
  /* Each part's offset, checked against the length as it grows. */
  uint64_t at = hdr, parts[12];
  int n = 0;
  parts[n++] = W(2);            /* binary ids */
  parts[n++] = n_data * l->rec; /* data */
  parts[n++] = W(4);            /* padding */
  parts[n++] = n_cnts * 8;      /* counters */
  parts[n++] = W(6);            /* padding */
  parts[n++] = num >= 9 ? n_bits : 0;
  parts[n++] = num >= 9 ? W(8) : 0; /* padding */
  parts[n++] = n_names + pad8(n_names);
  if (num >= 10) {
    parts[n++] = n_vtab + pad8(n_vtab);
    parts[n++] = n_vnames + pad8(n_vnames);
  }
#undef W
  uint64_t data = 0, cnts = 0, bits = 0;
  for (int i = 0; i < n; i++) {
    if (parts[i] > len - at)
      return 0;
    if (i == 1)
      data = at;
    else if (i == 3)
      cnts = at;
    else if (i == 5)
      bits = at;
    at += parts[i];
  }
  /* The same functions: NameRef and FuncHash of every record. */
  for (uint64_t i = 0; i < n_data; i++)
    for (int k = 0; k < 16; k++)
      if (old[data + i * l->rec + k] != s->data[i * l->rec + k])
        return 0;
  /* Whole value data for every record with value sites. */
  const uint8_t *p = old + at, *end = old + len;
  for (const uint8_t *r = s->data; r < s->data_end; r += l->rec) {
    uint16_t ns[3];
    uint64_t total;
    uint32_t kinds = ucov_pgo_record_sites(r, l, ns, &total);
    if (kinds && !(p = ucov_pgo_old_values_next(p, end, ns, kinds)))
      return 0;
  }
  v->cnts = old + cnts;
  v->bits = old + bits;
  v->values = old + at;
  v->end = end;
  return 1;
}
