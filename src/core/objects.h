/* SPDX-License-Identifier: MIT */
/*
 * The object registry: everything the control plane can list, size, read and
 * reset, behind one small set of operations (as Xen's coverage ops).
 *
 *   gcov/<absolute path>.gcda   one gcov unit (reset by baseline)
 *   modules                     the module map (port-provided; not resettable)
 */
#ifndef UCOV_CORE_OBJECTS_H
#define UCOV_CORE_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "sink.h"

/* Longest object name. */
#define UCOV_OBJECT_NAME_MAX 4096

/*
 * Call fn for every object with its name and current size. Stops at the first
 * non-zero return and returns it. Takes the port lock.
 */
int ucov_objects_list(int (*fn)(const char *name, uint64_t size, void *arg), void *arg) UCOV_HIDDEN;

/* Read object `name` into sink; with reset, also reset it to what was read
 * (READ_AND_RESET). Returns 0, -UCOV_ENOENT or another negative errno. */
int ucov_object_read(const char *name, struct ucov_sink *sink, int reset) UCOV_HIDDEN;

/* The size READ would produce now. */
int ucov_object_size(const char *name, uint64_t *size) UCOV_HIDDEN;

struct ucov_gcov_unit;
struct ucov_llvm_unit;
/* A unit's object name: "gcov" + its absolute .gcda path ("gcov/" + a relative
 * one). Returns 0, or -1 if it does not fit in len. */
int ucov_gcov_object_name(const struct ucov_gcov_unit *u, char *out, size_t len) UCOV_HIDDEN;
int ucov_llvm_object_name(const struct ucov_llvm_unit *u, char *out, size_t len) UCOV_HIDDEN;

/* Reset one object (-UCOV_EOPNOTSUPP for one without counters), or all. */
int ucov_object_reset(const char *name) UCOV_HIDDEN;
int ucov_objects_reset_all(void) UCOV_HIDDEN;

#endif
