/* SPDX-License-Identifier: MIT */
/*
 * Trace path, CMP mode: comparison operands for fuzzers.
 * Each record is 4 words (trace_append_cmp in trace_hooks.h).
 */
#include "ucov/port/hooks.h"
#include "trace_hooks.h"

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

/* One CONST record per case value (trace_switch_cmp). */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_switch(uint64_t val, void *cases) {
  if (UCOV_LIKELY(!trace_cmp_on()))
    return; /* (the PC taken only past this) */
  trace_switch_cmp(val, (uint64_t *)cases, RET_PC());
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
