/* SPDX-License-Identifier: MIT */
/*
 * The native gcov reader: a notes file (.gcno) and a counts file (.gcda) read
 * and solved into lines. Input: u32 notes length (little-endian), the notes,
 * then the counts (none: notes alone).
 */
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "readers/gcovn.h"
#include "base/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  if (size < 4)
    return 0;
  uint32_t n;
  memcpy(&n, data, 4);
  if (n > size - 4)
    n = (uint32_t)(size - 4);
  char notes[64], counts[64];
  int nf = fuzz_file(data + 4, n, notes);
  int cf = size - 4 > n ? fuzz_file(data + 4 + n, size - 4 - n, counts) : -1;
  if (nf >= 0) {
    struct cov_model m;
    cov_init(&m);
    const char *gcda = counts;
    if (gcovn_read_many(&m, notes, &gcda, cf >= 0) == 0)
      cov_finish(&m);
    cov_free(&m);
    close(nf);
  }
  if (cf >= 0)
    close(cf);
  return 0;
}
