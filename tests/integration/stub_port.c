/* SPDX-License-Identifier: MIT */
/*
 * A do-nothing port with only the required hooks of include/ucov/port/port.h:
 * linking the core against it with -nostdlib proves the core needs nothing
 * but port.h, and that every optional hook has the core's default.
 */
#include "ucov/port/port.h"

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
