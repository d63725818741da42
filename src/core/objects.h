/* SPDX-License-Identifier: MIT */
/*
 * The object registry's core side: what objects.c and the unit registries
 * share beyond the calls a port makes (ucov/port/objects.h).
 */
#ifndef UCOV_CORE_OBJECTS_H
#define UCOV_CORE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/objects.h"

struct ucov_gcov_unit;
struct ucov_llvm_unit;
/* A unit's object name: "gcov" + its absolute .gcda path ("gcov/" + a relative
 * one). Returns 0, or -1 if it does not fit in len. */
int ucov_gcov_object_name(const struct ucov_gcov_unit *u, char *out, size_t len) UCOV_HIDDEN;
int ucov_llvm_object_name(const struct ucov_llvm_unit *u, char *out, size_t len) UCOV_HIDDEN;

/* Are strings a and b equal? (freestanding: no strcmp) */
int ucov_str_eq(const char *a, const char *b) UCOV_HIDDEN;

/* The two-phase reset's tokens (tokens.c; lock held): the last issued, a new
 * one, whether one was committed, whether it is too old to know, and a
 * commit recorded (0, or -UCOV_ENOMEM: then it must not commit). */
uint64_t ucov_token_last(void) UCOV_HIDDEN;
uint64_t ucov_token_issue(void) UCOV_HIDDEN;
int ucov_token_committed(uint64_t token) UCOV_HIDDEN;
int ucov_token_forgotten(uint64_t token) UCOV_HIDDEN;
int ucov_token_record(uint64_t token) UCOV_HIDDEN;

#endif
