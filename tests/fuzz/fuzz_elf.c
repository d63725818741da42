/* SPDX-License-Identifier: MIT */
/*
 * An ELF file as the symbolizer and the trace reader take it: its symbol
 * tables (elfsym), its DWARF (functions, inlines, the line program: dw_load)
 * and its hook call sites, from the relocations and code or a dormant
 * build's site table (dw_call_sites). Input: the file.
 */
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "symbols/dwarf.h"
#include "symbols/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  int fd = fuzz_input(data, size, path);
  if (fd < 0)
    return 0;
  struct elfsym_table t;
  if (elfsym_load(&t, path) == 0) {
    elfsym_lookup(&t, 0x1000);
    elfsym_find(&t, "main");
    elfsym_free(&t);
  }
  struct dw_module m;
  if (dw_load(&m, path) == 0) {
    struct dw_frame fr[8];
    for (uint64_t a = 0; a < 0x3000; a += 0x40)
      dw_lookup(&m, a, fr, 8);
    dw_free(&m);
  }
  uint64_t *sites = NULL;
  if (dw_call_sites(path, &sites) >= 0)
    free(sites);
  close(fd);
  return 0;
}
