/* SPDX-License-Identifier: MIT */
/* The version three ways: the build's (CMake's project version, given as
 * WANT_VERSION), the header's macros, and the runtime's ucov_version(). */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "ucov/ucov.h"

int main(void) {
  char s[32];
  snprintf(s, sizeof(s), "%d.%d.%d", UCOV_VERSION_MAJOR, UCOV_VERSION_MINOR, UCOV_VERSION_PATCH);
  CHECK(strcmp(s, UCOV_VERSION) == 0);
  CHECK(strcmp(UCOV_VERSION, WANT_VERSION) == 0);
  CHECK_EQ(UCOV_VERSION_NUMBER,
           UCOV_VERSION_MAJOR * 10000 + UCOV_VERSION_MINOR * 100 + UCOV_VERSION_PATCH);
  int n = -1;
  CHECK(strcmp(ucov_version(&n), UCOV_VERSION) == 0);
  CHECK_EQ(n, UCOV_VERSION_NUMBER);
  CHECK(strcmp(ucov_version(NULL), UCOV_VERSION) == 0);
  return check_report("test_version");
}
