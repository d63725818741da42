/* SPDX-License-Identifier: MIT */
/*
 * An ELF file's section headers, section names and build-id, read through a
 * pread-like callback: the one reader of a dormant module's file, for the
 * runtime (a loaded module's file, dormant_patch.c) and for `ucov cc --dormant`
 * (the linked file it rewrites, src/cli/cc_dormant.c). Every header and section
 * is checked against the file's size before it is read; names are bounded.
 * The file's own class (ElfW: the runtime's; the command runs on x86-64).
 */
#ifndef UCOV_POSIX_ELF_FILE_H
#define UCOV_POSIX_ELF_FILE_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "ucov/dormant.h"
#include "ucov/port/compiler.h"

struct ucov_elf_file {
  /* n bytes at off into buf: 0, or -1 (short or failed). */
  int (*read)(void *arg, void *buf, size_t n, uint64_t off);
  void *arg;
  uint64_t size; /* the file's */
  ElfW(Ehdr) eh;
  ElfW(Shdr) * sh; /* eh.e_shnum of them, each inside the file */
  char *names;     /* the section names' table, NUL-terminated */
  size_t names_len;
};

/* Read f's headers (read, arg and size set by the caller): 0; -1 not an ELF
 * file of this class with sections; -2 damaged or out of memory (why: a
 * fixed phrase). */
int ucov_elf_open(struct ucov_elf_file *f, const char **why) UCOV_HIDDEN;
void ucov_elf_close(struct ucov_elf_file *f) UCOV_HIDDEN;

/* Section i's name ("" if it has none that fits). */
const char *ucov_elf_section_name(const struct ucov_elf_file *f, unsigned i) UCOV_HIDDEN;
/* The first section of that name, or NULL. */
const ElfW(Shdr) * ucov_elf_section(const struct ucov_elf_file *f, const char *name) UCOV_HIDDEN;

/* The GNU build-id of the file's first note section that has one: its
 * length (at most cap bytes copied to id), 0 if none. */
size_t ucov_elf_build_id(const struct ucov_elf_file *f, uint8_t *id, size_t cap) UCOV_HIDDEN;
/* The same from notes [p, p+len) (a PT_NOTE segment in memory): its length
 * and where it is, 0 if none. */
size_t ucov_elf_note_build_id(const uint8_t *p, size_t len, const uint8_t **id) UCOV_HIDDEN;

/*
 * The site table (ucov/dormant.h) of section .ucov_sites: 1 if the file has
 * none; 0 with *th and *sites (malloc'd, th->count, each ucov_site_ok) read;
 * -1 if it is damaged or memory ran out.
 */
int ucov_elf_sites(const struct ucov_elf_file *f, struct ucov_sites_header *th,
                   struct ucov_site **sites) UCOV_HIDDEN;

#endif
