/* SPDX-License-Identifier: MIT */
/*
 * Call sites of the coverage hooks (`ucov symbolize --call-sites`): every
 * call instruction whose target is __sanitizer_cov_trace_pc(_guard), and
 * every tail jump to it (gcc -O2 makes one of a hook call that ends a
 * function), found in the machine code, not in DWARF. callsites.c finds the
 * targets from the symbol tables and scans for call, jmp and jcc rel32; one
 * file per architecture says what differs (its PLT entries, its address
 * width).
 */
#ifndef UCOV_SYMBOLS_CALLSITES_H
#define UCOV_SYMBOLS_CALLSITES_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/* Growing list of addresses. */
struct cs_list {
  uint64_t *v;
  size_t n, cap;
};

struct cs_arch {
  int machine; /* EM_* */
  /*
   * Add to targets (at most max) the PLT entries that jump through one of
   * the GOT slots got[0..n_got): hooks that come from a shared library.
   * NULL for an architecture whose programs call the hooks directly only.
   */
  void (*plt_targets)(Elf *elf, const uint64_t *got, int n_got, uint64_t *targets, int *n_targets,
                      int max);
  /* Calls are call rel32 (e8), tail jumps jmp/jcc rel32 (e9, 0f 8x), on both;
   * a target wraps at the address width. */
  uint64_t addr_mask;
};

extern const struct cs_arch cs_x86_64, cs_i386;

#endif
