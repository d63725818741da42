/* SPDX-License-Identifier: MIT */
/*
 * LLVM instrumentation profiles (clang -fprofile-instr-generate and
 * -fprofile-generate), as a port serves them: it finds each module's
 * sections and calls the raw profile writer (pgo.c) and the value profiler's
 * setup (pgo_value.c). Counters and value counts are read live, minus a reset
 * baseline, like gcov units; the raw profile's data records and names are
 * the sections' own bytes.
 */
#ifndef UCOV_PORT_PGO_H
#define UCOV_PORT_PGO_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/sink.h"

/* One tracked value of a value site (indirect-call target, memop size):
 * compiler-rt's ValueProfNode, the layout of __llvm_prf_vnds. */
struct ucov_vp_node {
  uint64_t value;
  uint64_t count;
  struct ucov_vp_node *next;
};

/* Where a module's profile sections are (the port finds them). */
struct ucov_llvm_sections {
  const uint8_t *data, *data_end;       /* __llvm_prf_data: the per-function records */
  uint64_t *cnts, *cnts_end;            /* __llvm_prf_cnts: the counters */
  uint8_t *bits, *bits_end;             /* __llvm_prf_bits: MC/DC bitmaps (raw v9+) */
  const uint8_t *names, *names_end;     /* __llvm_prf_names */
  const uint8_t *vtab, *vtab_end;       /* __llvm_prf_vtab: vtable records (raw v10) */
  const uint8_t *vnames, *vnames_end;   /* __llvm_prf_vns: vtable names (raw v10) */
  struct ucov_vp_node *vnds, *vnds_end; /* __llvm_prf_vnds: value nodes */
  const uint8_t *build_id;              /* GNU build-id of the module, or NULL */
  size_t build_id_size;
  /* __llvm_profile_raw_version (with its variant bits), or 0: the version is
   * read from the layout of the data records (clang emits the symbol only for
   * IR-level instrumentation). */
  uint64_t version;
  const char *name; /* the module's file name, for its object "pgo/<name>.profraw" */
  /* What the writer keeps for these sections (one per module, zeroed by the
   * port); NULL: one state shared by all. */
  struct ucov_pgo_state *state;
};

/*
 * What differs between raw profile versions: 8 (clang 14-17), 9 (clang 18:
 * MC/DC bitmaps), 10 (clang 19+: vtable value profiling).
 */
struct ucov_pgo_layout {
  uint64_t version;      /* the header's version word */
  uint32_t rec;          /* bytes of a data record */
  uint32_t off_values;   /* offset in a record of Values (the sites' list heads) */
  uint32_t off_ncnts;    /* ... of NumCounters (u32) */
  uint32_t off_sites;    /* ... of NumValueSites[kinds] (u16 each) */
  uint32_t off_nbits;    /* ... of NumBitmapBytes (u32); 0: none (v8) */
  uint32_t kinds;        /* value kinds: IPVK_Last + 1 */
  uint32_t header_words; /* u64 words of the header */
};

/* What the writer keeps for one module's sections: the layout of its records
 * (checked once: checking every record per write costs as much as writing
 * the counters) and the counters' reset baseline. */
struct ucov_pgo_state {
  const uint8_t *data, *data_end; /* the sections the layout is for */
  const uint64_t *cnts_end;
  const uint8_t *bits_end;
  uint64_t version;
  int valid, err;
  struct ucov_pgo_layout l;
  uint64_t max_sites;  /* the most value sites of one record */
  uint64_t site_bytes; /* value data of all records, but for the values */
  uint64_t *base_cnts; /* counters at the last reset; NULL: never reset */
  /* Two-phase reset (objects.h): what a snapshot read would move the
   * baselines to, the bitmap bits it saw, {node, value, count} of the value
   * nodes it took; gen changes whenever a baseline moves. */
  uint64_t *pending_cnts;
  uint8_t *pending_bits;
  uint64_t *pending_vp, n_pending_vp, cap_pending_vp;
  uint64_t pending_token, pending_gen, gen;
};

#define UCOV_PROFRAW_MAGIC 0xff6c70726f667281ull

/*
 * Write a raw profile of the sections into sink: live counters and value
 * counts minus the reset baseline. With reset, the baseline moves to the
 * values written (and MC/DC bitmaps are taken, each byte exchanged with 0).
 * Returns 0 or a negative errno. Called with the port lock held.
 */
int ucov_pgo_write(struct ucov_sink *sink, const struct ucov_llvm_sections *s,
                   int reset) UCOV_PORT_API;

/*
 * As ucov_pgo_write, adding an existing raw profile `old` (LLVM_PROFILE_FILE's
 * %m pools): counters add, bitmaps OR, value sites unite (counts of a value
 * add). Returns -UCOV_EINVAL, writing nothing, if old is not a raw profile
 * of the same functions (truncated, corrupt, or another program's).
 */
int ucov_pgo_write_merged(struct ucov_sink *sink, const struct ucov_llvm_sections *s, int reset,
                          const uint8_t *old, size_t old_len) UCOV_PORT_API;

/*
 * ucov_pgo_layout, remembered for the sections (with what the writer needs
 * of every record): the port calls it once at start, so that writes do not
 * go over the records again.
 */
int ucov_pgo_prepare(const struct ucov_llvm_sections *s, struct ucov_pgo_layout *l) UCOV_PORT_API;

/* At least the bytes ucov_pgo_write writes now (a buffer for it, sized once). */
size_t ucov_pgo_size_bound(const struct ucov_llvm_sections *s) UCOV_PORT_API;

/* Move the baseline to the live counters (RESET). 0 or a negative errno. */
int ucov_pgo_reset(const struct ucov_llvm_sections *s) UCOV_PORT_API;

/* Values tracked per site unless LLVM_VP_MAX_NUM_VALS_PER_SITE says otherwise. */
#define UCOV_VP_DEFAULT_PER_SITE 24
#define UCOV_VP_MAX_PER_SITE 255

/*
 * Start value profiling for the program's sections (the port calls it once,
 * early): until then the entry points drop what they are given.
 * max_per_site: values kept per site (0: the default).
 */
void ucov_vp_setup(const struct ucov_llvm_sections *s, const struct ucov_pgo_layout *l,
                   uint32_t max_per_site) UCOV_PORT_API;

/* compiler-rt's value profiler entry points, which clang's value-profiling
 * code calls (a port that exports them names them here). */
void __llvm_profile_instrument_target(uint64_t value, void *data, uint32_t site);
void __llvm_profile_instrument_target_value(uint64_t value, void *data, uint32_t site,
                                            uint64_t count);
void __llvm_profile_instrument_memop(uint64_t size, void *data, uint32_t site);

/* Values dropped so far for want of a value node. */
uint64_t ucov_vp_dropped(void) UCOV_PORT_API;

#endif
