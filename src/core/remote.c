/* SPDX-License-Identifier: MIT */
/*
 * REMOTE coverage: the handle registry, sections and their areas (see remote.h).
 *
 * Two locks, as kcov.c has them: the port lock serialises the registry's
 * writers (KCOV_REMOTE_ENABLE, disable, close: they may allocate), and the
 * REMOTE lock (ucov_port_remote_lock) guards what sections read and write
 * (the registry's entries, a device's sequence and buffer while a section is
 * appended to it). A port whose sections may start where the task cannot
 * sleep (a kernel's softirq, a spinlock held) makes that lock a spinlock and
 * brings its own areas (ucov_remote_find/begin/end/deliver); the others use
 * ucov_remote_start/stop below, whose areas come from a bounded pool.
 */
#include "ucov/port/remote.h"

#include "ucov/port/device.h"
#include "record.h"
#include "ucov/port/port.h"

int ucov_remote_start(uint64_t handle);
void ucov_remote_stop(void);
uint64_t ucov_common_handle(void);
void ucov_set_common_handle(uint64_t handle);

struct remote_entry {
  uint64_t handle;
  struct ucov_device *dev;
};

/* Registered handles (at most KCOV_REMOTE_MAX_HANDLES + 1 per device), a
 * hash table as kcov.c's kcov_remote_map: open addressing, linear probing,
 * at most half full (cap_entries a power of two; handle 0, which is never
 * registered, marks a free slot). A section's lookup is a probe or two, not
 * a walk of every handle under a lock that masks interrupts. Written under
 * both locks, read under either. */
static struct remote_entry *entries;
static unsigned n_entries, cap_entries;
static uint64_t sequence_next = 1; /* under the port lock */

static UCOV_NOTRACE unsigned slot_of(uint64_t handle, unsigned cap) {
  uint64_t h = handle * 0x9e3779b97f4a7c15ull; /* (the instance and the subsystem mixed) */
  return (unsigned)(h >> 32) & (cap - 1);
}

/* Put (handle, dev) into table t of cap slots (it has room). */
static UCOV_NOTRACE void table_put(struct remote_entry *t, unsigned cap, uint64_t handle,
                                   struct ucov_device *dev) {
  unsigned i = slot_of(handle, cap);
  while (t[i].handle)
    i = (i + 1) & (cap - 1);
  t[i].handle = handle;
  t[i].dev = dev;
}

/* Empty slot i, moving back the entries after it that probed past it. */
static UCOV_NOTRACE void table_remove(unsigned i) {
  unsigned mask = cap_entries - 1, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!entries[j].handle)
      break;
    unsigned home = slot_of(entries[j].handle, cap_entries);
    /* entries[j] stays if its home lies cyclically in (i, j] */
    if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
      continue;
    entries[i] = entries[j];
    i = j;
  }
  entries[i].handle = 0;
  entries[i].dev = 0;
  n_entries--;
}

/* The common handle is the task's (struct ucov_task): thread-local where the
 * port has threads, switched with the task where it switches the state, and
 * found from the current task where the port names it (a kernel's). The
 * port's calls (remote.h) are the one implementation; the hosted API's
 * (ucov.h) are them under their public names. */
UCOV_NOTRACE uint64_t ucov_remote_common(void) {
  return ucov_task_self.common_handle;
}

/* (No sanitizer: the shim calls it first in a new thread, before a
 * sanitizer set the thread up.) */
UCOV_NOTRACE UCOV_NO_SANITIZER void ucov_remote_set_common(uint64_t handle) {
  ucov_task_self.common_handle = handle;
}

UCOV_EXPORT UCOV_NOTRACE uint64_t ucov_common_handle(void) {
  return ucov_remote_common();
}

UCOV_EXPORT UCOV_NOTRACE UCOV_NO_SANITIZER void ucov_set_common_handle(uint64_t handle) {
  ucov_remote_set_common(handle);
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
  if (!cap_entries)
    return 0;
  for (unsigned i = slot_of(handle, cap_entries); entries[i].handle;
       i = (i + 1) & (cap_entries - 1))
    if (entries[i].handle == handle)
      return entries[i].dev;
  return 0;
}

/* Drop dev's entries and move its sequence on: sections running for it are
 * discarded at their end. Both locks held. */
static UCOV_NOTRACE void drop_entries(struct ucov_device *dev) {
  for (unsigned i = 0; i < cap_entries; i++)
    while (entries[i].handle && entries[i].dev == dev) /* (another may move into i) */
      table_remove(i);
  dev->remote = 0;
  dev->sequence = sequence_next++;
}

UCOV_NOTRACE void ucov_remote_unregister(struct ucov_device *dev) {
  unsigned long flags = ucov_port_remote_lock();
  drop_entries(dev);
  ucov_port_remote_unlock(flags);
}

/* Room for `more` entries, a larger table (*fresh, *fresh_cap: the entries
 * hashed into it) allocated before the REMOTE lock is taken (where a section
 * runs, nothing may allocate); sections read the old one until the swap.
 * Port lock held. */
static UCOV_NOTRACE int entries_reserve(unsigned more, struct remote_entry **fresh,
                                        unsigned *fresh_cap) {
  *fresh = 0;
  if (2 * (n_entries + more) <= cap_entries)
    return 0;
  unsigned cap = cap_entries ? cap_entries : 64;
  while (cap < 2 * (n_entries + more))
    cap *= 2;
  *fresh = ucov_port_alloc(cap * sizeof(**fresh));
  if (!*fresh)
    return -UCOV_ENOMEM;
  for (unsigned i = 0; i < cap; i++)
    (*fresh)[i] = (struct remote_entry){0, 0};
  for (unsigned i = 0; i < cap_entries; i++)
    if (entries[i].handle)
      table_put(*fresh, cap, entries[i].handle, entries[i].dev);
  *fresh_cap = cap;
  return 0;
}

UCOV_NOTRACE int ucov_remote_register(struct ucov_device *dev, const struct kcov_remote_arg *arg) {
  if (!arg || arg->num_handles > KCOV_REMOTE_MAX_HANDLES)
    return -UCOV_EINVAL;
  uint32_t mode;
  if (arg->trace_mode == KCOV_TRACE_PC)
    mode = UCOV_TASK_PC;
  else if (arg->trace_mode == KCOV_TRACE_CMP)
    mode = UCOV_TASK_CMP;
  else
    return -UCOV_EINVAL;
  /* Linux refuses only area_size > LONG_MAX / 8, which a u32 never is: any
   * size is taken (a port gives a section an area only where it can; one of
   * fewer than 2 words records nothing). */
  for (uint32_t i = 0; i < arg->num_handles; i++)
    if (!handle_ok(arg->handles[i], 0))
      return -UCOV_EINVAL;
  if (arg->common_handle && !handle_ok(arg->common_handle, 1))
    return -UCOV_EINVAL;
  struct remote_entry *fresh, *old = entries;
  unsigned fresh_cap = 0;
  int err = entries_reserve(arg->num_handles + 1, &fresh, &fresh_cap);
  if (err)
    return err;
  dev->remote_mode = mode;
  dev->last_mode = mode;
  dev->remote_size = arg->area_size;
  unsigned long flags = ucov_port_remote_lock();
  if (fresh) {
    entries = fresh;
    cap_entries = fresh_cap;
  }
  for (uint32_t i = 0; i <= arg->num_handles && !err; i++) {
    uint64_t h = i < arg->num_handles ? arg->handles[i] : arg->common_handle;
    if (!h)
      continue;
    if (lookup(h)) {
      err = -UCOV_EEXIST;
      break;
    }
    table_put(entries, cap_entries, h, dev);
    n_entries++;
  }
  if (err) {
    drop_entries(dev);
  } else {
    dev->remote = 1;
    dev->sequence = sequence_next++;
  }
  ucov_port_remote_unlock(flags);
  if (fresh)
    ucov_port_free(old);
  return err;
}

UCOV_NOTRACE int ucov_remote_find(uint64_t handle, struct ucov_remote_target *tg) {
  struct ucov_device *dev = handle ? lookup(handle) : 0;
  if (!dev)
    return -UCOV_ENOENT;
  tg->seq = dev->sequence;
  tg->words = dev->remote_size;
  tg->mode = dev->remote_mode;
  return 0;
}

UCOV_NOTRACE void ucov_remote_begin(struct ucov_task *t, uint64_t handle,
                                    const struct ucov_remote_target *tg, uint64_t *area,
                                    uint64_t words) {
  UCOV_STORE(&area[0], 0);
  t->remote_handle = handle;
  t->remote_seq = tg->seq;
  ucov_task_start(t, 0, area, words, tg->mode, 0, 0);
}

UCOV_NOTRACE uint64_t ucov_remote_end(struct ucov_task *t, uint64_t **area, uint64_t *words,
                                      uint64_t *seq) {
  uint64_t handle = t->remote_handle;
  if (!handle)
    return 0;
  *area = t->area;
  *words = t->size;
  *seq = t->remote_seq;
  ucov_task_stop(t);
  t->remote_handle = 0;
  return handle;
}

/* Append the section's records to dev's buffer, as kcov_move_area: whole
 * records while there is room; publish the count last. */
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

UCOV_NOTRACE void ucov_remote_deliver(uint64_t handle, uint64_t seq, const uint64_t *area,
                                      uint64_t words) {
  struct ucov_device *dev = lookup(handle);
  /* Disabled (or re-enabled) since the start: the section is discarded. */
  if (dev && dev->remote && dev->sequence == seq && words >= 2)
    append_section(dev, area, words);
}

/* --- the pool of finished sections' areas --- */

/* Each area of the pool holds its link and size in its first words (its
 * count is reset when a section takes it). */
struct remote_free_area {
  struct remote_free_area *next;
  uint64_t words;
};
static struct remote_free_area *free_areas;
static uint64_t free_bytes;

UCOV_NOTRACE uint64_t *ucov_remote_pool_take(uint64_t words) {
  for (struct remote_free_area **p = &free_areas; *p; p = &(*p)->next) {
    if ((*p)->words == words) {
      struct remote_free_area *a = *p;
      *p = a->next;
      free_bytes -= words * 8;
      return (uint64_t *)a;
    }
  }
  return 0;
}

UCOV_NOTRACE int ucov_remote_pool_keep(uint64_t *area, uint64_t words) {
  if (free_bytes + words * 8 > UCOV_REMOTE_POOL_BYTES)
    return 0;
  struct remote_free_area *a = (struct remote_free_area *)area;
  a->words = words;
  a->next = free_areas;
  free_areas = a;
  free_bytes += words * 8;
  return 1;
}

UCOV_NOTRACE unsigned ucov_remote_pool_count(uint64_t words) {
  unsigned n = 0;
  for (struct remote_free_area *a = free_areas; a; a = a->next)
    n += a->words == words;
  return n;
}

UCOV_NOTRACE uint64_t *ucov_remote_pool_evict(uint64_t words) {
  for (struct remote_free_area **p = &free_areas; *p; p = &(*p)->next) {
    if ((*p)->words != words) {
      struct remote_free_area *a = *p;
      *p = a->next;
      free_bytes -= a->words * 8;
      return (uint64_t *)a;
    }
  }
  return 0;
}

/* --- ucov_remote_start/stop: sections where the task may take the port lock --- */

/* An area from the pool, or new (under the port lock). A size beyond what
 * the port can address is no area: nothing is recorded. */
static UCOV_NOTRACE uint64_t *area_get(uint64_t words) {
  uint64_t *area = ucov_remote_pool_take(words);
  if (area)
    return area;
  return words <= (uint64_t)(size_t)-1 / 8 ? ucov_port_alloc((size_t)words * 8) : 0;
}

static UCOV_NOTRACE void area_put(uint64_t *area, uint64_t words) {
  if (!ucov_remote_pool_keep(area, words))
    ucov_port_free(area);
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
  struct ucov_remote_target tg;
  ucov_port_lock();
  unsigned long flags = ucov_port_remote_lock();
  int found = ucov_remote_find(handle, &tg) == 0 && tg.words >= 2;
  ucov_port_remote_unlock(flags);
  uint64_t *area = found ? area_get(tg.words) : 0;
  if (area)
    ucov_remote_begin(t, handle, &tg, area, tg.words);
  ucov_port_unlock();
  return 0;
}

UCOV_EXPORT UCOV_NOTRACE void ucov_remote_stop(void) {
  uint64_t *area, words, seq;
  uint64_t handle = ucov_remote_end(&ucov_task_self, &area, &words, &seq);
  if (!handle)
    return;
  ucov_port_lock();
  unsigned long flags = ucov_port_remote_lock();
  ucov_remote_deliver(handle, seq, area, words);
  ucov_port_remote_unlock(flags);
  area_put(area, words);
  ucov_port_unlock();
}
