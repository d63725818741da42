/* SPDX-License-Identifier: MIT */
/*
 * POSIX port, x86-64: between the dormant sites' patcher (dormant_patch.c)
 * and the reader of a module's sites (dormant_sites.c): a site with both its
 * forms, a registered module.
 */
#ifndef UCOV_POSIX_DORMANT_SITES_H
#define UCOV_POSIX_DORMANT_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "ucov/dormant.h"
#include "ucov/port/compiler.h"

/*
 * A site as the patcher sees it, with both its forms: the table's sites
 * (ucov/dormant.h) and XRay's sleds (clang -fxray-instrument, --ext
 * --dormant), 11 bytes: an entry or tail sled (`jmp +9`, NOPs) becomes
 * `mov $idx, %r10d; call trampoline`, an exit sled (`ret`, NOPs) `mov $idx,
 * %r10d; jmp trampoline`. A sled goes dormant by its first two bytes only,
 * as XRay's runtime unpatches: a thread between its mov and its call still
 * finds the call.
 */
enum { K_XENTRY = 5, K_XEXIT = 6 }; /* after enum ucov_site_kind */
#define PSITE_MAX 11
struct psite {
  uint64_t addr; /* link-time address */
  uint32_t idx;  /* a sled's index in the module's XRay map */
  uint8_t kind, len;
  uint8_t live[PSITE_MAX], dormant[PSITE_MAX];
};

/* A module's sites as read from its file, for one load of it: never changed
 * once published, so that a trap handler reads one consistent table (a
 * module loaded again gets a new one: dormant_patch.c retires the old). */
struct ptable {
  uintptr_t bias;         /* load bias */
  uintptr_t lo, hi;       /* its executable segments' extent, run-time addresses */
  size_t count;           /* sites */
  struct ptable *retired; /* (replaced, kept: the next kept; no handler reads it) */
  struct psite sites[];   /* sorted by address */
};

/* A registered module. Records are never freed (a trap handler may be
 * reading one); a module unloaded and loaded again reuses its record. */
struct dmod {
  struct dmod *next;
  struct ucov_dormant_module reg; /* what its constructor gave */
  const void *ehdr;               /* its ELF header in memory: the registration key */
  struct ptable *table;           /* published with release; NULL until read */
  uint8_t *mark;                  /* per site of table: being patched now (the lock's) */
  int state;                      /* 0 table not read, 1 read, -1 cannot be read */
  int live;                       /* the form its sites are in */
  int present;                    /* registered and not unloaded */
  unsigned long skipped;          /* sites left alone at the last patch (neither form) */
};

#define XRAY_ENTRY 32 /* an xray_instr_map entry: address, function, kind, ..., version */

/* The run-time address of the sled of map entry e: relative to the entry
 * from version 2 on, absolute (relocated at load) before. */
static inline UCOV_NOTRACE uintptr_t xray_sled(const uint8_t *e) {
  int64_t where;
  __builtin_memcpy(&where, e, 8);
  return e[18] >= 2 ? (uintptr_t)e + (uintptr_t)where : (uintptr_t)where;
}

/* A diagnostic line through the port's log ("ucov: dormant sites: ..."). */
void ucov_dormant_say(const char *fmt, ...) __attribute__((format(printf, 1, 2))) UCOV_HIDDEN;

/* Read m's table from its file and its XRay sleds from memory: 0; 1 if it
 * has nothing to patch; -1 with the reason said. The port lock is held. */
int ucov_dormant_table_read(struct dmod *m) UCOV_HIDDEN;

/* m's table becomes t, with mark (t->count bytes, zero): the old table is
 * freed once no trap handler can be reading it. The port lock is held. */
void ucov_dormant_table_publish(struct dmod *m, struct ptable *t, uint8_t *mark) UCOV_HIDDEN;

#endif
