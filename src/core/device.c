/* SPDX-License-Identifier: MIT */
/*
 * KCOV device state machine: INIT_TRACE, ENABLE, DISABLE with Linux's checks,
 * in Linux's order, with Linux's errno values.
 */
#include "ucov/port/device.h"

#include "ucov/port/remote.h"
#include "record.h"
#include "ucov/kcov.h"
#include "ucov/port/port.h"

/* Linux caps the area at INT_MAX bytes' worth of unsigned longs. */
#define UCOV_AREA_MAX_WORDS (0x7fffffffull / 8)

static UCOV_NOTRACE int device_init_trace(struct ucov_device *dev, unsigned long size) {
  /* Size first, then state, as Linux checks before taking its lock. */
  if (size < 2 || size > UCOV_AREA_MAX_WORDS)
    return -UCOV_EINVAL;
  if (dev->state != UCOV_DEVICE_NEW)
    return -UCOV_EBUSY;
  uint64_t *area = ucov_port_area_alloc(dev, (uint64_t)size * 8);
  if (!area)
    return -UCOV_ENOMEM;
  dev->area = area;
  dev->size = size;
  dev->state = UCOV_DEVICE_READY;
  return 0;
}

static UCOV_NOTRACE int task_mode_of(unsigned long kcov_mode, uint32_t *out) {
  switch (kcov_mode) {
  case KCOV_TRACE_PC:
    *out = UCOV_TASK_PC;
    return 0;
  case KCOV_TRACE_CMP:
    *out = UCOV_TASK_CMP;
    return 0;
  case KCOV_TRACE_PC_EXT:
    *out = UCOV_TASK_PC | UCOV_TASK_EXT;
    return 0;
  default:
    return -UCOV_EINVAL;
  }
}

/*
 * Enabled devices in the target (under the port lock). The port hears when
 * the first is enabled and the last disabled: a dormant build's hook sites
 * are live only in between.
 */
static unsigned long enabled_devices;

UCOV_NOTRACE int ucov_trace_users_get(void) {
  if (enabled_devices == 0) {
    int err = ucov_port_trace_live(1);
    if (err)
      return err;
  }
  enabled_devices++;
  return 0;
}

UCOV_NOTRACE void ucov_trace_users_put(void) {
  if (enabled_devices && --enabled_devices == 0)
    ucov_port_trace_live(0);
}

/* Bind dev to the calling task in `mode`; UNIQUE with `words` bitmap words. */
static UCOV_NOTRACE int device_bind(struct ucov_device *dev, uint32_t mode, uint64_t words) {
  struct ucov_task *t = &ucov_task_self;
  int err = ucov_trace_users_get();
  if (err)
    return err;
  err = ucov_port_task_bind(t);
  if (err) {
    ucov_trace_users_put();
    return err;
  }
  dev->state = UCOV_DEVICE_ENABLED;
  dev->task_mode = mode;
  dev->last_mode = mode;
  dev->unique_words = words;
  dev->task = t;
  if (words)
    ucov_task_start(t, dev, dev->area + words, dev->size - words, mode, dev->area, words);
  else
    ucov_task_start(t, dev, dev->area, dev->size, mode, 0, 0);
  return 0;
}

/*
 * Linux's first checks of every enable: the device is initialised and not
 * enabled (by a task here, or, through the port's claim, by one of another
 * address space sharing it: EINVAL), then the calling task traces nothing
 * (EBUSY). 0 with the device claimed: the caller unclaims on a later error.
 */
static UCOV_NOTRACE int enable_checks(struct ucov_device *dev) {
  struct ucov_task *t = &ucov_task_self;
  if (dev->state != UCOV_DEVICE_READY)
    return -UCOV_EINVAL; /* not initialised, or already enabled */
  int err = ucov_port_device_claim(dev);
  if (err)
    return err;
  if (dev->task || t->dev) {
    ucov_port_device_unclaim(dev);
    return -UCOV_EBUSY; /* this task already traces into another device */
  }
  return 0;
}

static UCOV_NOTRACE int device_enable(struct ucov_device *dev, unsigned long kcov_mode) {
  int err = enable_checks(dev);
  if (err)
    return err;
  uint32_t mode;
  err = task_mode_of(kcov_mode, &mode);
  if (!err)
    err = device_bind(dev, mode, 0);
  if (err)
    ucov_port_device_unclaim(dev);
  return err;
}

/*
 * KCOV_UNIQUE_ENABLE(words): TRACE_PC where each PC is appended once. The
 * bitmap takes the first `words` words; the trace (count, PCs) follows, and
 * needs at least two words.
 */
static UCOV_NOTRACE int device_unique_enable(struct ucov_device *dev, unsigned long words) {
  int err = enable_checks(dev);
  if (err)
    return err;
  if (words == 0 || words >= dev->size - 1)
    err = -UCOV_EINVAL;
  else
    err = device_bind(dev, UCOV_TASK_PC | UCOV_TASK_UNIQUE, words);
  if (err)
    ucov_port_device_unclaim(dev);
  return err;
}

/*
 * KCOV_REMOTE_ENABLE(arg = struct kcov_remote_arg *): register handles; the
 * calling task is bound (busy) but traces nothing itself; its common handle
 * is set for the threads it creates.
 */
static UCOV_NOTRACE int device_remote_enable(struct ucov_device *dev, unsigned long arg) {
  struct ucov_task *t = &ucov_task_self;
  int err = enable_checks(dev);
  if (err)
    return err;
  const struct kcov_remote_arg *ra = (const struct kcov_remote_arg *)arg;
  err = ucov_remote_register(dev, ra);
  if (err) {
    ucov_port_device_unclaim(dev);
    return err;
  }
  err = ucov_trace_users_get();
  if (!err) {
    err = ucov_port_task_bind(t);
    if (err)
      ucov_trace_users_put();
  }
  if (err) {
    ucov_remote_unregister(dev);
    ucov_port_device_unclaim(dev);
    return err;
  }
  dev->state = UCOV_DEVICE_ENABLED;
  dev->task = t;
  t->dev = dev;
  ucov_remote_set_common(ra->common_handle);
  return 0;
}

/* KCOV_RESET_TRACE: clear the bitmap and the trace count (UNIQUE), or the count. */
static UCOV_NOTRACE int device_reset_trace(struct ucov_device *dev) {
  struct ucov_task *t = &ucov_task_self;
  if (t->dev != dev)
    return -UCOV_EINVAL;
  uint64_t words = dev->unique_words;
  for (uint64_t i = 0; i < words; i++)
    UCOV_STORE(&dev->area[i], 0);
  UCOV_STORE(&dev->area[words], 0);
  return 0;
}

/* Unbind dev from its task; release it if its owner already closed it. */
static UCOV_NOTRACE void device_detach(struct ucov_device *dev) {
  if (dev->remote) {
    ucov_remote_unregister(dev);
    /* The registering task's common handle goes with it: its own state,
     * not the caller's (a task's end detaches from another context). */
    if (dev->task)
      dev->task->common_handle = 0;
  }
  dev->task = 0;
  dev->task_mode = 0;
  dev->unique_words = 0;
  dev->state = UCOV_DEVICE_READY;
  ucov_trace_users_put();
  ucov_port_device_unclaim(dev);
  if (dev->closed)
    ucov_port_device_release(dev);
}

static UCOV_NOTRACE int device_disable(struct ucov_device *dev, unsigned long arg) {
  struct ucov_task *t = &ucov_task_self;
  if (arg != 0 || t->dev != dev)
    return -UCOV_EINVAL;
  ucov_task_stop(t);
  device_detach(dev);
  return 0;
}

UCOV_NOTRACE int ucov_device_ioctl(struct ucov_device *dev, unsigned long cmd, unsigned long arg) {
  if (cmd == KCOV_INIT_TRACE)
    return device_init_trace(dev, arg);
  if (cmd == KCOV_ENABLE)
    return device_enable(dev, arg);
  if (cmd == KCOV_DISABLE)
    return device_disable(dev, arg);
  if (cmd == KCOV_UNIQUE_ENABLE)
    return device_unique_enable(dev, arg);
  if (cmd == KCOV_RESET_TRACE)
    return device_reset_trace(dev);
  if (cmd == KCOV_REMOTE_ENABLE)
    return device_remote_enable(dev, arg);
  return -UCOV_ENOTTY;
}

UCOV_NOTRACE int ucov_device_mmap_check(struct ucov_device *dev, uint64_t length, uint64_t offset) {
  if (!dev->area || offset != 0 || length != dev->size * 8)
    return -UCOV_EINVAL;
  return 0;
}

UCOV_NOTRACE void ucov_device_close(struct ucov_device *dev) {
  dev->closed = 1;
  if (!dev->task)
    ucov_port_device_release(dev);
}

UCOV_NOTRACE void ucov_task_exit(struct ucov_task *t) {
  ucov_port_lock();
  struct ucov_device *dev = t->dev;
  if (dev) {
    ucov_task_stop(t);
    device_detach(dev);
  }
  ucov_port_unlock();
}

UCOV_NOTRACE void ucov_device_fork_child(struct ucov_device *dev) {
  if (dev->state != UCOV_DEVICE_ENABLED || dev->remote)
    return;
  /* Its task is a thread of the parent; the claim stays the parent's. */
  dev->task = 0;
  dev->task_mode = 0;
  dev->unique_words = 0;
  dev->state = UCOV_DEVICE_READY;
  ucov_trace_users_put();
  if (dev->closed)
    ucov_port_device_release(dev);
}

UCOV_NOTRACE void ucov_task_fork_child(void) {
  /*
   * The child's copy of the parent's task state would keep appending into
   * the shared area. KCOV does not inherit coverage across fork: stop it,
   * leaving the device (the parent's) untouched.
   */
  ucov_task_stop(&ucov_task_self);
  ucov_task_self.remote_handle = 0; /* a section does not continue in the child */
}
