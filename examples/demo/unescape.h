/* SPDX-License-Identifier: MIT */
/* Requests on command lines: undo \r \n \t \\ escapes in place. */
#ifndef UNESCAPE_H
#define UNESCAPE_H

#include <stddef.h>

/* Returns the new length (the string stays NUL-terminated). */
static inline size_t unescape(char *s) {
  char *out = s;
  for (char *p = s; *p; p++) {
    if (*p == '\\' && p[1]) {
      p++;
      *out++ = *p == 'r' ? '\r' : *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
    } else {
      *out++ = *p;
    }
  }
  *out = 0;
  return (size_t)(out - s);
}

#endif
