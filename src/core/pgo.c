/* SPDX-License-Identifier: MIT */
/*
 * The LLVM raw profile (version 8, clang 14-17): header of 11 u64 {magic,
 * version, binary-ids size, data records, padding, counters, padding, names
 * size, counters delta, names delta, value-kind-last}, the GNU build-id
 * (u64 length, bytes, padding to 8), the data records, the counters, the
 * names, padding to 8. No value-profile data (no value sites are written).
 */
#include "pgo.h"

#include "gcda_out.h"
#include "ucov/port.h"

uint64_t *ucov_pgo_baseline;

static UCOV_NOTRACE uint64_t pad8(uint64_t n) {
  return (8 - n % 8) % 8;
}

static UCOV_NOTRACE uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  __builtin_memcpy(&v, p, 8);
  return v;
}

/* Where old's counters are, if it is a raw profile of the same functions; else NULL. */
static UCOV_NOTRACE const uint8_t *old_counters(const struct ucov_llvm_sections *s,
                                                const uint8_t *old, size_t len) {
  uint64_t n_data = (uint64_t)(s->data_end - s->data) / UCOV_PROFRAW_DATA_SIZE;
  uint64_t n_cnts = (uint64_t)(s->cnts_end - s->cnts);
  uint64_t names = (uint64_t)(s->names_end - s->names);
  if (len < 88 || get_u64(old) != UCOV_PROFRAW_MAGIC || get_u64(old + 8) != s->version ||
      get_u64(old + 24) != n_data || get_u64(old + 40) != n_cnts || get_u64(old + 56) != names)
    return 0;
  uint64_t ids = get_u64(old + 16), pad = get_u64(old + 32);
  if (ids > len || n_data > len / UCOV_PROFRAW_DATA_SIZE || pad > len || n_cnts > len / 8)
    return 0;
  uint64_t data = 88 + ids, cnts = data + n_data * UCOV_PROFRAW_DATA_SIZE + pad;
  if (cnts > len || len - cnts < n_cnts * 8)
    return 0;
  /* The same functions: NameRef and FuncHash of every record. */
  for (uint64_t i = 0; i < n_data; i++)
    for (int k = 0; k < 16; k++)
      if (old[data + i * UCOV_PROFRAW_DATA_SIZE + k] != s->data[i * UCOV_PROFRAW_DATA_SIZE + k])
        return 0;
  return old + cnts;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_write(struct ucov_sink *sink,
                                                const struct ucov_llvm_sections *s,
                                                uint64_t **baseline, int reset) {
  return ucov_pgo_write_merged(sink, s, baseline, reset, 0, 0);
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_write_merged(struct ucov_sink *sink,
                                                       const struct ucov_llvm_sections *s,
                                                       uint64_t **baseline, int reset,
                                                       const uint8_t *old, size_t old_len) {
  const uint8_t *old_cnts = old ? old_counters(s, old, old_len) : 0;
  if (old && !old_cnts)
    return -UCOV_EINVAL;
  uint64_t n_data = (uint64_t)(s->data_end - s->data) / UCOV_PROFRAW_DATA_SIZE;
  uint64_t n_cnts = (uint64_t)(s->cnts_end - s->cnts);
  uint64_t names_size = (uint64_t)(s->names_end - s->names);
  if (reset && !*baseline && n_cnts) {
    *baseline = ucov_port_alloc(n_cnts * 8);
    if (!*baseline)
      return -UCOV_ENOMEM;
  }
  uint64_t ids = s->build_id ? 8 + s->build_id_size + pad8(s->build_id_size) : 0;
  struct gcda_out o;
  out_init(&o, sink);
  out_u64(&o, UCOV_PROFRAW_MAGIC);
  out_u64(&o, s->version);
  out_u64(&o, ids);
  out_u64(&o, n_data);
  out_u64(&o, 0); /* padding before the counters */
  out_u64(&o, n_cnts);
  out_u64(&o, 0); /* padding after them */
  out_u64(&o, names_size);
  out_u64(&o, (uint64_t)((uintptr_t)s->cnts - (uintptr_t)s->data));
  out_u64(&o, (uint64_t)(uintptr_t)s->names);
  out_u64(&o, 1); /* IPVK_Last */
  if (s->build_id) {
    static const uint8_t zero[8];
    out_u64(&o, s->build_id_size);
    out_bytes(&o, s->build_id, s->build_id_size);
    out_bytes(&o, zero, pad8(s->build_id_size));
  }
  out_bytes(&o, s->data, (size_t)(n_data * UCOV_PROFRAW_DATA_SIZE));
  uint64_t *base = *baseline;
  for (uint64_t i = 0; i < n_cnts; i++) {
    uint64_t live = UCOV_LOAD_RACY(&s->cnts[i]), v = live;
    if (base) {
      v -= base[i];
      if (reset)
        base[i] = live;
    }
    if (old_cnts)
      v += get_u64(old_cnts + i * 8);
    out_u64(&o, v);
  }
  static const uint8_t zero[8];
  out_bytes(&o, s->names, (size_t)names_size);
  out_bytes(&o, zero, pad8(names_size));
  out_flush(&o);
  return o.err;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_pgo_reset(const struct ucov_llvm_sections *s) {
  uint64_t n = (uint64_t)(s->cnts_end - s->cnts);
  if (!ucov_pgo_baseline && n) {
    ucov_pgo_baseline = ucov_port_alloc(n * 8);
    if (!ucov_pgo_baseline)
      return -UCOV_ENOMEM;
  }
  for (uint64_t i = 0; i < n; i++)
    ucov_pgo_baseline[i] = UCOV_LOAD_RACY(&s->cnts[i]);
  return 0;
}
