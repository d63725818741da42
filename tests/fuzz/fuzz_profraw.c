/* SPDX-License-Identifier: MIT */
/*
 * The runtime's reading of an old raw profile (LLVM_PROFILE_FILE's %m pools
 * and a profile merged into at exit are files anyone may have written): the
 * header, every section's size and offset, the records and the value data
 * checked whole, then merged with live counters (ucov_pgo_write_merged).
 * Input: the old profile. (The runtime is never instrumented: fuzzed with
 * AddressSanitizer but without coverage feedback from it.)
 */
#include <stdlib.h>

#include "core/pgo.h"
#include "core_units.h"
#include "fuzz.h"
#include "posix/memsink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const struct ucov_llvm_sections *s = fuzz_llvm_sections();
  struct ucov_pgo_layout l;
  if (ucov_pgo_prepare(s, &l))
    abort(); /* the harness's own sections are wrong */
  struct ucov_mem_sink out;
  ucov_mem_sink_init(&out);
  ucov_pgo_write_merged(&out.sink, s, 0, data, size);
  free(out.data);
  return 0;
}
