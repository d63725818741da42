/* SPDX-License-Identifier: MIT */
/*
 * A long-lived server for tests/e2e/store.sh: parses each line of stdin as
 * an HTTP request (with \r \n escapes), answers on stdout, and runs until
 * stdin closes, so tests can be driven through one process.
 */
#include <stdio.h>
#include <string.h>

#include "../../../examples/demo/httpreq.h"
#include "../../../examples/demo/unescape.h"

int main(void) {
  char line[4096];
  setvbuf(stdout, NULL, _IOLBF, 0);
  while (fgets(line, sizeof(line), stdin)) {
    line[strcspn(line, "\n")] = 0;
    size_t len = unescape(line);
    struct http_request req;
    int err = http_parse(line, len, &req);
    printf("%s\n", http_strerror(err));
  }
  return 0;
}
