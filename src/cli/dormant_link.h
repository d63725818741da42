/* SPDX-License-Identifier: MIT */
/* ucov cc --dormant: the link's output made dormant (src/cli/cc_dormant.c). */
#ifndef UCOV_CLI_DORMANT_LINK_H
#define UCOV_CLI_DORMANT_LINK_H

#include <stddef.h>

struct dormant_stats {
  unsigned long sites, calls, jumps; /* in the table (jumps: tail jumps, plain or conditional) */
  unsigned long twins;               /* of the sites: twin entries (ucov's twins plugin) */
  unsigned long twin_bad;            /* pairs whose plain entry is not the plugin's NOPs */
  unsigned long live_jcc;            /* conditional tail jumps left live (no ret to jump to) */
  unsigned long other_refs;          /* references to a hook that are not a call or jump */
  int unsupported;                   /* not x86-64: the file is left as it is */
};

/*
 * Make the linked file at path dormant: every hook call site that the kept
 * relocations (-Wl,--emit-relocs) name is put in its dormant form, so is
 * the entry of every plain body the twins plugin paired with a twin (the
 * section .ucov_twins), and the table of sites is appended as the section
 * .ucov_sites (ucov/dormant.h). The twins' own hook calls stay live.
 * 0, or -1, said (diag.h; the file is then unchanged).
 */
int dormant_fixup(const char *path, struct dormant_stats *stats);

#endif
