/* SPDX-License-Identifier: MIT */
/* MD5 (RFC 1321), for the source digests Coveralls wants; not for security. */
#ifndef UCOV_BASE_MD5_H
#define UCOV_BASE_MD5_H

#include <stddef.h>
#include <stdint.h>

struct md5 {
  uint32_t h[4];
  uint64_t len; /* bytes so far */
  uint8_t buf[64];
};

void md5_init(struct md5 *c);
void md5_update(struct md5 *c, const void *data, size_t n);
/* The digest as 32 lowercase hex digits and a NUL. */
void md5_hex(struct md5 *c, char out[33]);

/* The MD5 of a regular file's bytes into hex, and (lines not NULL) its number
 * of lines, a last one without its newline counted. 0, or -1 if it is not a
 * readable regular file. */
int md5_file(const char *path, char hex[33], uint32_t *lines);

#endif
