/* SPDX-License-Identifier: MIT */
/*
 * A do-nothing port: linking the core against it with -nostdlib proves the
 * core needs nothing but include/ucov/port.h.
 */
#include "ucov/port.h"

void ucov_port_lock(void) {}

void ucov_port_unlock(void) {}

static uint64_t arena[64];

uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes) {
  (void)dev;
  return bytes <= sizeof(arena) ? arena : 0;
}

void ucov_port_device_release(struct ucov_device *dev) {
  (void)dev;
}

int ucov_port_task_bind(struct ucov_task *task) {
  (void)task;
  return 0;
}

void *ucov_port_alloc(size_t bytes) {
  (void)bytes;
  return 0;
}

void ucov_port_free(void *p) {
  (void)p;
}

void ucov_port_log(const char *msg) {
  (void)msg;
}

void ucov_port_gcov_dump(int at_exit) {
  (void)at_exit;
}

int ucov_port_modules_write(struct ucov_sink *sink) {
  (void)sink;
  return -UCOV_EOPNOTSUPP;
}

void ucov_port_object_added(void) {}

void ucov_port_exit_drain(void) {}

struct ucov_device *ucov_port_device_next(struct ucov_device *prev, uint32_t *id) {
  (void)prev;
  (void)id;
  return 0;
}

int ucov_port_same_module(const void *a, const void *b) {
  (void)a;
  (void)b;
  return 1;
}

int ucov_port_llvm_sections(unsigned i, struct ucov_llvm_sections *s) {
  (void)i;
  (void)s;
  return -1;
}

int ucov_port_transport_read(int wait) {
  (void)wait;
  return -1;
}

void ucov_port_transport_write(const void *buf, size_t n) {
  (void)buf;
  (void)n;
}

int ucov_port_info(struct ucov_sink *sink) {
  (void)sink;
  return -UCOV_EOPNOTSUPP;
}

int ucov_port_command(uint32_t flags, const char *cmd, size_t len, struct ucov_sink *out) {
  (void)flags;
  (void)cmd;
  (void)len;
  (void)out;
  return -UCOV_EOPNOTSUPP;
}
