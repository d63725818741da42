/* SPDX-License-Identifier: MIT */
/*
 * The entry points compiled code calls, which the core defines: the
 * instrumentation hooks and gcc's gcov runtime. A port that must name them
 * (a kernel module exports them to the modules it instruments) includes
 * this rather than restating them.
 */
#ifndef UCOV_PORT_HOOKS_H
#define UCOV_PORT_HOOKS_H

#include <stdint.h>

#include "ucov/port/gcov_abi.h"

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
/* (cases is void *, as gcc's builtin declares it: a compiler that knows the
 * builtin, as under -fsanitize=kernel-address, warns at another pointer type;
 * it points at u64 words: count, bit width, values) */
void __sanitizer_cov_trace_switch(uint64_t val, void *cases);
/* clang trace-div, trace-gep */
void __sanitizer_cov_trace_div4(uint32_t val);
void __sanitizer_cov_trace_div8(uint64_t val);
void __sanitizer_cov_trace_gep(uintptr_t idx);
/* -finstrument-functions (gcc, clang) */
void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);

/* gcc's gcov runtime (--coverage, -fprofile-arcs) */
void __gcov_init(struct gcov_info *info);
void __gcov_exit(void);
void __gcov_dump(void);
void __gcov_reset(void);
void __gcov_merge_add(gcov_type *counters, unsigned n);
void __gcov_merge_topn(gcov_type *counters, unsigned n);
void __gcov_merge_ior(gcov_type *counters, unsigned n);
void __gcov_merge_time_profile(gcov_type *counters, unsigned n);

/* compiler-rt's gcov entry points (clang's --coverage): each unit's
 * __llvm_gcov_init calls llvm_gcov_init, whose writeout calls the rest. */
void llvm_gcov_init(void (*writeout)(void), void (*reset)(void));
void llvm_gcda_start_file(const char *orig_filename, uint32_t version, uint32_t checksum);
void llvm_gcda_emit_function(uint32_t ident, uint32_t func_checksum, uint32_t cfg_checksum);
void llvm_gcda_emit_arcs(uint32_t num_counters, uint64_t *counters);
void llvm_gcda_summary_info(void);
void llvm_gcda_end_file(void);

#endif
