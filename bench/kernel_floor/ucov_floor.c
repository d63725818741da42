// SPDX-License-Identifier: MIT
/*
 * The floor of the kernel bench (bench/kernel_run.sh): the symbols an
 * instrumented module takes from ucov.ko, with the same declarations (so
 * the same symbol versions), each doing nothing. A module built against
 * this Module.symvers pays the calls the compiler inserted and nothing of
 * ucov's: the difference to ucov.ko nobody traces is what ucov's check costs.
 */
#include <linux/module.h>

#include "ucov/port/hooks.h"

#define EMPTY(name, ...)                                                                           \
  notrace void name(__VA_ARGS__) {}                                                                \
  EXPORT_SYMBOL(name)

EMPTY(__sanitizer_cov_trace_pc, void);
EMPTY(__sanitizer_cov_trace_cmp1, uint8_t a, uint8_t b);
EMPTY(__sanitizer_cov_trace_cmp2, uint16_t a, uint16_t b);
EMPTY(__sanitizer_cov_trace_cmp4, uint32_t a, uint32_t b);
EMPTY(__sanitizer_cov_trace_cmp8, uint64_t a, uint64_t b);
EMPTY(__sanitizer_cov_trace_const_cmp1, uint8_t a, uint8_t b);
EMPTY(__sanitizer_cov_trace_const_cmp2, uint16_t a, uint16_t b);
EMPTY(__sanitizer_cov_trace_const_cmp4, uint32_t a, uint32_t b);
EMPTY(__sanitizer_cov_trace_const_cmp8, uint64_t a, uint64_t b);
EMPTY(__sanitizer_cov_trace_switch, uint64_t val, uint64_t *cases);

/* kcov.rst's entry points (kernel/linux/ucov_kcov.h) */
u64 ucov_kcov_common_handle(void);
void ucov_kcov_remote_start(u64 handle);
void ucov_kcov_remote_stop(void);
void ucov_kcov_remote_start_usb_softirq(u64 id);
void ucov_kcov_remote_stop_softirq(void);
notrace u64 ucov_kcov_common_handle(void) {
  return 0;
}
EXPORT_SYMBOL(ucov_kcov_common_handle);
EMPTY(ucov_kcov_remote_start, u64 handle);
EMPTY(ucov_kcov_remote_stop, void);
EMPTY(ucov_kcov_remote_start_usb_softirq, u64 id);
EMPTY(ucov_kcov_remote_stop_softirq, void);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov bench: empty coverage hooks");
