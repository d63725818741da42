/* SPDX-License-Identifier: MIT */
/* Test helpers: name the function a PC of this process belongs to. */
#ifndef UCOV_TESTS_TESTLIB_H
#define UCOV_TESTS_TESTLIB_H

#include <stdint.h>

/* Name of the function of the executable containing return address pc, or "??". */
const char *pc_function(uint64_t pc);

/* Is pc (a return address) inside the function named name? */
int pc_in(uint64_t pc, const char *name);

/* Map a KCOV buffer of size words; aborts the test on failure. */
uint64_t *map_buffer(int fd, uint64_t size);

#endif
