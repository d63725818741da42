/* SPDX-License-Identifier: MIT */
/*
 * The .gcda format of compiler-rt's GCDAProfiling, for clang units (see
 * gcov_llvm.h): the writer alone, each counter taken through a struct
 * ucov_counts, merged record by record with an existing file as compiler-rt
 * merges.
 */
#include "gcov.h"
#include "gcov_llvm.h"
#include "writer.h"

#include "ucov/port/port.h"

#define LLVM_TAG_FUNCTION 0x01000000u
#define LLVM_TAG_ARCS 0x01a10000u
#define LLVM_TAG_OBJECT_SUMMARY 0xa1000000u
#define LLVM_TAG_PROGRAM_SUMMARY 0xa3000000u

/* compiler-rt's reading of the version word: 48 for "408*", 121 for "B21*". */
static UCOV_NOTRACE unsigned llvm_gcov_version(uint32_t version) {
  unsigned c3 = version >> 24, c2 = (version >> 16) & 255, c1 = (version >> 8) & 255;
  return c3 >= 'A' ? (c3 - 'A') * 100 + (c2 - '0') * 10 + c1 - '0' : (c3 - '0') * 10 + c1 - '0';
}

/* A word of the old file at byte pos, or ~0u past its end (compiler-rt's -1). */
static UCOV_NOTRACE uint32_t old_u32(const uint8_t *old, size_t len, uint64_t pos) {
  if (!old || pos + 4 > len)
    return ~0u;
  uint32_t v;
  __builtin_memcpy(&v, old + pos, 4);
  return v;
}

static UCOV_NOTRACE uint64_t old_u64(const uint8_t *old, uint64_t pos) {
  uint32_t lo, hi;
  __builtin_memcpy(&lo, old + pos, 4);
  __builtin_memcpy(&hi, old + pos + 4, 4);
  return (uint64_t)hi << 32 | lo;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_llvm_gcda_write(struct ucov_sink *sink,
                                                      const struct ucov_llvm_unit *u,
                                                      const uint8_t *old, size_t old_len,
                                                      int new_run, const struct ucov_counts *c) {
  unsigned gv = llvm_gcov_version(u->version);
  uint32_t fn_len = gv >= 47 ? 3 : 2;
  struct ucov_writer o;
  ucov_w_init(&o, sink);
  ucov_w_u32(&o, GCOV_DATA_MAGIC);
  ucov_w_u32(&o, u->version);
  ucov_w_u32(&o, u->checksum);
  /* Positions in the old file follow ours: compiler-rt merges record by record. */
  uint64_t pos = 12, b = 0;
  int mismatch = 0;
  for (unsigned f = 0; f < u->n_fns; f++) {
    const struct ucov_llvm_fn *fn = &u->fns[f];
    ucov_w_u32(&o, LLVM_TAG_FUNCTION);
    ucov_w_u32(&o, fn_len);
    ucov_w_u32(&o, fn->ident);
    ucov_w_u32(&o, fn->func_checksum);
    if (fn_len == 3)
      ucov_w_u32(&o, fn->cfg_checksum);
    pos += 8 + 4 * (uint64_t)fn_len;
    uint32_t tag = old_u32(old, old_len, pos), len = old_u32(old, old_len, pos + 4);
    int merge = tag == LLVM_TAG_ARCS && len / 2 == fn->num && pos + 8 + 8ull * fn->num <= old_len;
    if (tag != ~0u && !merge)
      mismatch = 1;
    ucov_w_u32(&o, LLVM_TAG_ARCS);
    ucov_w_u32(&o, fn->num * 2);
    for (uint32_t i = 0; i < fn->num; i++, b++) {
      uint64_t v = ucov_counts_take(c, b, UCOV_LOAD_RACY(&fn->counters[i]));
      if (merge)
        v += old_u64(old, pos + 8 + 8ull * i);
      ucov_w_counter(&o, (int64_t)v);
    }
    pos += 8 + 8ull * fn->num;
  }
  /* The run count: the old summary's, plus this run once. */
  uint32_t runs = 1, tag = old_u32(old, old_len, pos);
  if (tag != ~0u) {
    uint32_t want = gv >= 90 ? LLVM_TAG_OBJECT_SUMMARY : LLVM_TAG_PROGRAM_SUMMARY;
    uint32_t prev = old_u32(old, old_len, pos + (gv >= 90 ? 8 : 16));
    if (tag == want && prev != ~0u)
      runs = prev + (new_run ? 1 : 0);
    else
      mismatch = 1;
  }
  if (gv >= 90) {
    ucov_w_u32(&o, LLVM_TAG_OBJECT_SUMMARY);
    ucov_w_u32(&o, 2);
    ucov_w_u32(&o, runs);
    ucov_w_u32(&o, 0); /* sum_max */
  } else {
    ucov_w_u32(&o, LLVM_TAG_PROGRAM_SUMMARY);
    ucov_w_u32(&o, 3);
    ucov_w_u32(&o, 0);
    ucov_w_u32(&o, 0);
    ucov_w_u32(&o, runs);
  }
  ucov_w_u32(&o, 0); /* EOF record: tag 0, length 0 */
  ucov_w_u32(&o, 0);
  ucov_w_flush(&o);
  if (mismatch)
    ucov_port_log("ucov: gcov: an existing .gcda did not match a clang unit; not merged there");
  return o.err;
}
