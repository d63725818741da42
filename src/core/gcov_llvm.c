/* SPDX-License-Identifier: MIT */
/* clang's gcov callbacks and the compiler-rt-format .gcda writer (see gcov_llvm.h). */
#include "gcov_llvm.h"

#include "writer.h"
#include "gcov.h"
#include "ucov/port.h"

void llvm_gcov_init(void (*writeout)(void), void (*reset)(void));
void llvm_gcda_start_file(const char *orig_filename, uint32_t version, uint32_t checksum);
void llvm_gcda_emit_function(uint32_t ident, uint32_t func_checksum, uint32_t cfg_checksum);
void llvm_gcda_emit_arcs(uint32_t num_counters, uint64_t *counters);
void llvm_gcda_summary_info(void);
void llvm_gcda_end_file(void);

#define LLVM_TAG_FUNCTION 0x01000000u
#define LLVM_TAG_ARCS 0x01a10000u
#define LLVM_TAG_OBJECT_SUMMARY 0xa1000000u
#define LLVM_TAG_PROGRAM_SUMMARY 0xa3000000u

static struct ucov_llvm_unit *units;
static struct ucov_llvm_unit *capturing; /* the unit a writeout call is describing */
static int capture_failed;

UCOV_NOTRACE void ucov_llvm_unit_remove(struct ucov_llvm_unit *u) {
  for (struct ucov_llvm_unit **p = &units; *p; p = &(*p)->next)
    if (*p == u) {
      *p = u->next;
      ucov_port_free(u->fns);
      ucov_port_free(u->baseline);
      ucov_port_free(u->pending);
      ucov_port_free(u);
      return;
    }
}

UCOV_NOTRACE struct ucov_llvm_unit *ucov_llvm_units(void) {
  return units;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcov_init(void (*writeout)(void), void (*reset)(void)) {
  (void)reset; /* zeroes live counters: never called */
  if (!writeout)
    return;
  ucov_port_lock();
  capture_failed = 0;
  writeout(); /* calls back llvm_gcda_*: the module describes itself */
  capturing = 0;
  if (capture_failed)
    ucov_port_log("ucov: gcov: out of memory: a clang unit is not registered");
  ucov_port_unlock();
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_start_file(const char *orig_filename, uint32_t version,
                                                   uint32_t checksum) {
  struct ucov_llvm_unit *u = ucov_port_alloc(sizeof(*u));
  capturing = u;
  if (!u) {
    capture_failed = 1;
    return;
  }
  u->filename = orig_filename;
  u->version = version;
  u->checksum = checksum;
  u->next = units;
  units = u;
  ucov_port_object_added();
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_emit_function(uint32_t ident, uint32_t func_checksum,
                                                      uint32_t cfg_checksum) {
  struct ucov_llvm_unit *u = capturing;
  if (!u)
    return;
  if (u->n_fns == u->cap) {
    unsigned cap = u->cap ? 2 * u->cap : 16;
    struct ucov_llvm_fn *fns = ucov_port_alloc(cap * sizeof(*fns));
    if (!fns) {
      capture_failed = 1;
      return;
    }
    for (unsigned i = 0; i < u->n_fns; i++)
      fns[i] = u->fns[i];
    ucov_port_free(u->fns);
    u->fns = fns;
    u->cap = cap;
  }
  struct ucov_llvm_fn *f = &u->fns[u->n_fns++];
  f->ident = ident;
  f->func_checksum = func_checksum;
  f->cfg_checksum = cfg_checksum;
  f->num = 0;
  f->counters = 0;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_emit_arcs(uint32_t num_counters, uint64_t *counters) {
  struct ucov_llvm_unit *u = capturing;
  if (!u || !u->n_fns)
    return;
  u->fns[u->n_fns - 1].num = num_counters;
  u->fns[u->n_fns - 1].counters = counters;
  u->n_counters += num_counters;
}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_summary_info(void) {}

UCOV_EXPORT UCOV_NOTRACE void llvm_gcda_end_file(void) {
  capturing = 0;
}

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

static UCOV_NOTRACE int baseline_ready(struct ucov_llvm_unit *u) {
  if (!u->baseline && u->n_counters) {
    u->baseline = ucov_port_alloc(u->n_counters * sizeof(uint64_t));
    if (!u->baseline)
      return -UCOV_ENOMEM;
  }
  return 0;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_llvm_reset(struct ucov_llvm_unit *u) {
  int err = baseline_ready(u);
  uint64_t b = 0;
  for (unsigned f = 0; !err && f < u->n_fns; f++)
    for (uint32_t i = 0; i < u->fns[f].num; i++)
      u->baseline[b++] = UCOV_LOAD_RACY(&u->fns[f].counters[i]);
  if (!err)
    u->gen++;
  return err;
}

/* A read-and-reset into a copy of the baseline (see ucov_gcov_snapshot). */
UCOV_NOTRACE int ucov_llvm_snapshot(struct ucov_sink *sink, struct ucov_llvm_unit *u,
                                    uint64_t token) {
  if (baseline_ready(u))
    return -UCOV_ENOMEM;
  if (!u->pending && u->n_counters) {
    u->pending = ucov_port_alloc(u->n_counters * sizeof(uint64_t));
    if (!u->pending)
      return -UCOV_ENOMEM;
  }
  for (uint64_t i = 0; i < u->n_counters; i++)
    u->pending[i] = u->baseline[i];
  uint64_t *real = u->baseline, gen = u->gen;
  u->baseline = u->pending;
  int err = ucov_llvm_write(sink, u, 0, 0, 1, UCOV_GCOV_RESET);
  u->pending = u->baseline;
  u->baseline = real;
  u->gen = gen;
  u->pending_token = err ? 0 : token;
  u->pending_gen = gen;
  return err;
}

UCOV_NOTRACE void ucov_llvm_commit(struct ucov_llvm_unit *u) {
  uint64_t *old = u->baseline;
  u->baseline = u->pending;
  u->pending = old;
  u->pending_token = 0;
  u->gen++;
}

UCOV_RACY_READS UCOV_NOTRACE int ucov_llvm_write(struct ucov_sink *sink, struct ucov_llvm_unit *u,
                                                 const uint8_t *old, size_t old_len, int new_run,
                                                 unsigned flags) {
  if ((flags & UCOV_GCOV_RESET) && baseline_ready(u))
    return -UCOV_ENOMEM;
  if (flags & UCOV_GCOV_RESET)
    u->gen++;
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
      uint64_t live = UCOV_LOAD_RACY(&fn->counters[i]), v = live;
      if (u->baseline) {
        v -= u->baseline[b];
        if (flags & UCOV_GCOV_RESET)
          u->baseline[b] = live;
      }
      if (merge)
        v += old_u64(old, pos + 8 + 8ull * i);
      ucov_w_counter(&o, (gcov_type)v);
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
