/* SPDX-License-Identifier: MIT */
/*
 * What the runtime's harnesses (fuzz_gcda, fuzz_profraw, fuzz_serve) parse
 * against: a gcov unit built by hand as GCC 14 lays it out and registered
 * with __gcov_init (the object gcov/fuzz/unit.gcda), and LLVM profile
 * sections of three v10 records, one of them with value sites.
 */
#ifndef UCOV_FUZZ_CORE_UNITS_H
#define UCOV_FUZZ_CORE_UNITS_H

#include "core/gcov.h"
#include "ucov/port/pgo.h"

/* The unit, registered once; its registry entry. */
struct ucov_gcov_unit *fuzz_gcov_unit(void);

/* The sections (static, set up once). */
const struct ucov_llvm_sections *fuzz_llvm_sections(void);

#endif
