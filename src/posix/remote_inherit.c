/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: threads inherit their creator's common handle, as tasks do in
 * the kernel. `ucov cc` links programs with -Wl,--wrap=pthread_create and
 * -Wl,--defsym=__wrap_pthread_create=ucov_pthread_create (the runtime itself
 * defines only ucov_ names), so the program's own calls come here first (sanitizers' interceptors,
 * which are pthread_create itself, still run: they are the real function called below). A forked
 * child keeps its thread-local common handle without help.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "ucov/port/remote.h"

/* Defined by the linker under --wrap; weak, so that a whole-archive link
 * without --wrap still links (and then never calls the wrapper). */
int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg) __attribute__((weak));
int ucov_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *),
                        void *arg);

struct inherit {
  void *(*start)(void *);
  void *arg;
  uint64_t common;
};

static UCOV_NOTRACE void *inherit_start(void *p) {
  struct inherit in = *(struct inherit *)p;
  free(p);
  ucov_remote_set_common(in.common);
  return in.start(in.arg);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The real pthread_create: the linker's (static runtime), else the next one
 * (libucov.so: --wrap renamed only the program's references). */
static UCOV_NOTRACE create_fn real_create(void) {
  if (__real_pthread_create)
    return __real_pthread_create;
  static create_fn next;
  if (!next)
    next = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  return next;
}

UCOV_EXPORT UCOV_NOTRACE int ucov_pthread_create(pthread_t *th, const pthread_attr_t *attr,
                                                 void *(*start)(void *), void *arg) {
  create_fn create = real_create();
  uint64_t common = ucov_remote_common();
  if (!common)
    return create(th, attr, start, arg);
  struct inherit *in = malloc(sizeof(*in));
  if (!in)
    return create(th, attr, start, arg); /* no handle rather than no thread */
  in->start = start;
  in->arg = arg;
  in->common = common;
  int err = create(th, attr, inherit_start, in);
  if (err)
    free(in);
  return err;
}
