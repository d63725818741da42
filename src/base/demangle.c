/* SPDX-License-Identifier: MIT */
/* C++ names demangled by libstdc++'s __cxa_demangle (demangle.h). */
#define _GNU_SOURCE
#include "demangle.h"

#include "model.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* The demangler, looked up once (NULL: none). The host tool's readers run on
 * one thread; the lookup is idempotent all the same. */
static cxa_demangle_fn demangler(void) {
  static cxa_demangle_fn fn;
  static int looked;
  if (__atomic_load_n(&looked, __ATOMIC_ACQUIRE))
    return fn;
  void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
  cxa_demangle_fn f = h ? (cxa_demangle_fn)dlsym(h, "__cxa_demangle") : NULL;
  fn = f;
  __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  return fn;
}

char *cov_demangle(const char *name) {
  if (!name || name[0] != '_' || name[1] != 'Z')
    return NULL;
  cxa_demangle_fn fn = demangler();
  int status = -1;
  char *out = fn ? fn(name, NULL, NULL, &status) : NULL;
  if (status != 0) {
    free(out);
    return NULL;
  }
  return out;
}

void cov_demangle_funcs(struct cov_file *f) {
  for (size_t i = 0; i < f->n_funcs; i++) {
    char *d = cov_demangle(f->funcs[i].name);
    if (d) {
      free(f->funcs[i].name);
      f->funcs[i].name = d;
    }
  }
}
