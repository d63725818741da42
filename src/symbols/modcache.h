/* SPDX-License-Identifier: MIT */
/*
 * One cache of what the host tool reads from a module (an ELF file), by
 * path, each part loaded once when first asked for: its ELF symbols, its
 * DWARF, its trace-pc hook call sites. `ucov symbolize` and the trace
 * inputs of `ucov report` share it; a module that failed to load is not
 * tried again (the first caller said why).
 */
#ifndef UCOV_SYMBOLS_MODCACHE_H
#define UCOV_SYMBOLS_MODCACHE_H

#include <stddef.h>

#include "dwarf.h"
#include "elfsym.h"

struct modcache_entry; /* one module: modcache.c */

struct modcache {
  struct modcache_entry **v; /* (pointers: an entry's parts never move) */
  size_t n, cap;
};

/*
 * A part of module path, loaded now if it was not. Returns 1 loaded now, 0
 * loaded before (*out set either way); -1 it failed now (said, diag.h: once
 * per module); -2 it failed before. The dw_hook_sites status -2 (no call
 * site: a module without the hook, not said) is returned as -3 for the
 * sites, whatever the call.
 */
int modcache_symbols(struct modcache *c, const char *path, const struct elfsym_table **out);
int modcache_dwarf(struct modcache *c, const char *path, const struct dw_module **out);
int modcache_sites(struct modcache *c, const char *path, const struct dw_hook_sites **out);

/* Everything loaded, freed; the cache empty again. */
void modcache_free(struct modcache *c);

#endif
