/* SPDX-License-Identifier: MIT */
/*
 * LLVM instrumentation profiles (clang -fprofile-instr-generate): the raw
 * profile writer. Counters are read live, minus a reset baseline, like gcov
 * units; the raw profile's data and names are the sections' own bytes.
 */
#ifndef UCOV_CORE_PGO_H
#define UCOV_CORE_PGO_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "sink.h"

/* Where a module's profile sections are (the port finds them). */
struct ucov_llvm_sections {
  const uint8_t *data, *data_end;   /* __llvm_prf_data: 48-byte records (raw v8) */
  uint64_t *cnts, *cnts_end;        /* __llvm_prf_cnts: the counters */
  const uint8_t *names, *names_end; /* __llvm_prf_names */
  const uint8_t *build_id;          /* GNU build-id of the module, or NULL */
  size_t build_id_size;
  uint64_t version; /* __llvm_profile_raw_version, or 8 */
  const char *name; /* the module's file name, for its object "pgo/<name>.profraw" */
};

/* The reset baseline of the program's counters (NULL until the first reset). */
extern uint64_t *ucov_pgo_baseline UCOV_HIDDEN;

#define UCOV_PROFRAW_MAGIC 0xff6c70726f667281ull
#define UCOV_PROFRAW_DATA_SIZE 48

/*
 * Write a raw profile (version 8) of the sections into sink: live counters
 * minus *baseline (allocated on first reset; NULL: none). With reset, the
 * baseline moves to the values written. Returns 0 or a negative errno.
 */
int ucov_pgo_write(struct ucov_sink *sink, const struct ucov_llvm_sections *s, uint64_t **baseline,
                   int reset) UCOV_HIDDEN;

/*
 * As ucov_pgo_write, adding the counters of an existing raw profile `old`
 * (LLVM_PROFILE_FILE's %m pools). Returns -UCOV_EINVAL, writing nothing, if
 * old is not a raw profile of the same functions (truncated, corrupt, or
 * another program's).
 */
int ucov_pgo_write_merged(struct ucov_sink *sink, const struct ucov_llvm_sections *s,
                          uint64_t **baseline, int reset, const uint8_t *old,
                          size_t old_len) UCOV_HIDDEN;

/* Move the baseline to the live counters (RESET). 0 or -UCOV_ENOMEM. */
int ucov_pgo_reset(const struct ucov_llvm_sections *s) UCOV_HIDDEN;

#endif
