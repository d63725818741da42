/* SPDX-License-Identifier: MIT */
/*
 * ucov's own reader of DWARF line programs (versions 2 to 5): a unit's header,
 * its directory and file tables (forms, .debug_line_str and .debug_str
 * offsets), and its opcodes into rows, then the rows sorted. Input: u32
 * length of .debug_line, u32 length of .debug_line_str (little-endian), the
 * three sections' bytes one after the other (the rest is .debug_str).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/dwarf_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  if (size < 8)
    return 0;
  uint32_t n_line, n_str;
  memcpy(&n_line, data, 4);
  memcpy(&n_str, data + 4, 4);
  data += 8, size -= 8;
  n_line = n_line > size ? (uint32_t)size : n_line;
  n_str = n_str > size - n_line ? (uint32_t)(size - n_line) : n_str;
  /* Each section a copy of its own, so that a read past its end is caught. */
  uint8_t *line = malloc(n_line + 1), *line_str = malloc(n_str + 1);
  uint8_t *str = malloc(size - n_line - n_str + 1);
  if (line && line_str && str) {
    memcpy(line, data, n_line);
    memcpy(line_str, data + n_line, n_str);
    memcpy(str, data + n_line + n_str, size - n_line - n_str);
    struct dw_secs d = {line, line_str, str, n_line, n_str, size - n_line - n_str};
    struct dw_module m;
    memset(&m, 0, sizeof(m));
    struct str_index ix = {0};
    m.index = &ix;
    uint32_t *files = NULL;
    size_t n_files = 0, cap_rows = 0, n_runs = 0, cap_runs = 0;
    struct dw_run *runs = NULL;
    /* every unit of the section, as a module's units follow each other */
    for (uint64_t off = 0; off < n_line;) {
      size_t rows_before = m.n_rows;
      free(files);
      files = NULL;
      n_files = 0;
      if (dw_read_lines(&m, &d, off, "/comp", &files, &n_files, &cap_rows, &runs, &n_runs,
                        &cap_runs))
        break;
      uint32_t unit;
      memcpy(&unit, line + off, off + 4 <= n_line ? 4 : 0);
      if (off + 4 > n_line || unit == 0 || unit >= 0xfffffff0u || rows_before > m.n_rows)
        break;
      off += 4 + (uint64_t)unit;
    }
    dw_sort_rows(&m, runs, n_runs);
    free(files);
    free(runs);
    free(ix.slots);
    m.index = NULL;
    dw_free(&m);
  }
  free(line);
  free(line_str);
  free(str);
  return 0;
}
