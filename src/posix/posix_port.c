/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the basic services of include/ucov/port/port.h, memory for the
 * core's bookkeeping and its diagnostics. (The lock and trace areas are the
 * devices', in device_memfd.c; the module map is modules.c's; the control socket
 * and INFO are control.c's; exit-time files are gcov_files.c's and
 * pgo_files.c's.)
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ucov/port/compiler.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

/* Zero-filled and 16-byte aligned (malloc's alignment on the 64-bit ABIs). */
UCOV_NOTRACE void *ucov_port_alloc(size_t bytes) {
  return calloc(1, bytes ? bytes : 1);
}

UCOV_NOTRACE void ucov_port_free(void *p) {
  free(p);
}

UCOV_NOTRACE void ucov_port_log(const char *msg) {
  /* stderr, unbuffered and without stdio: this may run at exit or in a signal. */
  size_t n = strlen(msg);
  if (write(2, msg, n) == (ssize_t)n)
    (void)!write(2, "\n", 1);
}

UCOV_EXPORT UCOV_NOTRACE const char *ucov_version(int *number) {
  if (number)
    *number = UCOV_VERSION_NUMBER;
  return UCOV_VERSION;
}
