/* SPDX-License-Identifier: MIT */
/* Prototypes of the instrumentation hooks the compilers call (the core defines them). */
#ifndef UCOV_CORE_HOOKS_H
#define UCOV_CORE_HOOKS_H

#include <stdint.h>

/* -fsanitize-coverage=trace-pc (gcc, clang) */
void __sanitizer_cov_trace_pc(void);
/* -fsanitize-coverage=trace-pc-guard (clang) */
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
/* LLVM 23 trace-pc-entry-exit */
void __sanitizer_cov_trace_pc_entry(void);
void __sanitizer_cov_trace_pc_exit(void);
/* -fsanitize-coverage=trace-cmp (gcc, clang); cmpf/cmpd: gcc only */
void __sanitizer_cov_trace_cmp1(uint8_t a, uint8_t b);
void __sanitizer_cov_trace_cmp2(uint16_t a, uint16_t b);
void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b);
void __sanitizer_cov_trace_cmp8(uint64_t a, uint64_t b);
void __sanitizer_cov_trace_const_cmp1(uint8_t a, uint8_t b);
void __sanitizer_cov_trace_const_cmp2(uint16_t a, uint16_t b);
void __sanitizer_cov_trace_const_cmp4(uint32_t a, uint32_t b);
void __sanitizer_cov_trace_const_cmp8(uint64_t a, uint64_t b);
void __sanitizer_cov_trace_cmpf(float a, float b);
void __sanitizer_cov_trace_cmpd(double a, double b);
void __sanitizer_cov_trace_switch(uint64_t val, uint64_t *cases);
/* clang trace-div, trace-gep */
void __sanitizer_cov_trace_div4(uint32_t val);
void __sanitizer_cov_trace_div8(uint64_t val);
void __sanitizer_cov_trace_gep(uintptr_t idx);
/* -finstrument-functions (gcc, clang) */
void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);

#endif
