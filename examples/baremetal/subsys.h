/* SPDX-License-Identifier: MIT */
/* The kernel's instrumented subsystems. */
#ifndef BAREMETAL_SUBSYS_H
#define BAREMETAL_SUBSYS_H

#include <stddef.h>

/* parser.c: an integer expression (+ - * / % parentheses, unary minus). 0, or
 * -1 with *err set. */
int parse_expr(const char *s, size_t n, long *value, const char **err);

/* sched.c: run the round-robin scheduler for `ticks`; each task's runs in counts[].
 * Its tasks are kernel tasks 1 to 3 (port.c): each runs in its own context. */
#define SCHED_TASKS 3
void ktask_switch(int task);
void sched_run(int ticks, int counts[SCHED_TASKS]);

/* kalloc.c: a pool of 32 blocks of 64 bytes. */
void *kalloc(size_t n);
void kfree(void *p);
int kalloc_free_blocks(void);

#endif
