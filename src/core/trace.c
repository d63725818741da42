/* SPDX-License-Identifier: MIT */
/*
 * Trace path, PC mode: the task's tracing state and __sanitizer_cov_trace_pc.
 *
 * The hook fast path of a task that is not tracing is one thread-local load
 * and a test; nothing here allocates, locks or makes a system call.
 */
#include "hooks.h"
#include "task.h"

UCOV_TASK_STORAGE struct ucov_task ucov_task_self;

UCOV_NOTRACE void ucov_task_start(struct ucov_task *t, struct ucov_device *dev, uint64_t *area,
                                  uint64_t size, uint32_t mode) {
  t->area = area;
  t->size = size;
  t->pc_tag = (mode & UCOV_TASK_EXT) ? KCOV_RECORD_NORMAL_TAG : 0;
  t->dev = dev;
  /* A signal handler on this task must see area and size before mode. */
  UCOV_SIGNAL_FENCE();
  t->mode = mode;
}

UCOV_NOTRACE void ucov_task_stop(struct ucov_task *t) {
  /* Mode first: from here on no hook on this task touches the area. */
  t->mode = 0;
  UCOV_SIGNAL_FENCE();
  t->area = 0;
  t->size = 0;
  t->pc_tag = 0;
  t->dev = 0;
}

/*
 * Called by gcc and clang (-fsanitize-coverage=trace-pc) at the start of every
 * basic block. The return address is the PC; tools subtract one instruction
 * before symbolizing, as with KCOV.
 */
UCOV_EXPORT UCOV_NOTRACE void __sanitizer_cov_trace_pc(void) {
  struct ucov_task *t = &ucov_task_self;
  if (UCOV_LIKELY(!(t->mode & UCOV_TASK_PC)))
    return;
  trace_append_word(t->area, t->size, (uint64_t)__builtin_return_address(0) | t->pc_tag);
}
