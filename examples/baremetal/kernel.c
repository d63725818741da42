/* SPDX-License-Identifier: MIT */
/*
 * A small multiboot kernel that links the ucov core: it serves the control
 * protocol's frames on COM1 (docs/protocol.md, the same bytes as the control
 * socket), and runs instrumented subsystems (a parser, a scheduler, an
 * allocator) on the host's COMMAND requests. Nothing a host sends stops it:
 * a bad frame gets an error reply and the line is read on to the next magic.
 */
#include "ucov/port/frame.h"
#include "hw.h"

void serve_forever(void) {
  for (;;)
    ucov_serve_transport();
}

void kmain(void);

void kmain(void) {
  serial_init();
  ktasks_init();
  debug_print("ucov bare-metal kernel: serving the control protocol on COM1\n");
  serve_forever();
}
