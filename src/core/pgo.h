/* SPDX-License-Identifier: MIT */
/*
 * LLVM instrumentation profiles, the core's side: the layout reader, the
 * two-phase reset, the value profiler's nodes, and compiler-rt's entry
 * points. What a port calls is in ucov/port/pgo.h.
 */
#ifndef UCOV_CORE_PGO_H
#define UCOV_CORE_PGO_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/port/compiler.h"
#include "ucov/port/pgo.h"
#include "ucov/port/sink.h"

/*
 * The layout of s's data records: from s->version, or (0) from the records
 * themselves: 48-byte records are version 8; 64-byte ones version 10, or 9
 * when the bitmap sizes say so. -UCOV_EINVAL if the records do not fit the
 * layout (their counters outside the counters section); -UCOV_EOPNOTSUPP for
 * versions and variants ucov does not write (single-byte counters).
 */
int ucov_pgo_layout(const struct ucov_llvm_sections *s, struct ucov_pgo_layout *l) UCOV_HIDDEN;

/*
 * Two-phase reset: write the profile as a live read does and keep, under
 * token, where that read would have moved the baselines (and which MC/DC
 * bits it saw); the baselines stay. ucov_pgo_commit moves them there (and
 * clears the bits seen: a bit set again meanwhile is cleared too, since a
 * bitmap cannot count). The pending snapshot is in the sections' state
 * (pending_token, pending_gen against gen).
 */
int ucov_pgo_snapshot(struct ucov_sink *sink, const struct ucov_llvm_sections *s,
                      uint64_t token) UCOV_HIDDEN;
void ucov_pgo_commit(const struct ucov_llvm_sections *s) UCOV_HIDDEN;

/* What the writer keeps for the sections (theirs, or the shared default). */
struct ucov_pgo_state *ucov_pgo_state_of(const struct ucov_llvm_sections *s) UCOV_HIDDEN;

/* --- Between pgo.c and pgo_layout.c. --- */

#define VARIANT_BYTE_COVERAGE (1ull << 60)
#define VTAB_RECORD 24 /* {u64 name hash, pointer, u32 size} */

static inline UCOV_NOTRACE uint64_t pad8(uint64_t n) {
  return (8 - n % 8) % 8;
}

static inline UCOV_NOTRACE uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  __builtin_memcpy(&v, p, 8);
  return v;
}

static inline UCOV_NOTRACE uint32_t get_u32(const uint8_t *p) {
  uint32_t v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

static inline UCOV_NOTRACE uint16_t get_u16(const uint8_t *p) {
  uint16_t v;
  __builtin_memcpy(&v, p, 2);
  return v;
}

/* Where an old raw profile's parts are. */
struct ucov_pgo_old_view {
  const uint8_t *cnts, *bits, *values, *end;
};

/* Value sites of a record, per kind (ns); returns how many kinds have any. */
uint32_t ucov_pgo_record_sites(const uint8_t *r, const struct ucov_pgo_layout *l, uint16_t ns[3],
                               uint64_t *total) UCOV_HIDDEN;
/* One function's value data in an old profile: the end of it, or NULL if it
 * is malformed or does not have these sites. */
const uint8_t *ucov_pgo_old_values_next(const uint8_t *p, const uint8_t *end, const uint16_t ns[3],
                                        uint32_t kinds) UCOV_HIDDEN;
/* Is old a raw profile of the same functions, whole? Fills *v if so. */
int ucov_pgo_old_parse(const struct ucov_llvm_sections *s, const struct ucov_pgo_layout *l,
                       const uint8_t *old, size_t len, struct ucov_pgo_old_view *v) UCOV_HIDDEN;

/* --- The value profiler (pgo_value.c). --- */

/* Nodes beyond the sections' own: compiler-rt adds the same static pool. */
#ifndef UCOV_VP_POOL_NODES
#define UCOV_VP_POOL_NODES 1024
#endif

/* Nodes there are (the sections' and the pool), node i of them, and the
 * index of a node (or -1 for a node not from either). */
uint64_t ucov_vp_nodes(void) UCOV_HIDDEN;
struct ucov_vp_node *ucov_vp_node_at(uint64_t i) UCOV_HIDDEN;
uint64_t ucov_vp_index(const struct ucov_vp_node *n) UCOV_HIDDEN;
/* Nodes taken so far (at most ucov_vp_nodes()). */
uint64_t ucov_vp_used(void) UCOV_HIDDEN;

/* (compiler-rt's value profiling entry points: ucov/port/pgo.h) */

#endif
