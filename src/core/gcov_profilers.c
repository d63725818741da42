/* SPDX-License-Identifier: MIT */
/*
 * gcc's value profilers (-fprofile-generate), with libgcov's semantics, in
 * single-threaded and _atomic (-fprofile-update=atomic) forms. They run on
 * the instrumented program's hot path: no lock, no system call, and the TOPN
 * list nodes come from a static pool, not malloc (when it runs out, new values
 * are not tracked, as when libgcov's allocation fails).
 */
#include "ucov/port/gcov_abi.h"

#include "ucov/port/compiler.h"

/* Called by code built with -fprofile-generate; prototypes for -Wmissing-prototypes. */
void __gcov_interval_profiler(gcov_type *counters, gcov_type value, int start, unsigned steps);
void __gcov_interval_profiler_atomic(gcov_type *counters, gcov_type value, int start,
                                     unsigned steps);
void __gcov_pow2_profiler(gcov_type *counters, gcov_type value);
void __gcov_pow2_profiler_atomic(gcov_type *counters, gcov_type value);
void __gcov_topn_values_profiler(gcov_type *counters, gcov_type value);
void __gcov_topn_values_profiler_atomic(gcov_type *counters, gcov_type value);
void __gcov_indirect_call_profiler_v4(gcov_type value, void *cur_func);
void __gcov_indirect_call_profiler_v4_atomic(gcov_type value, void *cur_func);
void __gcov_average_profiler(gcov_type *counters, gcov_type value);
void __gcov_average_profiler_atomic(gcov_type *counters, gcov_type value);
void __gcov_ior_profiler(gcov_type *counters, gcov_type value);
void __gcov_ior_profiler_atomic(gcov_type *counters, gcov_type value);

/* The callee an indirect call is about to reach, set by the caller (a TLS
 * variable in libgcov, accessed initial-exec by instrumented code). */
struct gcov_indirect_call_tuple {
  void *callee;
  gcov_type *counters;
};
UCOV_EXPORT UCOV_THREAD_LOCAL struct gcov_indirect_call_tuple __gcov_indirect_call;

/* Incremented by instrumented code to order first executions (-fprofile-generate). */
UCOV_EXPORT gcov_type __gcov_time_profiler_counter;

#define TOPN_MAX_TRACKED 32 /* GCOV_TOPN_MAXIMUM_TRACKED_VALUES */
#define KVP_POOL 16384

static struct gcov_kvp kvp_pool[KVP_POOL];
static unsigned kvp_next;

static UCOV_NOTRACE struct gcov_kvp *kvp_alloc(void) {
  unsigned i = __atomic_fetch_add(&kvp_next, 1, __ATOMIC_RELAXED);
  return i < KVP_POOL ? &kvp_pool[i] : 0;
}

static UCOV_ALWAYS_INLINE UCOV_NOTRACE void counter_add(gcov_type *c, gcov_type v, int atomic) {
  if (atomic)
    __atomic_fetch_add(c, v, __ATOMIC_RELAXED);
  else
    *c += v;
}

/*
 * Count `value` in a TOPN counter {total, number of nodes, list}: bump its node,
 * or add a node while fewer than 32 are tracked, or else decrement the least
 * counted one and replace it once it falls below the new count.
 */
static UCOV_ALWAYS_INLINE UCOV_NOTRACE void topn_add(gcov_type *counters, gcov_type value,
                                                     int atomic) {
  if (counters[0] < 0)
    return; /* a merged profile with a negative total: leave it */
  counter_add(&counters[0], 1, atomic);
  struct gcov_kvp *prev = 0, *minimal = 0;
  struct gcov_kvp *node = (struct gcov_kvp *)(uintptr_t)UCOV_LOAD(&counters[2]);
  for (; node; node = node->next) {
    if (node->value == value) {
      counter_add(&node->count, 1, atomic);
      return;
    }
    if (!minimal || node->count < minimal->count)
      minimal = node;
    prev = node;
  }
  if (counters[1] == TOPN_MAX_TRACKED) {
    if (--minimal->count < 1) {
      minimal->value = value;
      minimal->count = 1;
    }
    return;
  }
  struct gcov_kvp *fresh = kvp_alloc();
  if (!fresh)
    return;
  fresh->value = value;
  fresh->count = 1;
  fresh->next = 0;
  int linked = 0;
  if (!counters[2]) {
    if (atomic) {
      gcov_type expected = 0;
      linked = __atomic_compare_exchange_n(&counters[2], &expected, (gcov_type)(uintptr_t)fresh, 0,
                                           __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    } else {
      counters[2] = (gcov_type)(uintptr_t)fresh;
      linked = 1;
    }
  } else if (prev && !prev->next) {
    if (atomic) {
      struct gcov_kvp *expected = 0;
      linked = __atomic_compare_exchange_n(&prev->next, &expected, fresh, 0, __ATOMIC_RELEASE,
                                           __ATOMIC_RELAXED);
    } else {
      prev->next = fresh;
      linked = 1;
    }
  }
  if (linked)
    counter_add(&counters[1], 1, atomic);
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_interval_profiler(gcov_type *counters, gcov_type value,
                                                       int start, unsigned steps) {
  gcov_type delta = value - start;
  counters[delta < 0 ? steps + 1 : delta >= (gcov_type)steps ? steps : (unsigned)delta]++;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_interval_profiler_atomic(gcov_type *counters, gcov_type value,
                                                              int start, unsigned steps) {
  gcov_type delta = value - start;
  __atomic_fetch_add(&counters[delta < 0                   ? steps + 1
                               : delta >= (gcov_type)steps ? steps
                                                           : (unsigned)delta],
                     1, __ATOMIC_RELAXED);
}

/* counters[0]: values that are not a power of two (or zero); counters[1]: powers of two. */
UCOV_EXPORT UCOV_NOTRACE void __gcov_pow2_profiler(gcov_type *counters, gcov_type value) {
  counters[value == 0 || (value & (value - 1)) ? 0 : 1]++;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_pow2_profiler_atomic(gcov_type *counters, gcov_type value) {
  __atomic_fetch_add(&counters[value == 0 || (value & (value - 1)) ? 0 : 1], 1, __ATOMIC_RELAXED);
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_topn_values_profiler(gcov_type *counters, gcov_type value) {
  topn_add(counters, value, 0);
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_topn_values_profiler_atomic(gcov_type *counters,
                                                                 gcov_type value) {
  topn_add(counters, value, 1);
}

/* Called in a function's prologue: if the call that reached it was the
 * indirect one being profiled, count this function's profile id there. */
UCOV_EXPORT UCOV_NOTRACE void __gcov_indirect_call_profiler_v4(gcov_type value, void *cur_func) {
  if (cur_func == __gcov_indirect_call.callee)
    topn_add(__gcov_indirect_call.counters, value, 0);
  __gcov_indirect_call.callee = 0;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_indirect_call_profiler_v4_atomic(gcov_type value,
                                                                      void *cur_func) {
  if (cur_func == __gcov_indirect_call.callee)
    topn_add(__gcov_indirect_call.counters, value, 1);
  __gcov_indirect_call.callee = 0;
}

/* counters[0]: sum of the values, counters[1]: how many. */
UCOV_EXPORT UCOV_NOTRACE void __gcov_average_profiler(gcov_type *counters, gcov_type value) {
  counters[0] += value;
  counters[1]++;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_average_profiler_atomic(gcov_type *counters, gcov_type value) {
  __atomic_fetch_add(&counters[0], value, __ATOMIC_RELAXED);
  __atomic_fetch_add(&counters[1], 1, __ATOMIC_RELAXED);
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_ior_profiler(gcov_type *counters, gcov_type value) {
  counters[0] |= value;
}

UCOV_EXPORT UCOV_NOTRACE void __gcov_ior_profiler_atomic(gcov_type *counters, gcov_type value) {
  __atomic_fetch_or(&counters[0], value, __ATOMIC_RELAXED);
}
