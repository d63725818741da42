/* SPDX-License-Identifier: MIT */
/* REMOTE coverage: the handle registry, sections and their areas (see remote.h). */
#include "ucov/port/remote.h"

#include "ucov/port/device.h"
#include "record.h"
#include "ucov/port/port.h"

int ucov_remote_start(uint64_t handle);
void ucov_remote_stop(void);
uint64_t ucov_common_handle(void);
void ucov_set_common_handle(uint64_t handle);

/* The 0x7fffffff bytes Linux allows an area, in words. */

struct remote_entry {
  uint64_t handle;
  struct ucov_device *dev;
};

static struct remote_entry *entries; /* registered handles, unsorted */
static unsigned n_entries, cap_entries;
static uint64_t sequence_next = 1;

/* Areas of finished sections, kept for the next ones (a pool, as Linux's). */
struct free_area {
  struct free_area *next;
  uint64_t words;
};
static struct free_area *free_areas;

/* The common handle is the task's (struct ucov_task): thread-local where the
 * port has threads, switched with the task where it switches the state, and
 * found from the current task where the port names it (a kernel's). */
UCOV_NOTRACE uint64_t ucov_remote_common(void) {
  return ucov_task_self.common_handle;
}

UCOV_NOTRACE void ucov_remote_set_common(uint64_t handle) {
  ucov_task_self.common_handle = handle;
}

UCOV_EXPORT UCOV_NOTRACE uint64_t ucov_common_handle(void) {
  return ucov_task_self.common_handle;
}

/* Called first in a new thread, before a sanitizer set it up (the shim). */
UCOV_EXPORT UCOV_NOTRACE UCOV_NO_SANITIZER void ucov_set_common_handle(uint64_t handle) {
  ucov_task_self.common_handle = handle;
}

/* kcov.c's kcov_check_handle: bits 32-55 zero; the common handle is COMMON
 * with an instance; the others are of a subsystem that exists (USB). */
static UCOV_NOTRACE int handle_ok(uint64_t h, int common) {
  if (!KCOV_HANDLE_VALID(h))
    return 0;
  if (KCOV_HANDLE_SUBSYSTEM(h) == KCOV_SUBSYSTEM_COMMON)
    return common && KCOV_HANDLE_INSTANCE(h) != 0;
  return !common && KCOV_HANDLE_SUBSYSTEM(h) == KCOV_SUBSYSTEM_USB;
}

static UCOV_NOTRACE struct ucov_device *lookup(uint64_t handle) {
  for (unsigned i = 0; i < n_entries; i++)
    if (entries[i].handle == handle)
      return entries[i].dev;
  return 0;
}

static UCOV_NOTRACE int add_entry(uint64_t handle, struct ucov_device *dev) {
  if (lookup(handle))
    return -UCOV_EEXIST;
  if (n_entries == cap_entries) {
    unsigned cap = cap_entries ? 2 * cap_entries : 64;
    struct remote_entry *e = ucov_port_alloc(cap * sizeof(*e));
    if (!e)
      return -UCOV_ENOMEM;
    for (unsigned i = 0; i < n_entries; i++)
      e[i] = entries[i];
    ucov_port_free(entries);
    entries = e;
    cap_entries = cap;
  }
  entries[n_entries].handle = handle;
  entries[n_entries].dev = dev;
  n_entries++;
  return 0;
}

UCOV_NOTRACE void ucov_remote_unregister(struct ucov_device *dev) {
  unsigned k = 0;
  for (unsigned i = 0; i < n_entries; i++)
    if (entries[i].dev != dev)
      entries[k++] = entries[i];
  n_entries = k;
  dev->remote = 0;
  dev->sequence = sequence_next++;
}

UCOV_NOTRACE int ucov_remote_register(struct ucov_device *dev, const struct kcov_remote_arg *arg) {
  if (!arg || arg->num_handles > KCOV_REMOTE_MAX_HANDLES)
    return -UCOV_EINVAL;
  if (arg->trace_mode == KCOV_TRACE_PC)
    dev->remote_mode = UCOV_TASK_PC;
  else if (arg->trace_mode == KCOV_TRACE_CMP)
    dev->remote_mode = UCOV_TASK_CMP;
  else
    return -UCOV_EINVAL;
  dev->last_mode = dev->remote_mode;
  /* Linux refuses only area_size > LONG_MAX / 8, which a u32 never is: any
   * size is taken (a section of fewer than 2 words records nothing). */
  for (uint32_t i = 0; i < arg->num_handles; i++)
    if (!handle_ok(arg->handles[i], 0))
      return -UCOV_EINVAL;
  if (arg->common_handle && !handle_ok(arg->common_handle, 1))
    return -UCOV_EINVAL;
  int err = 0;
  for (uint32_t i = 0; i < arg->num_handles && !err; i++)
    err = add_entry(arg->handles[i], dev);
  if (!err && arg->common_handle)
    err = add_entry(arg->common_handle, dev);
  if (err) {
    ucov_remote_unregister(dev);
    return err;
  }
  dev->remote = 1;
  dev->remote_size = arg->area_size;
  dev->sequence = sequence_next++;
  return 0;
}

static UCOV_NOTRACE uint64_t *area_get(uint64_t words) {
  for (struct free_area **p = &free_areas; *p; p = &(*p)->next) {
    if ((*p)->words == words) {
      struct free_area *a = *p;
      *p = a->next;
      uint64_t *area = (uint64_t *)a;
      area[0] = 0;
      return area;
    }
  }
  return ucov_port_alloc(words * 8);
}

static UCOV_NOTRACE void area_put(uint64_t *area, uint64_t words) {
  struct free_area *a = (struct free_area *)area;
  a->words = words;
  a->next = free_areas;
  free_areas = a;
}

/*
 * Start collecting coverage for `handle` on the calling thread. Returns 0
 * (also when no device registered the handle: then nothing is collected), or
 * -1 if the thread already traces or is inside a section (no nesting).
 */
UCOV_EXPORT UCOV_NOTRACE int ucov_remote_start(uint64_t handle) {
  struct ucov_task *t = &ucov_task_self;
  if (t->mode || t->remote_handle || t->dev)
    return -1;
  ucov_port_lock();
  struct ucov_device *dev = handle ? lookup(handle) : 0;
  uint64_t *area = dev && dev->remote_size >= 2 ? area_get(dev->remote_size) : 0;
  if (area) {
    t->remote_handle = handle;
    t->remote_seq = dev->sequence;
    ucov_task_start(t, 0, area, dev->remote_size, dev->remote_mode, 0, 0);
  }
  ucov_port_unlock();
  return 0;
}

/* Append the section's records to dev's buffer; publish the count last. */
static UCOV_NOTRACE void append_section(struct ucov_device *dev, const uint64_t *area,
                                        uint64_t words) {
  uint64_t rec = dev->remote_mode == UCOV_TASK_CMP ? KCOV_WORDS_PER_CMP : 1;
  uint64_t *dst = dev->area;
  uint64_t have = UCOV_LOAD(&area[0]);
  if (have > (words - 1) / rec)
    have = (words - 1) / rec;
  uint64_t count = UCOV_LOAD(&dst[0]);
  uint64_t room = count < (dev->size - 1) / rec ? (dev->size - 1) / rec - count : 0;
  uint64_t n = have < room ? have : room;
  for (uint64_t i = 0; i < n * rec; i++)
    UCOV_STORE(&dst[1 + count * rec + i], area[1 + i]);
  /* Readers that load the count with acquire see whole records. */
  __atomic_store_n(&dst[0], count + n, __ATOMIC_RELEASE);
}

UCOV_EXPORT UCOV_NOTRACE void ucov_remote_stop(void) {
  struct ucov_task *t = &ucov_task_self;
  uint64_t handle = t->remote_handle;
  if (!handle)
    return;
  uint64_t *area = t->area, words = t->size, seq = t->remote_seq;
  ucov_task_stop(t);
  t->remote_handle = 0;
  ucov_port_lock();
  struct ucov_device *dev = lookup(handle);
  /* Disabled (or re-enabled) since the start: the section is discarded. */
  if (dev && dev->remote && dev->sequence == seq)
    append_section(dev, area, words);
  area_put(area, words);
  ucov_port_unlock();
}
