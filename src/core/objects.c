/* SPDX-License-Identifier: MIT */
/* The object registry and its operations (see objects.h). */
#include "objects.h"

#include "gcov.h"
#include "ucov/port.h"

#define MODULES_NAME "modules"

UCOV_NOTRACE int ucov_gcov_object_name(const struct ucov_gcov_unit *u, char *out, size_t len) {
  const char *prefix = u->info->filename[0] == '/' ? "gcov" : "gcov/";
  size_t n = 0;
  for (const char *p = prefix; *p; p++)
    out[n++] = *p;
  for (const char *p = u->info->filename; *p; p++) {
    if (n + 1 >= len)
      return -1;
    out[n++] = *p;
  }
  out[n] = 0;
  return 0;
}

static UCOV_NOTRACE int str_eq(const char *a, const char *b) {
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

/* The unit named `name`, or NULL. Lock held. */
static UCOV_NOTRACE struct ucov_gcov_unit *find_unit(const char *name) {
  char buf[UCOV_OBJECT_NAME_MAX];
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next)
    if (!ucov_gcov_object_name(u, buf, sizeof(buf)) && str_eq(buf, name))
      return u;
  return 0;
}

/* A live read: one run, sum_max of what is being read program-wide. */
static UCOV_NOTRACE int read_unit(struct ucov_gcov_unit *u, struct ucov_sink *sink, int reset) {
  struct ucov_gcov_summary sum = {1, ucov_gcov_run_max()};
  return ucov_gcov_write(sink, u, &sum, 0, reset ? UCOV_GCOV_RESET : 0);
}

UCOV_NOTRACE int ucov_objects_list(int (*fn)(const char *name, uint64_t size, void *arg),
                                   void *arg) {
  char name[UCOV_OBJECT_NAME_MAX];
  int ret = 0;
  struct ucov_count_sink count;
  ucov_port_lock();
  ucov_count_sink_init(&count);
  if (ucov_port_modules_write(&count.sink) == 0)
    ret = fn(MODULES_NAME, count.bytes, arg);
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u && !ret; u = u->next) {
    if (ucov_gcov_object_name(u, name, sizeof(name)))
      continue;
    ucov_count_sink_init(&count);
    if (read_unit(u, &count.sink, 0) == 0)
      ret = fn(name, count.bytes, arg);
  }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_object_read(const char *name, struct ucov_sink *sink, int reset) {
  int ret;
  ucov_port_lock();
  if (str_eq(name, MODULES_NAME)) {
    ret = reset ? -UCOV_EOPNOTSUPP : ucov_port_modules_write(sink);
  } else {
    struct ucov_gcov_unit *u = find_unit(name);
    ret = u ? read_unit(u, sink, reset) : -UCOV_ENOENT;
  }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_object_size(const char *name, uint64_t *size) {
  struct ucov_count_sink count;
  ucov_count_sink_init(&count);
  int ret = ucov_object_read(name, &count.sink, 0);
  *size = count.bytes;
  return ret;
}

UCOV_NOTRACE int ucov_object_reset(const char *name) {
  int ret;
  ucov_port_lock();
  if (str_eq(name, MODULES_NAME)) {
    ret = -UCOV_EOPNOTSUPP;
  } else {
    struct ucov_gcov_unit *u = find_unit(name);
    ret = u ? ucov_gcov_reset(u) : -UCOV_ENOENT;
  }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_objects_reset_all(void) {
  int ret = 0;
  ucov_port_lock();
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next) {
    int err = ucov_gcov_reset(u);
    if (err && !ret)
      ret = err;
  }
  ucov_port_unlock();
  return ret;
}
