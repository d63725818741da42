/* SPDX-License-Identifier: MIT */
/*
 * The server's side of the control protocol: what a hostile client sends.
 * Input: frames one after the other, each a 16-byte header and the payload
 * its length says (cut at the input's end); each is checked
 * (ucov_frame_check) and served by the core (ucov_serve) into a sink, as the
 * POSIX port's connections and the kernels' serial lines do, against a
 * registry holding a gcov unit. (Fuzzed without coverage feedback from the
 * runtime, which is never instrumented.)
 */
#include <stdlib.h>
#include <string.h>

#include "core_units.h"
#include "fuzz.h"
#include "posix/memsink.h"
#include "ucov/port/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!fuzz_gcov_unit())
    abort();
  for (int frames = 0; size >= UCOV_PROTO_HEADER && frames < 64; frames++) {
    struct ucov_frame f;
    ucov_frame_decode(data, &f);
    data += UCOV_PROTO_HEADER, size -= UCOV_PROTO_HEADER;
    if (ucov_frame_check(&f) != UCOV_ST_OK)
      break; /* (the connection ends) */
    size_t n = f.length < size ? f.length : size;
    char payload[UCOV_PROTO_MAX_REQUEST];
    if (n != f.length || n > sizeof(payload))
      break; /* a cut frame: the server gives up waiting */
    memcpy(payload, data, n);
    data += n, size -= n;
    if (f.op == UCOV_OP_REMOTE_ENABLE || f.op == UCOV_OP_DUMP)
      continue; /* (the POSIX port's own, with a descriptor or files) */
    struct ucov_mem_sink out;
    ucov_mem_sink_init(&out);
    uint8_t eno[4];
    ucov_serve(&f, payload, &out.sink, eno);
    free(out.data);
  }
  return 0;
}
