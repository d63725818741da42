/* SPDX-License-Identifier: MIT */
/*
 * A --coverage test program: parses each argument as an HTTP request (with
 * \r \n escapes). "--dump-reset" in the arguments calls libgcov's public
 * __gcov_dump() and __gcov_reset() at that point.
 */
#include <stdio.h>
#include <string.h>

#include "../../examples/demo/httpreq.h"
#include "../../examples/demo/unescape.h"

void __gcov_dump(void);
void __gcov_reset(void);

int main(int argc, char **argv) {
  int ok = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--dump-reset")) {
      __gcov_dump();
      __gcov_reset();
      continue;
    }
    size_t len = unescape(argv[i]);
    const char *buf = argv[i];
    struct http_request req;
    int err = http_parse(buf, len, &req);
    ok += err == HTTP_OK;
    printf("%s\n", http_strerror(err));
  }
  return ok == 0 && argc > 1;
}
