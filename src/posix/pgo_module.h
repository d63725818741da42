/* SPDX-License-Identifier: MIT */
/*
 * A module's LLVM profile sections, as the module sees them: the linker's
 * __start_/__stop_ symbols are the module's own (hidden), so each module
 * finds its own sections and hands them to the process's one runtime. The
 * program's runtime does this for the program; libucov-dso.a, linked into
 * every shared object `ucov cc -shared` builds, for the shared object.
 */
#ifndef UCOV_POSIX_PGO_MODULE_H
#define UCOV_POSIX_PGO_MODULE_H

#include <stdint.h>

#include "ucov/ucov.h"

/* What a module passes to ucov_pgo_register (an ABI: fields are only added). */
struct ucov_pgo_module {
  uint32_t size; /* sizeof(struct ucov_pgo_module) of the caller */
  uint32_t reserved;
  const uint8_t *data, *data_end;
  uint64_t *cnts, *cnts_end;
  const uint8_t *names, *names_end;
  uint8_t *bits, *bits_end;
  const uint8_t *vtab, *vtab_end;
  const uint8_t *vnames, *vnames_end;
  void *vnds, *vnds_end;
  uint64_t version;     /* __llvm_profile_raw_version, or 0 if the module has none */
  const char *filename; /* __llvm_profile_filename, or NULL */
};

/* Register a module's profile sections with the process's runtime. */
void ucov_pgo_register(const struct ucov_pgo_module *m);

/* The module holding anchor goes away: its gcov units and LLVM profile are
 * written (as its own runtime would at dlclose) and forgotten. */
void ucov_dso_unload(const void *anchor);

#define UCOV_PGO_SECTION(name, type)                                                               \
  extern type __start_##name[] __attribute__((weak, visibility("hidden")));                        \
  extern type __stop_##name[] __attribute__((weak, visibility("hidden")))
UCOV_PGO_SECTION(__llvm_prf_data, const uint8_t);
UCOV_PGO_SECTION(__llvm_prf_cnts, uint64_t);
UCOV_PGO_SECTION(__llvm_prf_names, const uint8_t);
UCOV_PGO_SECTION(__llvm_prf_bits, uint8_t);
UCOV_PGO_SECTION(__llvm_prf_vtab, const uint8_t);
UCOV_PGO_SECTION(__llvm_prf_vns, const uint8_t);
UCOV_PGO_SECTION(__llvm_prf_vnds, uint8_t);
#undef UCOV_PGO_SECTION
/* Emitted by clang for IR-level instrumentation (with its variant bits), and
 * for -fprofile-generate=DIR: the module's own (hidden) definitions. */
extern const uint64_t __llvm_profile_raw_version __attribute__((weak, visibility("hidden")));
extern const char __llvm_profile_filename[] __attribute__((weak, visibility("hidden")));

/* This module's sections; 0 if it has no LLVM profile. */
static inline __attribute__((always_inline)) int ucov_pgo_this_module(struct ucov_pgo_module *m) {
  if (!__start___llvm_prf_data || &__start___llvm_prf_data[0] == &__stop___llvm_prf_data[0])
    return 0;
  *m = (struct ucov_pgo_module){
      .size = sizeof(*m),
      .data = __start___llvm_prf_data,
      .data_end = __stop___llvm_prf_data,
      .cnts = __start___llvm_prf_cnts,
      .cnts_end = __stop___llvm_prf_cnts,
      .names = __start___llvm_prf_names,
      .names_end = __stop___llvm_prf_names,
      .bits = __start___llvm_prf_bits,
      .bits_end = __start___llvm_prf_bits ? __stop___llvm_prf_bits : 0,
      .vtab = __start___llvm_prf_vtab,
      .vtab_end = __start___llvm_prf_vtab ? __stop___llvm_prf_vtab : 0,
      .vnames = __start___llvm_prf_vns,
      .vnames_end = __start___llvm_prf_vns ? __stop___llvm_prf_vns : 0,
      .vnds = __start___llvm_prf_vnds,
      .vnds_end = __start___llvm_prf_vnds ? __stop___llvm_prf_vnds : 0,
      .version = &__llvm_profile_raw_version ? __llvm_profile_raw_version : 0,
      .filename = __llvm_profile_filename,
  };
  return 1;
}

#endif
