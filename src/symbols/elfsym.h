/* SPDX-License-Identifier: MIT */
/*
 * Function symbols of an ELF file, loaded once into a sorted array and
 * searched by binary search (no per-address library call).
 */
#ifndef UCOV_SYMBOLS_ELFSYM_H
#define UCOV_SYMBOLS_ELFSYM_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Open an ELF file with libelf (any class): the Elf, with its descriptor in
 * *fd and its header in *eh; NULL, said (diag.h), when the file cannot be
 * opened or is not ELF. elf_file_close releases both.
 */
Elf *elf_file_open(const char *path, int *fd, GElf_Ehdr *eh);
void elf_file_close(Elf *elf, int fd);

struct elfsym {
  uint64_t addr; /* ELF virtual address */
  uint64_t size;
  const char *name; /* points into the table's string storage */
};

struct elfsym_table {
  struct elfsym *syms;
  size_t count;
  char *strings; /* owned copy of the string table(s) */
};

/*
 * Load the STT_FUNC symbols of the ELF file at path (.symtab, else .dynsym).
 * A relocatable object's (a Linux module, .ko) count from their section's
 * start: those of its .text, or of section N when path is "FILE#N" (ucov.ko's
 * module map names each executable section of a module so).
 * Returns 0, or -1, said (diag.h).
 */
int elfsym_load(struct elfsym_table *t, const char *path);

/* The function containing ELF address addr, or NULL. */
const struct elfsym *elfsym_lookup(const struct elfsym_table *t, uint64_t addr);

/* The first function named name, or NULL. */
const struct elfsym *elfsym_find(const struct elfsym_table *t, const char *name);

void elfsym_free(struct elfsym_table *t);

#endif
