/* SPDX-License-Identifier: MIT */
/* Control protocol helpers shared by the target's server and the ucov command. */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../core/compiler.h"

UCOV_NOTRACE int ucov_control_dir(char *out, size_t len) {
  const char *dir = getenv("UCOV_RUNTIME_DIR");
  int n;
  if (dir && *dir) {
    n = snprintf(out, len, "%s", dir);
  } else if ((dir = getenv("XDG_RUNTIME_DIR")) && *dir) {
    n = snprintf(out, len, "%s/ucov", dir);
  } else {
    n = snprintf(out, len, "/tmp/ucov-%u", (unsigned)geteuid());
  }
  return n > 0 && (size_t)n < len ? 0 : -1;
}

UCOV_NOTRACE int ucov_control_path(pid_t pid, char *out, size_t len) {
  char dir[256];
  if (ucov_control_dir(dir, sizeof(dir)))
    return -1;
  int n = snprintf(out, len, "%s/%d.sock", dir, (int)pid);
  return n > 0 && (size_t)n < len ? 0 : -1;
}
