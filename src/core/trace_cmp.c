/* SPDX-License-Identifier: MIT */
/*
 * Trace path, CMP mode: comparison operands for fuzzers.
 *
 * Each record is 4 words {type, arg1, arg2, pc}; type bit 0 is KCOV_CMP_CONST
 * (arg1 is the compile-time constant), bits 1-2 are log2 of the operand size.
 * Word 0 of the area counts records, not words, as in Linux.
 */
#include "ucov/port/hooks.h"
#include "record.h"

static UCOV_ALWAYS_INLINE void trace_append_cmp(uint64_t type, uint64_t arg1, uint64_t arg2,
                                                uint64_t pc) {
  struct ucov_task *t = &ucov_task_self;
  if (UCOV_LIKELY(!(t->hot & UCOV_TASK_CMP)))
    return;
  uint64_t *area = t->area;
  uint64_t count = UCOV_LOAD(&area[0]);
  uint64_t start = 1 + count * KCOV_WORDS_PER_CMP;
  /* Same order and reasoning as trace_append_word(): count, barrier, record. */
  if (UCOV_LIKELY(start + KCOV_WORDS_PER_CMP <= t->size)) {
    UCOV_STORE(&area[0], count + 1);
    UCOV_SIGNAL_FENCE();
    UCOV_STORE(&area[start], type);
    UCOV_STORE(&area[start + 1], arg1);
    UCOV_STORE(&area[start + 2], arg2);
    UCOV_STORE(&area[start + 3], pc);
  }
}

#define RET_PC() ((uint64_t)(uintptr_t)__builtin_return_address(0))

#define DEFINE_CMP(bytes, log2, type)                                                              \
  UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_cmp##bytes(type a, type b) {                 \
    trace_append_cmp(KCOV_CMP_SIZE(log2), a, b, RET_PC());                                         \
  }                                                                                                \
  UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_const_cmp##bytes(type a, type b) {           \
    trace_append_cmp(KCOV_CMP_SIZE(log2) | KCOV_CMP_CONST, a, b, RET_PC());                        \
  }

DEFINE_CMP(1, 0, uint8_t)
DEFINE_CMP(2, 1, uint16_t)
DEFINE_CMP(4, 2, uint32_t)
DEFINE_CMP(8, 3, uint64_t)

/* gcc: floating-point comparisons, recorded as the operands' bit patterns.
 * (Not in a port built without floating point, UCOV_NO_FLOAT: a kernel whose
 * code compares no floats, and whose flags refuse float arguments.) */
#ifndef UCOV_NO_FLOAT
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_cmpf(float a, float b) {
  uint32_t ua, ub;
  __builtin_memcpy(&ua, &a, sizeof ua);
  __builtin_memcpy(&ub, &b, sizeof ub);
  trace_append_cmp(KCOV_CMP_SIZE(2), ua, ub, RET_PC());
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_cmpd(double a, double b) {
  uint64_t ua, ub;
  __builtin_memcpy(&ua, &a, sizeof ua);
  __builtin_memcpy(&ub, &b, sizeof ub);
  trace_append_cmp(KCOV_CMP_SIZE(3), ua, ub, RET_PC());
}
#endif

/*
 * cases[0] = number of case values, cases[1] = operand width in bits, values
 * from cases[2]. One CONST record per case value, as Linux writes them.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases) {
  if (UCOV_LIKELY(!(ucov_task_self.hot & UCOV_TASK_CMP)))
    return;
  uint64_t type;
  switch (cases[1]) {
  case 8:
    type = KCOV_CMP_SIZE(0);
    break;
  case 16:
    type = KCOV_CMP_SIZE(1);
    break;
  case 32:
    type = KCOV_CMP_SIZE(2);
    break;
  case 64:
    type = KCOV_CMP_SIZE(3);
    break;
  default:
    return;
  }
  uint64_t pc = RET_PC();
  for (uint64_t i = 0; i < cases[0]; i++)
    trace_append_cmp(type | KCOV_CMP_CONST, cases[i + 2], val, pc);
}

/*
 * clang's trace-div and trace-gep: the divisor and the index are what a fuzzer
 * wants to drive to zero or out of range; recorded as a comparison with the
 * constant 0, as libFuzzer does.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_div4(uint32_t val) {
  trace_append_cmp(KCOV_CMP_SIZE(2) | KCOV_CMP_CONST, 0, val, RET_PC());
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_div8(uint64_t val) {
  trace_append_cmp(KCOV_CMP_SIZE(3) | KCOV_CMP_CONST, 0, val, RET_PC());
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_gep(uintptr_t idx) {
  trace_append_cmp(KCOV_CMP_SIZE(3) | KCOV_CMP_CONST, 0, idx, RET_PC());
}
