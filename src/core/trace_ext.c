/* SPDX-License-Identifier: MIT */
/*
 * Trace path, PC_EXT mode: function entry and exit records.
 *
 * Records are PCs with the type in the top nibble: ENTRY 0x0, EXIT 0x1,
 * NORMAL 0xf (trace_pc tags those in EXT mode). User addresses
 * have a zero top byte, so an ENTRY record is the bare PC.
 *
 * Two sources of entry/exit events:
 *  - LLVM 23's trace-pc-entry-exit: __sanitizer_cov_trace_pc_entry replaces the
 *    entry block's trace_pc call, so in plain PC mode it records a plain PC;
 *    __sanitizer_cov_trace_pc_exit is called before every return.
 *  - -finstrument-functions (gcc and clang today): __cyg_profile_func_enter and
 *    _exit run in addition to the block's trace_pc, so they record only in EXT
 *    mode.
 * In every case the PC is the hook's return address, inside the function.
 */
#include "ucov/port/hooks.h"
#include "record.h"
#include "ucov/port/port.h"

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_entry(void) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (UCOV_LIKELY(!hot) || (hot & UCOV_TASK_CMP))
    return;
  uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
  if (hot & UCOV_TASK_UNIQUE)
    trace_append_unique(t, t->bitmap, pc_key(pc, t->bitmap_mask), pc, 1);
  else
    trace_append_word(t->area, t->size, pc);
}

/* Append an ENTRY or EXIT record (tag in place) in EXT mode. */
static UCOV_ALWAYS_INLINE void trace_append_ext(uint64_t pc, uint64_t tag) {
  uintptr_t hot;
  struct ucov_task *t = ucov_task_hook(&hot);
  if (UCOV_LIKELY(!(hot & UCOV_TASK_EXT)))
    return;
  trace_append_word(t->area, t->size, KCOV_RECORD_TAGGED(pc, tag));
}

UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc_exit(void) {
  trace_append_ext((uint64_t)(uintptr_t)__builtin_return_address(0), KCOV_RECORD_EXIT_TAG);
}

UCOV_EXPORT UCOV_NOTRACE void __cyg_profile_func_enter(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
  trace_append_ext((uint64_t)(uintptr_t)__builtin_return_address(0), 0 /* ENTRY */);
}

UCOV_EXPORT UCOV_NOTRACE void __cyg_profile_func_exit(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
  trace_append_ext((uint64_t)(uintptr_t)__builtin_return_address(0), KCOV_RECORD_EXIT_TAG);
}

/* An entry or exit record from a port's own entry/exit instrumentation
 * (XRay sleds of a dormant build), or from the hidden entry/exit hooks each
 * shared object carries (libucov-dso.a): as the hooks above append them.
 * Exported, for those objects. */
UCOV_EXPORT UCOV_NOTRACE void ucov_trace_ext_event(uint64_t pc, int is_exit) {
  trace_append_ext(pc, is_exit ? KCOV_RECORD_EXIT_TAG : 0 /* ENTRY */);
}
