/* SPDX-License-Identifier: MIT */
/* What the demo module takes from the bare-metal example: its parser. */
#ifndef LINUX_DEMO_SUBSYS_H
#define LINUX_DEMO_SUBSYS_H

#include <linux/types.h>

/* parser.c: an integer expression (+ - * / % parentheses, unary minus). 0, or
 * -1 with *err set. */
int parse_expr(const char *s, size_t n, long *value, const char **err);

#endif
