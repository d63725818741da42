/* SPDX-License-Identifier: MIT */
/*
 * The defaults of the optional port hooks (ucov/port/port.h): weak, so that a port
 * that has the service defines its own, and one that has not writes nothing.
 */
#include "ucov/port/compiler.h"
#include "ucov/port/frame.h"
#include "ucov/port/port.h"
#include "ucov/port/sink.h"
#include "ucov/version.h"

#define STR(x) #x
#define XSTR(x) STR(x)

#define UCOV_WEAK __attribute__((weak))

UCOV_WEAK UCOV_NOTRACE void ucov_port_log(const char *msg) {
  (void)msg;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_gcov_dump(int at_exit) {
  (void)at_exit;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_modules_write(struct ucov_sink *sink) {
  (void)sink;
  return -UCOV_EOPNOTSUPP;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_llvm_sections(unsigned i, struct ucov_llvm_sections *s) {
  (void)i;
  (void)s;
  return -1;
}

UCOV_WEAK UCOV_NOTRACE struct ucov_device *ucov_port_device_next(struct ucov_device *prev,
                                                                 uint32_t *id) {
  (void)prev;
  (void)id;
  return 0;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_info(struct ucov_sink *sink) {
  static const char info[] = "version=" UCOV_VERSION "\nprotocol=" XSTR(UCOV_PROTO_VERSION) "\n";
  return sink->write(sink, info, sizeof(info) - 1);
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_command(uint32_t flags, const char *cmd, size_t len,
                                             struct ucov_sink *out) {
  (void)flags;
  (void)cmd;
  (void)len;
  (void)out;
  return -UCOV_EOPNOTSUPP;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_transport_read(int wait) {
  (void)wait;
  return -1;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_transport_write(const void *buf, size_t n) {
  (void)buf;
  (void)n;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_same_module(const void *a, const void *b) {
  (void)a;
  (void)b;
  return 1;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_exit_drain(void) {}

UCOV_WEAK UCOV_NOTRACE void ucov_port_object_added(void) {}

UCOV_WEAK UCOV_NOTRACE void ucov_port_unit_source(int kind, void *a, void *b) {
  (void)kind;
  (void)a;
  (void)b;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_unit_baseline(struct ucov_baseline *b) {
  (void)b;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_baseline_moved(const struct ucov_baseline *b) {
  (void)b;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_units_rearmed(void) {}

UCOV_WEAK UCOV_NOTRACE void ucov_port_pgo_baseline_moved(const struct ucov_llvm_sections *s) {
  (void)s;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_trace_live(int live) {
  (void)live;
  return 0;
}

UCOV_WEAK UCOV_NOTRACE int ucov_port_device_claim(struct ucov_device *dev) {
  (void)dev;
  return 0;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_device_unclaim(struct ucov_device *dev) {
  (void)dev;
}

UCOV_WEAK UCOV_NOTRACE unsigned long ucov_port_remote_lock(void) {
  return 0;
}

UCOV_WEAK UCOV_NOTRACE void ucov_port_remote_unlock(unsigned long flags) {
  (void)flags;
}
