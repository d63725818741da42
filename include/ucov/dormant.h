/* SPDX-License-Identifier: MIT */
/*
 * Dormant builds (`ucov cc --dormant`, x86-64): the hook call sites of a
 * module, as `ucov cc` finds them in the relocations the linker kept
 * (--emit-relocs) and writes them into the linked file, and as the runtime
 * patches them between their two forms:
 *  - live: the compiler's call or jump to the hook;
 *  - dormant: a call becomes a NOP of its length; a tail jump (the hook was
 *    the function's last call) becomes a `ret` padded with NOPs; a conditional
 *    tail jump keeps its condition and jumps to a `ret` of the module
 *    (the table's ret_addr) instead of the hook;
 *  - a twin entry (a function built with ucov's twins plugin: a plain body
 *    with no hook and a traced twin): live, a jump from the plain body's
 *    entry to the twin's; dormant, a 5-byte NOP, and the plain body runs.
 * The linked file holds the dormant form: a dormant program runs without
 * calling a hook until the first KCOV enable makes its sites live.
 *
 * The table is the non-allocated section ".ucov_sites" of the module's file:
 * a header, then `count` entries sorted by address. Addresses are link-time
 * virtual addresses (the load bias is added at run time). Little-endian.
 */
#ifndef UCOV_DORMANT_H
#define UCOV_DORMANT_H

#include <stdint.h>

#define UCOV_SITES_SECTION ".ucov_sites"
#define UCOV_SITES_MAGIC 0x5345544953564f43ull /* "COVSITES" */
#define UCOV_SITES_VERSION 1u

/* Longest form of a site: a conditional jump (0f 8x rel32), or an indirect
 * call or jump through the GOT (ff 15 / ff 25 rel32). */
#define UCOV_SITE_MAX 6

enum ucov_site_kind {
  UCOV_SITE_CALL = 1, /* e8 rel32, 67 e8 rel32, ff 15 rel32: dormant a NOP */
  UCOV_SITE_JMP = 2,  /* e9 rel32, ff 25 rel32: dormant ret + NOPs */
  UCOV_SITE_JCC = 3,  /* 0f 8x rel32: dormant the same jump to ret_addr */
  UCOV_SITE_TWIN = 4, /* e9 rel32 to the twin: dormant a NOP */
};

struct ucov_sites_header {
  uint64_t magic;      /* UCOV_SITES_MAGIC */
  uint32_t version;    /* UCOV_SITES_VERSION */
  uint32_t entry_size; /* sizeof(struct ucov_site) */
  uint64_t count;      /* entries after the header */
  uint64_t ret_addr;   /* a `ret` instruction of the module (0: no JCC site) */
};

struct ucov_site {
  uint64_t addr;               /* the instruction's first byte */
  uint8_t kind;                /* enum ucov_site_kind */
  uint8_t len;                 /* 5 or 6 */
  uint8_t live[UCOV_SITE_MAX]; /* the compiler's bytes */
};

/* The table at the start of a .ucov_sites section of `size` bytes (its
 * header at sec, read unaligned): the header into *th and its count of
 * entries, which follow it; -1 if it is not one of this version whose
 * entries fit the section. The one check of a table, for every reader. */
static inline long long ucov_sites_table(const void *sec, uint64_t size,
                                         struct ucov_sites_header *th) {
  if (size < sizeof(*th))
    return -1;
  __builtin_memcpy(th, sec, sizeof(*th));
  if (th->magic != UCOV_SITES_MAGIC || th->version != UCOV_SITES_VERSION ||
      th->entry_size != sizeof(struct ucov_site) ||
      th->count > (size - sizeof(*th)) / sizeof(struct ucov_site))
    return -1;
  return (long long)th->count;
}

/* Is s a site as `ucov cc --dormant` writes them (a known kind, 5 or 6
 * bytes; a conditional jump only in a table with a ret to jump to; a twin
 * entry a 5-byte jump)? */
static inline int ucov_site_ok(const struct ucov_site *s, uint64_t ret_addr) {
  return (s->len == 5 || s->len == 6) && s->kind >= UCOV_SITE_CALL && s->kind <= UCOV_SITE_TWIN &&
         (s->kind != UCOV_SITE_JCC || ret_addr) &&
         (s->kind != UCOV_SITE_TWIN || (s->len == 5 && s->live[0] == 0xe9));
}

/* The dormant bytes of site s (len bytes into out): see above. The NOPs are
 * the ones the Intel manual recommends for each length. */
static inline void ucov_site_dormant(const struct ucov_site *s, uint64_t ret_addr,
                                     uint8_t out[UCOV_SITE_MAX]) {
  static const uint8_t nop[7][6] = {
      {0},
      {0x90},
      {0x66, 0x90},
      {0x0f, 0x1f, 0x00},
      {0x0f, 0x1f, 0x40, 0x00},
      {0x0f, 0x1f, 0x44, 0x00, 0x00},
      {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
  };
  unsigned len = s->len <= UCOV_SITE_MAX ? s->len : UCOV_SITE_MAX;
  if (s->kind == UCOV_SITE_JCC) {
    int64_t rel = (int64_t)(ret_addr - (s->addr + len));
    uint32_t r = (uint32_t)(int32_t)rel;
    out[0] = s->live[0];
    out[1] = s->live[1];
    out[2] = (uint8_t)r;
    out[3] = (uint8_t)(r >> 8);
    out[4] = (uint8_t)(r >> 16);
    out[5] = (uint8_t)(r >> 24);
    return;
  }
  unsigned k = 0;
  if (s->kind == UCOV_SITE_JMP)
    out[k++] = 0xc3;
  for (unsigned i = 0; k < len; i++)
    out[k++] = nop[len - (s->kind == UCOV_SITE_JMP)][i];
}

/*
 * The runtime's side (libucov.a, libucov.so): a module whose sites are in its
 * file registers from a constructor (libucov-dormant.a, which `ucov cc
 * --dormant` links into it), and unregisters its ELF header from a
 * destructor. A clang module built --ext --dormant also has XRay sleds
 * (-fxray-instrument): their map (the section xray_instr_map, NULL when the
 * module has none) and the module's own trampolines, which its sleds call
 * when live (`mov $idx, %r10d; call` for an entry or tail call, `jmp` for an
 * exit) and which call ucov_xray_hit(ehdr, idx, kind).
 */
struct ucov_dormant_module {
  const void *ehdr;
  const void *xray_start, *xray_stop;
  const void *tramp_entry, *tramp_exit, *tramp_tail;
};
void ucov_dormant_register(const struct ucov_dormant_module *m);
void ucov_dormant_unregister(const void *ehdr);
void ucov_xray_hit(const void *ehdr, uint32_t idx, uint32_t kind);

#endif
