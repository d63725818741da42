/* SPDX-License-Identifier: MIT */
/* The instrumented part of the dormant tests (work.c). */
#ifndef DORMANT_WORK_H
#define DORMANT_WORK_H

long work_loop(int n);     /* many blocks, calls, tail calls */
long work_traced(int n);   /* the call a test traces */
long work_expected(int n); /* what work_traced(n) returns */

#endif
