/* SPDX-License-Identifier: MIT */
/*
 * libucov-dso.a: the entry and exit hooks of -finstrument-functions, hidden
 * in every shared object `ucov cc -shared` builds. A shared object's calls to
 * __cyg_profile_func_enter/_exit otherwise bind by lookup order, and glibc
 * defines both (empty): in a program not linked by `ucov cc`, libc comes
 * before libucov.so, the object's own dependency, so the records would go
 * nowhere. Hidden definitions bind at link time, whatever the program or
 * dlopen does; they hand the record to the process's one runtime (the
 * program's, exported, else libucov.so) through an exported ucov_ name that
 * no other library defines.
 */
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/port.h"

#define DSO_HOOK __attribute__((visibility("hidden"))) UCOV_NOTRACE

void __cyg_profile_func_enter(void *this_fn, void *call_site);
void __cyg_profile_func_exit(void *this_fn, void *call_site);

/* The PC is the hook's return address, inside the function, as the runtime's
 * own hooks record it. */
DSO_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
  ucov_trace_ext_event((uint64_t)(uintptr_t)__builtin_return_address(0), 0);
}

DSO_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site) {
  (void)this_fn;
  (void)call_site;
  ucov_trace_ext_event((uint64_t)(uintptr_t)__builtin_return_address(0), 1);
}
