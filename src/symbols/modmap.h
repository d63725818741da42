/* SPDX-License-Identifier: MIT */
/*
 * The module map a target writes (ucov_modules_write): which module, and
 * which ELF address in it, a runtime PC belongs to.
 */
#ifndef UCOV_SYMBOLS_MODMAP_H
#define UCOV_SYMBOLS_MODMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct modmap_entry {
  uint64_t start, end, offset, bias;
  char perms[4];
  char *build_id; /* hex, or "-" */
  char *path;
};

struct modmap {
  struct modmap_entry *entries;
  size_t count;
};

/* Parse a module map. Returns 0, or -1, said (diag.h) about the bad line. */
int modmap_read(struct modmap *m, FILE *f, const char *name);

/* The executable segment containing pc, or NULL. */
const struct modmap_entry *modmap_find(const struct modmap *m, uint64_t pc);

void modmap_free(struct modmap *m);

#endif
