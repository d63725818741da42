/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer: a module's DWARF line table read once (by ucov's own
 * reader of .debug_line, DWARF 2 to 5: libdw's tables cost more memory than
 * the rest together) into one array sorted by address, and its functions
 * (subprograms and the inlined subroutines inside them, through elfutils
 * libdw) into a tree of address ranges; a
 * lookup is a binary search and a walk down that tree, giving the inline
 * chain as `addr2line -f -i` prints it. No library call per address.
 */
#ifndef UCOV_SYMBOLS_DWARF_H
#define UCOV_SYMBOLS_DWARF_H

#include <stddef.h>
#include <stdint.h>

#include "elfsym.h"

/* 16 bytes a row: the line table of a large program is most of the memory. */
struct dw_row {
  uint64_t addr;
  uint32_t file;      /* index into strings; UINT32_MAX: end of a sequence */
  uint32_t line : 22; /* (lines past 4M and columns past 1023 are clamped) */
  uint32_t col : 10;
};

struct dw_fn {
  uint64_t low, high; /* one range of the DIE */
  uint32_t name;      /* index into strings (UINT32_MAX: no name) */
  uint32_t call_file; /* inlined: where it was inlined (UINT32_MAX: a subprogram) */
  uint32_t call_line, call_col;
  uint32_t decl_file, decl_line;    /* where the function is defined */
  uint32_t first_child, n_children; /* children ranges: fns[first_child ...] sorted by low */
};

struct dw_module {
  struct dw_row *rows;
  size_t n_rows;
  struct dw_fn *fns; /* top-level subprogram ranges: fns[0 .. n_top), sorted by low */
  size_t n_fns, n_top;
  char **strings; /* file and function names, deduplicated */
  size_t n_strings;
  void *index;              /* string dedup index, while loading */
  int has_dwarf;            /* 0: no debug info (functions may come from the symbol table) */
  struct elfsym_table syms; /* names of code DWARF does not describe */
  int has_syms;
};

/* One frame of a lookup: innermost first, like addr2line -i. */
struct dw_frame {
  const char *function; /* NULL: unknown ("??") */
  const char *file;     /* NULL: unknown */
  uint32_t line, col;
  const char *fn_file; /* where the function is defined (NULL: unknown) */
  uint32_t fn_line;
};

/*
 * Load the ELF file at path. Returns 0, or -1 with a clear message, said
 * (diag.h: no such file, not ELF, split DWARF whose .dwo files are not found). A file
 * without debug info loads (has_dwarf 0) and answers with no lines.
 */
int dw_load(struct dw_module *m, const char *path);
void dw_free(struct dw_module *m);

/* The frames at ELF address addr (at most max); returns how many (0: none). */
int dw_lookup(const struct dw_module *m, uint64_t addr, struct dw_frame *frames, int max);

/*
 * Addresses of every call to a coverage hook (__sanitizer_cov_trace_pc,
 * __sanitizer_cov_trace_pc_guard) in the executable sections of the ELF file:
 * direct calls (and tail jumps) to the hook's own address or its PLT entry,
 * found by scanning the code for call rel32, jmp rel32 and jcc rel32
 * (x86-64 and i386: callsites.c and one file per architecture; not DWARF).
 * Sorted. Returns the count, or -1, said (diag.h); -2: the file has no such
 * hook, not said (dw_say_no_hook says it).
 */
long dw_call_sites(const char *path, uint64_t **sites);
void dw_say_no_hook(const char *path);

/*
 * The hook sites of a module, as a trace report needs them. A call site's
 * traced PC is the address after it. gcc -O2 turns a hook call that ends a
 * function into a tail jump (jmp, or jcc, to the hook): the PC traced is
 * then the return address into the function's caller, after its call to
 * the jumping function. So: every site (calls and tail jumps, sorted, tail[i]
 * set for the jumps), and the return addresses of the direct calls to the
 * functions that have tail jumps, with that function's address range.
 */
struct dw_hook_sites {
  uint64_t *at; /* call or jump instruction addresses, sorted */
  uint8_t *tail;
  size_t n;
  struct dw_tail_return {
    uint64_t ret;    /* the address after a call to the function */
    uint64_t lo, hi; /* the called function's range: its tail sites are there */
  } * rets;          /* sorted by ret */
  size_t n_rets;
  /* The functions with tail jumps (ranges, sorted), and the return addresses
   * after indirect calls (call *reg, call *mem: their callee is known only
   * from the trace), sorted. */
  struct dw_tail_return *tail_fns;
  size_t n_tail_fns;
  uint64_t *indirect;
  size_t n_indirect;
};

/* As dw_call_sites: 0, -1 said, or -2 (the file has no such hook). */
int dw_hook_sites(const char *path, struct dw_hook_sites *hs);
void dw_hook_sites_free(struct dw_hook_sites *hs);

#endif
