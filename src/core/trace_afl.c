/* SPDX-License-Identifier: MIT */
/*
 * The hooks of an AFL++ target built by ucov cc --afl (libucov-afl.a). They
 * take the place of libucov.a's, which that link has weak
 * (libucov-weakhooks.a): each does what AFL++'s runtime does with the
 * compiler's call (an edge counted in the map; under cmplog, the operands
 * of a comparison logged) and then exactly what libucov.a's hook does for a
 * KCOV device of the process (trace_hooks.h). No allocation, lock or
 * system call: memory writes into maps mapped before main.
 */
#include "trace_hooks.h"
#include "ucov/port/afl.h"
#include "ucov/port/hooks.h"
#include "ucov/port/port.h"

/* One more hit on an edge: AFL++'s never-zero counter (255 + 1 is 1). */
static UCOV_ALWAYS_INLINE void afl_count(uint32_t i) {
  uint8_t *m = UCOV_LOAD(&ucov_afl_area);
  uint8_t v = (uint8_t)(m[i] + 1);
  m[i] = (uint8_t)(v + (v == 0));
}

/* 16 well-mixed bits of a PC. */
static UCOV_ALWAYS_INLINE uint32_t afl_hash16(uint64_t pc) {
  return (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 48);
}

/* gcc's trace-pc has no edges: AFL's classic pair of locations, the
 * previous one halved so that A->B and B->A differ. Per thread. */
static UCOV_THREAD_LOCAL uint32_t afl_prev;

UCOV_NOTRACE void ucov_afl_forget_prev(void) {
  afl_prev = 0;
}

UCOV_NOTRACE uint32_t ucov_afl_guards(void) {
  return UCOV_LOAD(&ucov_trace_guard_next);
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc(void) {
  uint64_t pc = RET_PC();
  uint32_t cur = afl_hash16(pc) & UCOV_LOAD(&ucov_afl_pc_mask);
  afl_count(cur ^ afl_prev);
  afl_prev = cur >> 1;
  trace_hook_pc(pc);
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  afl_count(UCOV_LOAD(guard));
  trace_hook_pc_guard(guard, RET_PC());
}

/*
 * Guards are numbered when their module starts, 1, 2, ... process-wide (the
 * sequence KCOV's UNIQUE mode numbers by, so its keys stay one per edge),
 * below the map's size: a module loaded after the fork server started
 * shares numbers rather than count outside the map, and the process says
 * so, once.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  static int said;
  if (start == stop || *start)
    return; /* (called again for a module already numbered) */
  uint32_t limit = UCOV_LOAD(&ucov_afl_guard_limit), wrapped = 0;
  for (uint32_t *g = start; g < stop; g++) {
    uint32_t idx = __atomic_add_fetch(&ucov_trace_guard_next, 1, __ATOMIC_RELAXED);
    wrapped |= idx >= limit;
    *g = idx < limit ? idx : 1 + (idx - 1) % (limit - 1);
  }
  if (wrapped && !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
    ucov_port_log("ucov: afl: a module loaded after the fork server started has guards past "
                  "afl-fuzz's map: they share the map's edges (numbered modulo its size)");
}

/* One comparison into the log, as AFL++'s instruction hooks write it: the
 * header's hit count picks the slot (of 32, round robin). */
static UCOV_ALWAYS_INLINE void afl_cmp(uint64_t key, uint64_t a, uint64_t b, uint32_t shape,
                                       uint32_t attr) {
  struct ucov_afl_cmp_map *c = UCOV_LOAD(&ucov_afl_cmp);
  if (UCOV_LIKELY(!c))
    return;
  uint32_t k = afl_hash16(key) & (UCOV_AFL_CMP_W - 1), slot = 0;
  uint64_t h = UCOV_LOAD(&c->headers[k]);
  if (UCOV_AFL_HDR_TYPE(h) != UCOV_AFL_CMP_TYPE_INS) {
    h = UCOV_AFL_HDR(1, shape, UCOV_AFL_CMP_TYPE_INS, attr);
  } else {
    slot = UCOV_AFL_HDR_HITS(h);
    uint32_t s = UCOV_AFL_HDR_SHAPE(h) > shape ? UCOV_AFL_HDR_SHAPE(h) : shape;
    h = UCOV_AFL_HDR(slot + 1, s, UCOV_AFL_CMP_TYPE_INS, attr) | (h & 0x0000ffffff000000ull);
  }
  UCOV_STORE(&c->headers[k], h);
  struct ucov_afl_cmp_operands *o = &c->log[k][slot & (UCOV_AFL_CMP_H - 1)];
  UCOV_STORE(&o->v0, a);
  UCOV_STORE(&o->v1, b);
}

/* Equal operands teach nothing (AFL++ skips them too). */
#define DEFINE_AFL_CMP(bytes, log2, type)                                                          \
  UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_cmp##bytes(type a, type b) {                 \
    uint64_t pc = RET_PC();                                                                        \
    if (a != b)                                                                                    \
      afl_cmp(pc, a, b, (bytes)-1, 0);                                                             \
    trace_append_cmp(KCOV_CMP_SIZE(log2), a, b, pc);                                               \
  }                                                                                                \
  UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_const_cmp##bytes(type a, type b) {           \
    uint64_t pc = RET_PC();                                                                        \
    if (a != b)                                                                                    \
      afl_cmp(pc, a, b, (bytes)-1, 0);                                                             \
    trace_append_cmp(KCOV_CMP_SIZE(log2) | KCOV_CMP_CONST, a, b, pc);                              \
  }

DEFINE_AFL_CMP(1, 0, uint8_t)
DEFINE_AFL_CMP(2, 1, uint16_t)
DEFINE_AFL_CMP(4, 2, uint32_t)
DEFINE_AFL_CMP(8, 3, uint64_t)

/* A switch: each case a comparison of its own (key: the PC plus the case's
 * place), 8 bytes wide, attribute 1 (equality), as AFL++ logs them. */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_switch(uint64_t val, void *arg) {
  uint64_t pc = RET_PC(), *cases = arg;
  if (UCOV_UNLIKELY(UCOV_LOAD(&ucov_afl_cmp) != 0) && cases[1] <= 64)
    for (uint64_t i = 0; i < cases[0]; i++)
      if (val != cases[i + 2])
        afl_cmp(pc + i, val, cases[i + 2], 7, 1);
  trace_hook_switch(val, cases, pc);
}
