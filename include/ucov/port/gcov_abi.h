/* SPDX-License-Identifier: MIT */
/*
 * gcc's gcov runtime ABI (libgcc/libgcov.h, gcc/gcov-io.h) for GCC 12 to 15,
 * and the .gcda constants. Facts, not code, taken from GCC's public sources.
 *
 * struct gcov_info differs between versions only in the length of merge[]
 * (GCOV_COUNTERS: 8 for GCC 12 and 13, 9 for 14, 10 for 15), which moves the
 * fields after it; the version word of each object says which layout it has.
 */
#ifndef UCOV_GCOV_ABI_H
#define UCOV_GCOV_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t gcov_type;
typedef void (*gcov_merge_fn)(gcov_type *, unsigned);

struct gcov_ctr_info {
  uint32_t num;      /* number of counters */
  gcov_type *values; /* the counters */
};

struct gcov_fn_info {
  const struct gcov_info *key; /* the unit that owns it; another: unselected comdat copy */
  uint32_t ident;
  uint32_t lineno_checksum;
  uint32_t cfg_checksum;
  struct gcov_ctr_info ctrs[]; /* one per counter kind whose merge[] entry is set */
};

/* The fields every supported version has, in this order, up to merge[]. */
struct gcov_info {
  uint32_t version;
  struct gcov_info *next;
  uint32_t stamp;
  uint32_t checksum; /* GCC 12 and later */
  const char *filename;
  gcov_merge_fn merge[]; /* GCOV_COUNTERS entries, then n_functions, functions */
};

/* The fields after merge[GCOV_COUNTERS]. */
struct gcov_info_tail {
  unsigned n_functions;
  const struct gcov_fn_info *const *functions;
};

/* Counter kinds, in merge[] order. */
enum {
  GCOV_COUNTER_ARCS = 0,
  GCOV_COUNTER_V_INTERVAL = 1,
  GCOV_COUNTER_V_POW2 = 2,
  GCOV_COUNTER_V_TOPN = 3,
  GCOV_COUNTER_V_INDIR = 4,
  GCOV_COUNTER_AVERAGE = 5,
  GCOV_COUNTER_IOR = 6,
  GCOV_TIME_PROFILER = 7,
  GCOV_COUNTER_CONDS = 8, /* GCC 14 */
  GCOV_COUNTERS_MAX = 10,
};

/* In memory a TOPN counter is {total, number of pairs, pointer to a list of
 * struct gcov_kvp}; on disk {total, n, then n (value, count) pairs}. */
#define GCOV_TOPN_MEM_COUNTERS 3
#define GCOV_TOPN_DISK_COUNTERS 2
struct gcov_kvp {
  gcov_type value;
  gcov_type count;
  struct gcov_kvp *next;
};

/* .gcda records (GCC 12 and later: lengths in bytes). */
#define GCOV_DATA_MAGIC 0x67636461u /* "gcda" */
#define GCOV_TAG_FUNCTION 0x01000000u
#define GCOV_TAG_FUNCTION_LENGTH 12u
#define GCOV_TAG_COUNTER_BASE 0x01a10000u
#define GCOV_TAG_FOR_COUNTER(kind) (GCOV_TAG_COUNTER_BASE + ((uint32_t)(kind) << 17))
#define GCOV_TAG_OBJECT_SUMMARY 0xa1000000u
#define GCOV_TAG_OBJECT_SUMMARY_LENGTH 8u

/* Counter kinds whose values add up across runs (and so have reset baselines). */
static inline int gcov_kind_is_additive(unsigned kind) {
  return kind == GCOV_COUNTER_ARCS || kind == GCOV_COUNTER_V_INTERVAL ||
         kind == GCOV_COUNTER_V_POW2 || kind == GCOV_COUNTER_AVERAGE;
}

static inline int gcov_kind_is_topn(unsigned kind) {
  return kind == GCOV_COUNTER_V_TOPN || kind == GCOV_COUNTER_V_INDIR;
}

/* GCC major version of a version word ("B22*" is 12.2), or 0 if malformed. */
static inline unsigned gcov_version_major(uint32_t version) {
  unsigned c0 = version >> 24, c1 = (version >> 16) & 0xff;
  if (c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9')
    return 0;
  return 10 * (c0 - 'A') + (c1 - '0');
}

/* GCOV_COUNTERS of that GCC, or 0 if ucov does not support it. */
static inline unsigned gcov_counters_of(uint32_t version) {
  switch (gcov_version_major(version)) {
  case 12:
  case 13:
    return 8;
  case 14:
    return 9;
  case 15:
    return 10;
  default:
    return 0;
  }
}

static inline const struct gcov_info_tail *gcov_info_tail(const struct gcov_info *gi,
                                                          unsigned n_counters) {
  return (const struct gcov_info_tail *)(const void *)&gi->merge[n_counters];
}

#endif
