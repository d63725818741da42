/* SPDX-License-Identifier: MIT */
/* COM1 at 115200 8N1, polled; the debug console on port 0xe9. */
#include "hw.h"

#define COM1 0x3f8

void serial_init(void) {
  outb(COM1 + 1, 0x00); /* no interrupts: polled */
  outb(COM1 + 3, 0x80); /* DLAB */
  outb(COM1 + 0, 0x01); /* divisor 1: 115200 baud */
  outb(COM1 + 1, 0x00);
  outb(COM1 + 3, 0x03); /* 8N1 */
  outb(COM1 + 2, 0xc7); /* FIFO on, cleared */
  outb(COM1 + 4, 0x03); /* DTR, RTS */
}

void serial_write(const void *buf, size_t n) {
  const uint8_t *p = buf;
  for (size_t i = 0; i < n; i++) {
    while (!(inb(COM1 + 5) & 0x20))
      ;
    outb(COM1, p[i]);
  }
}

int serial_read(uint32_t patience) {
  for (uint32_t polls = 0; !patience || polls < patience; polls++)
    if (inb(COM1 + 5) & 0x01)
      return inb(COM1);
  return -1;
}

void debug_print(const char *s) {
  while (*s)
    outb(0xe9, (uint8_t)*s++);
}
