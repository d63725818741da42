/* SPDX-License-Identifier: MIT */
/*
 * The runtime's reading of an existing .gcda before it merges into it (the
 * exit's files and `ucov pull --dump`'s: a build tree anyone may have
 * written): its header, summary and function records checked against a unit
 * (ucov_gcda_parse). Input: the file. (Fuzzed without coverage feedback from
 * the runtime, which is never instrumented.)
 */
#include <stdlib.h>

#include "core/gcov.h"
#include "core_units.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ucov_gcov_unit *u = fuzz_gcov_unit();
  if (!u)
    abort(); /* the harness's unit is not registered */
  struct ucov_gcda_merge *m = NULL;
  char msg[128];
  if (ucov_gcda_parse(data, size, u, &m, msg, sizeof(msg)) == UCOV_GCDA_MERGE) {
    ucov_gcda_merge_summary(m);
    ucov_gcda_merge_free(m);
  }
  return 0;
}
