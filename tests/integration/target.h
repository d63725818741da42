/* SPDX-License-Identifier: MIT */
/* Code under test: built with trace-pc, trace-cmp and -finstrument-functions. */
#ifndef UCOV_TESTS_TARGET_H
#define UCOV_TESTS_TARGET_H

#include <stdint.h>

/* A call tree: root -> mid_a -> leaf, root -> mid_b -> leaf (twice). */
int tgt_root(int x);
int tgt_mid_a(int x);
int tgt_mid_b(int x);
int tgt_leaf(int x);

/* Many basic blocks: n loop iterations, each several blocks. */
int tgt_loop(int n);

/* Comparisons with known operands. */
int tgt_cmp_const8(uint8_t x);   /* x == 0x5a */
int tgt_cmp_const16(uint16_t x); /* x == 0x1234 */
int tgt_cmp_const32(uint32_t x); /* x == 0xdeadbeef */
int tgt_cmp_const64(uint64_t x); /* x == 0x1122334455667788 */
int tgt_cmp_var32(uint32_t a, uint32_t b);
int tgt_cmp_var64(uint64_t a, uint64_t b);
int tgt_switch(uint32_t x); /* cases 3, 17, 1000, 77777 */
int tgt_cmp_float(float a, float b);
int tgt_cmp_double(double a, double b);

/* Run on other threads. */
int tgt_thread_a(int n);
int tgt_thread_b(int n);

/* Run from a signal handler. */
int tgt_in_handler(int x);

#endif
