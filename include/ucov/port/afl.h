/* SPDX-License-Identifier: MIT */
/*
 * libucov-afl.a (ucov cc --afl): AFL++'s side of a target, in ucov's
 * runtime. The core's src/core/trace_afl.c is the hooks, which fill the
 * maps and record for KCOV as libucov.a's do; the POSIX port's
 * src/posix/afl.c attaches afl-fuzz's maps and runs the fork server. The
 * layouts are AFL++'s (4.x: include/config.h, types.h and cmplog.h of its
 * source), written out here from their definitions; docs/formats.md has
 * them.
 */
#ifndef UCOV_PORT_AFL_H
#define UCOV_PORT_AFL_H

#include <stdint.h>

#include "ucov/port/compiler.h"

/* The fork server's pipes: afl-fuzz writes requests to 198, reads 199. */
#define UCOV_AFL_FD_CTL 198
#define UCOV_AFL_FD_ST 199

/* The handshake's option word (types.h: FS_OPT_*). */
#define UCOV_AFL_OPT_ENABLED 0x80000001u
#define UCOV_AFL_OPT_MAPSIZE 0x40000000u
#define UCOV_AFL_OPT_NEWCMPLOG 0x02000000u
#define UCOV_AFL_OPT_SHDMEM_FUZZ 0x01000000u
#define UCOV_AFL_OPT_ERROR 0xf800008fu
#define UCOV_AFL_SET_ERROR(e) (((e)&0xffffu) << 8)
#define UCOV_AFL_ERROR_SHM_OPEN 4u
#define UCOV_AFL_ERROR_SHMAT 8u
#define UCOV_AFL_ERROR_OLD_CMPLOG 32u /* (afl-fuzz: cmplog instrumentation it cannot read) */
/* The map size in the option word: (size - 1) << 1, for 2 .. 2^23 bytes. */
#define UCOV_AFL_MAP_MAX (1u << 23)
#define UCOV_AFL_SET_MAPSIZE(x) (((x)-1u) << 1)

/* A map of edges for hashed PCs (gcc's trace-pc, which has no guards). */
#define UCOV_AFL_PC_MAP (1u << 16)

/*
 * The comparison log (cmplog.h): 65536 headers of 8 bytes, then 65536 x
 * 32 operand records of 32 bytes. A header, as the bit-fields of AFL++'s
 * packed struct cmp_header lie on x86-64 and AArch64 (from bit 0): hits 24,
 * id 24, shape 5 (operand bytes - 1), type 2 (1: an instruction's
 * comparison), attribute 4, overflow 1, reserved 4.
 */
#define UCOV_AFL_CMP_W 65536u
#define UCOV_AFL_CMP_H 32u
#define UCOV_AFL_CMP_TYPE_INS 1u
#define UCOV_AFL_HDR_HITS(h) ((uint32_t)((h)&0xffffffu))
#define UCOV_AFL_HDR_SHAPE(h) ((uint32_t)(((h) >> 48) & 0x1fu))
#define UCOV_AFL_HDR_TYPE(h) ((uint32_t)(((h) >> 53) & 0x3u))
#define UCOV_AFL_HDR(hits, shape, type, attr)                                                      \
  ((uint64_t)((hits)&0xffffffu) | (uint64_t)((shape)&0x1fu) << 48 |                                \
   (uint64_t)((type)&0x3u) << 53 | (uint64_t)((attr)&0xfu) << 55)
struct ucov_afl_cmp_operands {
  uint64_t v0, v1, v0_128, v1_128;
};
struct ucov_afl_cmp_map {
  uint64_t headers[UCOV_AFL_CMP_W];
  struct ucov_afl_cmp_operands log[UCOV_AFL_CMP_W][UCOV_AFL_CMP_H];
};
/* That is afl-fuzz's struct cmp_map from 4.0 to 4.10c, 67,633,152 bytes, the
 * size of the segment such an afl-fuzz makes. 4.20c packed the header into
 * 16 bits and widened the operands to 42 bytes (88,211,456), and later ones
 * to 72 bytes, each operand's words together (151,126,016): a segment of
 * another size is a layout this log does not write (afl.c refuses it). */
_Static_assert(sizeof(struct ucov_afl_cmp_map) == 67633152u, "AFL++ 4.0-4.10c's struct cmp_map");

/* The edge map the hooks count into: afl-fuzz's once attached, else a
 * private one of UCOV_AFL_MAP_MAX bytes (never NULL). The port's. */
extern uint8_t *ucov_afl_area;
/* The mask of hashed PC edges: within the map. The port's. */
extern uint32_t ucov_afl_pc_mask;
/* The comparison log, under afl-fuzz's cmplog (-c); else NULL. The port's. */
extern struct ucov_afl_cmp_map *ucov_afl_cmp;
/* What the program calls (include/ucov/afl.h's macros), AFL++'s names: the port's. */
UCOV_EXPORT void __afl_manual_init(void);
UCOV_EXPORT int __afl_persistent_loop(unsigned int max);

/* The size of ucov_afl_area (afl-fuzz's map once attached): guards are
 * numbered below it. The port's. */
extern uint32_t ucov_afl_guard_limit;

/* The core's calls: the guards numbered so far (the map's size follows),
 * and, in persistent mode, the previous location of gcc's hashed edges
 * forgotten between inputs (per thread). */
uint32_t ucov_afl_guards(void) UCOV_PORT_API;
void ucov_afl_forget_prev(void) UCOV_PORT_API;

#endif
