/* SPDX-License-Identifier: MIT */
/* JSON parsed, then read as each JSON format ucov takes: ucov's, gcov's
 * (also into lcov 2's branch blocks), gcovr's and llvm-cov's export (as
 * clang 14 and 19 write it). */
#include <stdio.h>

#include "fuzz.h"
#include "readers/readers.h"
#include "writers/writers.h"
#include "base/json.h"
#include "base/model.h"

static void one(const struct json *root, int which) {
  struct cov_model m;
  cov_init(&m);
  m.unit_blocks = which == 5;
  int r = which == 0                 ? ucov_json_read(&m, root)
          : which == 1 || which == 5 ? gcov_json_read(&m, root)
          : which == 2               ? gcovr_json_read(&m, root)
                                     : llvm_export_read(&m, root, which == 3 ? 14 : 19);
  if (r == 0)
    cov_finish(&m);
  cov_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  struct json_doc doc = {0};
  size_t used = 0;
  if (json_parse(&doc, (const char *)data, size, &used) == 0)
    for (int which = 0; which < 6; which++)
      one(doc.root, which);
  json_free(&doc);
  return 0;
}
