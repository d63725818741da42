/* SPDX-License-Identifier: MIT */
/*
 * LLVM value profiling: the entry points clang's value-profiling code calls
 * (indirect-call targets with -fprofile-generate or -mllvm
 * -enable-value-profiling, memcpy/memset sizes with -fprofile-generate).
 *
 * Each function's data record points (Values) at a static array of list
 * heads, one per value site; a site's list holds up to max_per_site
 * {value, count} nodes, taken from __llvm_prf_vnds and then from a static
 * pool, never allocated. The policy is compiler-rt's: a known value adds to
 * its count; a new value takes a node while the site has room; at a full
 * site the coldest node's count goes down, and a node cold enough is handed
 * to the new value. Unlike compiler-rt, counts add atomically (no count is
 * lost between threads) and a node whose link lost a race is linked further
 * on instead of being dropped.
 *
 * No lock, allocation or call on these paths: they are safe in signal
 * handlers and in any thread. Nodes are only ever appended to a list, so a
 * writer walking it concurrently sees a consistent prefix.
 */
#include "pgo.h"

static uint32_t values_off;   /* offset of Values in a data record; 0: not set up */
static uint32_t max_per_site; /* values kept per site */
static struct ucov_vp_node *sec_nodes;
static uint64_t sec_count;
static uint64_t taken;   /* nodes handed out (may run past the end) */
static uint64_t dropped; /* values not tracked: no node left */
static struct ucov_vp_node pool[UCOV_VP_POOL_NODES];

UCOV_NOTRACE void ucov_vp_setup(const struct ucov_llvm_sections *s, const struct ucov_pgo_layout *l,
                                uint32_t max) {
  sec_nodes = s->vnds;
  /* In bytes: the section may end in padding, not a whole node. */
  uintptr_t bytes = (uintptr_t)s->vnds_end - (uintptr_t)s->vnds;
  sec_count = s->vnds && s->vnds_end > s->vnds ? bytes / sizeof(struct ucov_vp_node) : 0;
  max_per_site = !max                         ? UCOV_VP_DEFAULT_PER_SITE
                 : max > UCOV_VP_MAX_PER_SITE ? UCOV_VP_MAX_PER_SITE
                                              : max;
  __atomic_store_n(&values_off, l->off_values, __ATOMIC_RELEASE);
}

UCOV_NOTRACE uint64_t ucov_vp_nodes(void) {
  return sec_count + UCOV_VP_POOL_NODES;
}

UCOV_NOTRACE struct ucov_vp_node *ucov_vp_node_at(uint64_t i) {
  if (i < sec_count)
    return &sec_nodes[i];
  if (i - sec_count < UCOV_VP_POOL_NODES)
    return &pool[i - sec_count];
  return 0;
}

UCOV_NOTRACE uint64_t ucov_vp_index(const struct ucov_vp_node *n) {
  uintptr_t p = (uintptr_t)n;
  if (sec_count && p >= (uintptr_t)sec_nodes && p < (uintptr_t)(sec_nodes + sec_count))
    return (uint64_t)(n - sec_nodes);
  if (p >= (uintptr_t)pool && p < (uintptr_t)(pool + UCOV_VP_POOL_NODES))
    return sec_count + (uint64_t)(n - pool);
  return ~0ull;
}

UCOV_NOTRACE uint64_t ucov_vp_used(void) {
  uint64_t t = __atomic_load_n(&taken, __ATOMIC_ACQUIRE);
  return t < ucov_vp_nodes() ? t : ucov_vp_nodes();
}

UCOV_NOTRACE uint64_t ucov_vp_dropped(void) {
  return __atomic_load_n(&dropped, __ATOMIC_RELAXED);
}

#define LOAD_NEXT(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

static UCOV_NOTRACE void vp_add(uint64_t value, void *data, uint32_t site, uint64_t n) {
  uint32_t off = __atomic_load_n(&values_off, __ATOMIC_ACQUIRE);
  if (UCOV_UNLIKELY(!off || !data || !n))
    return;
  struct ucov_vp_node **heads;
  __builtin_memcpy(&heads, (const char *)data + off, sizeof(heads));
  if (UCOV_UNLIKELY(!heads))
    return; /* sites not allocated statically: compiler-rt would calloc them */
  struct ucov_vp_node **link = &heads[site];
  struct ucov_vp_node *cur = LOAD_NEXT(link), *coldest = 0, *fresh = 0;
  uint64_t cold = ~0ull;
  uint32_t seen = 0;
  for (;;) {
    for (; cur; link = &cur->next, cur = LOAD_NEXT(link), seen++) {
      if (UCOV_LOAD(&cur->value) == value) {
        /* (A node taken for it, if another thread linked the value first,
         * stays unused.) */
        __atomic_fetch_add(&cur->count, n, __ATOMIC_RELAXED);
        return;
      }
      uint64_t c = UCOV_LOAD(&cur->count);
      if (c < cold) {
        cold = c;
        coldest = cur;
      }
    }
    if (seen >= max_per_site) {
      if (!coldest)
        return;
      if (cold <= n) { /* cold enough: the node now tracks this value */
        UCOV_STORE(&coldest->value, value);
        UCOV_STORE(&coldest->count, n);
      } else {
        __atomic_fetch_sub(&coldest->count, n, __ATOMIC_RELAXED);
      }
      return;
    }
    if (!fresh) {
      uint64_t i = __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
      fresh = ucov_vp_node_at(i);
      if (!fresh) {
        __atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
        return;
      }
      UCOV_STORE(&fresh->value, value);
      UCOV_STORE(&fresh->count, n);
      UCOV_STORE(&fresh->next, (struct ucov_vp_node *)0);
    }
    struct ucov_vp_node *expect = 0;
    if (__atomic_compare_exchange_n(link, &expect, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return;
    cur = expect; /* another thread appended: go on from its node */
  }
}

UCOV_EXPORT UCOV_NOTRACE void __llvm_profile_instrument_target(uint64_t value, void *data,
                                                               uint32_t site) {
  vp_add(value, data, site, 1);
}

UCOV_EXPORT UCOV_NOTRACE void
__llvm_profile_instrument_target_value(uint64_t value, void *data, uint32_t site, uint64_t count) {
  vp_add(value, data, site, count);
}

/*
 * Memop sizes are kept by range, as InstrProfData.inc defines them: 0-8 each
 * on its own, powers of two on their own, others as the power of two below
 * plus one, 513 and above as 513.
 */
UCOV_EXPORT UCOV_NOTRACE void __llvm_profile_instrument_memop(uint64_t size, void *data,
                                                              uint32_t site) {
  uint64_t rep = size;
  if (size > 8 && size >= 513)
    rep = 513;
  else if (size > 8 && (size & (size - 1)))
    rep = (1ull << (63 - __builtin_clzll(size))) + 1;
  vp_add(rep, data, site, 1);
}
