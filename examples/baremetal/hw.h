/* SPDX-License-Identifier: MIT */
/* The kernel's hardware and runtime pieces (not instrumented). */
#ifndef BAREMETAL_HW_H
#define BAREMETAL_HW_H

#include <stddef.h>
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) {
  __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port) {
  uint8_t v;
  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}

/* COM1: the control line (frames only). */
void serial_init(void);
void serial_write(const void *buf, size_t n);
/* A byte, or -1 when none came for about `patience` polls of the line (0: wait forever). */
int serial_read(uint32_t patience);

/* Human-readable text: QEMU's debug console (port 0xe9, -debugcon). */
void debug_print(const char *s);

/* The kernel's heap for the port (a first-fit list over a static arena). */
void *heap_alloc(size_t n);
void heap_free(void *p);

/* The scheduler tasks' KCOV devices (port.c), at boot. */
void ktasks_init(void);

/* Serve frames on COM1 forever. */
void serve_forever(void);

/* Run one kernel command (commands.c): its answer goes to out, *len bytes of cap. */
void kernel_command(const char *cmd, size_t cmd_len, char *out, size_t cap, size_t *len);

#endif
