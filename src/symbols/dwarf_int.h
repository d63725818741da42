/* SPDX-License-Identifier: MIT */
/*
 * Between the symbolizer's DWARF files: dwarf.c (loading, the function and
 * inline tree, lookups) and dwarf_lines.c (ucov's own reader of the line
 * program). Not for other users: dwarf.h is the interface.
 */
#ifndef UCOV_SYMBOLS_DWARF_INT_H
#define UCOV_SYMBOLS_DWARF_INT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf.h"

#define DW_NONE UINT32_MAX

/* The rows of one sequence (a unit's table is sorted within each). */
struct dw_run {
  size_t start, n;
};

/* The sections the line program reader reads. */
struct dw_secs {
  const uint8_t *line, *line_str, *str;
  size_t line_n, line_str_n, str_n;
};

/* The module's strings by hash while it loads (m->index). */
struct str_index {
  uint32_t *slots; /* string index + 1 */
  size_t n_slots;
  size_t cap;
};

/* A string of the module, interned: its index (DW_NONE for NULL or no memory). */
uint32_t dw_intern(struct dw_module *m, const char *s);

/* Room in a growable array for element n (doubled from 1024). 0 or -1. */
int dw_reserve(void **arr, size_t *cap, size_t n, size_t elem);

/* The line program's sections of an ELF file (decompressed). */
void dw_find_sections(Elf *elf, struct dw_secs *d);

/*
 * Read the line program at offset off: rows into m (each sequence a run for
 * dw_sort_rows), and the unit's file table as interned names in *files.
 * Returns 0 or -1 (malformed).
 */
int dw_read_lines(struct dw_module *m, const struct dw_secs *d, uint64_t off, const char *comp_dir,
                  uint32_t **files, size_t *n_files, size_t *cap_rows, struct dw_run **runs,
                  size_t *n_runs, size_t *cap_runs);

/* Sort the whole table (by runs when they do not interleave). 0 or -1. */
int dw_sort_rows(struct dw_module *m, struct dw_run *runs, size_t n_runs);

#endif
