/* SPDX-License-Identifier: MIT */
/* The build-id of an ELF file, as a push records a build's programs. */
#ifndef UCOV_SYMBOLS_BUILDID_H
#define UCOV_SYMBOLS_BUILDID_H

#include <stddef.h>

/* The GNU build-id note of the ELF file at path as hex into out (n bytes),
 * or "" (no such note, not ELF, or it does not fit). */
void elf_build_id_hex(const char *path, char *out, size_t n);

#endif
