/* SPDX-License-Identifier: MIT */
/*
 * libucov-dso.a: one constructor, linked by `ucov cc -shared` into every
 * shared object it builds. The object's LLVM profile sections are its own
 * (the linker's __start_/__stop_ symbols are hidden), so it hands them to the
 * process's runtime: the program's (libucov.a, exported), else libucov.so.
 * Defining __llvm_profile_runtime keeps compiler-rt's profile runtime out of
 * the shared object, as libucov.a does for programs.
 */
#include "pgo_module.h"

__attribute__((visibility("hidden"))) int __llvm_profile_runtime;

__attribute__((constructor(101), no_instrument_function)) static void ucov_dso_register(void) {
  struct ucov_pgo_module m;
  if (ucov_pgo_this_module(&m))
    ucov_pgo_register(&m);
}

/* At dlclose (and at the end of the process), after the object's other
 * destructors (gcc's own gcov destructor has this priority too): its gcov
 * units and LLVM profile are written and forgotten while its memory is there. */
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((destructor(100), no_instrument_function)) static void ucov_dso_unregister(void) {
  ucov_dso_unload((const void *)&ucov_dso_unregister);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
