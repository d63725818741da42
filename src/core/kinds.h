/* SPDX-License-Identifier: MIT */
/*
 * Inside the object registry (objects.c): an object as a kind finds it, and
 * a kind's table of operations; the kinds kept in files of their own.
 */
#ifndef UCOV_CORE_KINDS_H
#define UCOV_CORE_KINDS_H

#include <stdint.h>

#include "objects.h"
#include "pgo.h"
#include "ucov/port/sink.h"

struct ucov_gcov_unit;
struct ucov_llvm_unit;
struct ucov_device;

/* One object of a kind, as the kind's next() finds it. */
struct obj {
  const struct kind *k;
  int started; /* 0: next() finds the first */
  int listing; /* for LIST (which shows xencov only beside gcov units) */
  union {
    struct ucov_gcov_unit *gcc;
    struct ucov_llvm_unit *llvm;
    struct ucov_device *dev;
  } u;
  uint32_t index;                /* pgo: the module; kcov: the device's id */
  struct ucov_llvm_sections pgo; /* pgo: the module's sections */
  char name[UCOV_OBJECT_NAME_MAX];
};

/*
 * A kind of object. Every operation runs with the port lock held. next:
 * the kind's next object (the first while o->started is 0), its name in
 * o->name; 1, or 0 after the last. read: READ, or with reset READ_AND_RESET.
 * The others are NULL for a kind that has none: reset (RESET; in RESET_ALL
 * if reset_all), snapshot and, for its commit, pending (the object's pending
 * token, *stale set if it moved since the snapshot) and commit.
 */
struct kind {
  int (*next)(struct obj *o);
  /* The object named name without a walk of every object: 1 (o at it, as
   * next() would leave it), 0 (no object of this kind has that name); NULL
   * for a kind that has few objects (find walks them). */
  int (*seek)(struct obj *o, const char *name);
  int (*read)(struct obj *o, struct ucov_sink *sink, int reset);
  int (*reset)(struct obj *o);
  int (*snapshot)(struct obj *o, struct ucov_sink *sink, uint64_t token);
  uint64_t *(*pending)(struct obj *o, int *stale);
  void (*commit)(struct obj *o);
  int reset_all;
};

/* Trace buffers, "kcov/<id>.kcov" (objects_trace.c); and one into a sink
 * that streams (sink->total): its count fixed, then the PCs in bounded
 * pieces copied under the lock and written without it (entered and left
 * with the lock held). */
extern const struct kind ucov_trace_kind UCOV_HIDDEN;
int ucov_trace_stream(struct obj *o, struct ucov_sink *sink, uint64_t token) UCOV_HIDDEN;

#endif
