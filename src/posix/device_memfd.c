/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: trace devices as memfds, KCOV ioctls emulated on them, and the
 * port services the core needs (lock, areas, thread exit, fork).
 *
 * A device is found from any descriptor of it by the memfd's inode, so dup()ed
 * or inherited descriptors reach the same device. The runtime keeps its own
 * shared mapping of the area; the client maps the same pages with mmap(2).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ucov/port/device.h"
#include "ucov/port/task.h"
#include "posix.h"
#include "ucov/kcov.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

struct posix_device {
  struct ucov_device core; /* first: the core hands this pointer back */
  dev_t st_dev;
  ino_t st_ino;
  int fd;         /* the descriptor of the ioctl in progress (valid under the lock) */
  uint32_t id;    /* names its trace object, kcov/<id>.kcov */
  uint64_t claim; /* the owner word this process's enable wrote (0: none) */
  struct posix_device *next;
};

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct posix_device *devices; /* newest first */
static uint32_t next_id;

/* Oldest first: the one opened after prev is the one just before it in the list. */
UCOV_NOTRACE struct ucov_device *ucov_port_device_next(struct ucov_device *prev, uint32_t *id) {
  struct posix_device *pd = NULL;
  for (struct posix_device *p = devices; p && p != (struct posix_device *)prev; p = p->next)
    pd = p; /* the last one before prev (or the oldest of all) */
  if (pd)
    *id = pd->id;
  return pd ? &pd->core : NULL;
}

UCOV_NOTRACE void ucov_port_lock(void) {
  pthread_mutex_lock(&devices_lock);
}

UCOV_NOTRACE void ucov_port_unlock(void) {
  pthread_mutex_unlock(&devices_lock);
}

/*
 * A page after the area, in the same memfd, says who enabled the device and
 * how. It is shared wherever the device is (fork, exec, SCM_RIGHTS), as one
 * Linux file is with its kcov->t and kcov->mode, so that:
 *  - an enable in one process fails with EINVAL while a live task of another
 *    has the device enabled (claim below), and succeeds once that task
 *    disabled it or ended (its process exited or was killed: a task that is
 *    gone or a zombie owns nothing, as kcov_task_exit runs in do_exit);
 *  - a program exec'd by the enabling thread (the kcovtrace pattern: fork,
 *    ENABLE in the child, exec) goes on tracing into it, as a Linux task
 *    keeps its kcov across exec.
 * Clients map the area alone.
 */
#define META_BYTES 4096
#define META_MAGIC 0x4154454d564f4355ull /* "UCOVMETA" */
struct device_meta {
  uint64_t magic;
  uint64_t words;    /* the area's size */
  uint64_t owner;    /* the task that has it enabled, as task_word() (0: none) */
  uint64_t cmd, arg; /* the enabling ioctl */
};

/* Where the page is: after the area, page-aligned, so that a client mapping
 * whole pages of a small area sees zeros past it, as on Linux. */
static UCOV_NOTRACE uint64_t meta_offset(uint64_t words) {
  return (words * 8 + META_BYTES - 1) & ~(uint64_t)(META_BYTES - 1);
}

/* The meta page of a memfd of size bytes: 0 if it has none as we write them. */
static UCOV_NOTRACE int read_meta(int fd, uint64_t size, struct device_meta *m) {
  return size >= META_BYTES + 16 &&
         pread(fd, m, sizeof(*m), (off_t)(size - META_BYTES)) == (ssize_t)sizeof(*m) &&
         m->magic == META_MAGIC && m->words >= 2 && meta_offset(m->words) + META_BYTES == size;
}

UCOV_NOTRACE uint64_t ucov_posix_device_words(int fd, uint64_t size) {
  struct device_meta m = {0};
  return read_meta(fd, size, &m) ? m.words : 0;
}

static UCOV_NOTRACE struct device_meta *meta_of(struct ucov_device *dev) {
  return dev->area ? (struct device_meta *)(void *)((char *)dev->area + meta_offset(dev->size))
                   : NULL;
}

/* A descriptor of the device that may write (the ioctl's may have been
 * opened read-only: KCOV takes INIT_TRACE on one, and so must we). */
static UCOV_NOTRACE int writable_fd(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY)
    return fd;
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * Tasks across processes: a task is named by an owner word, its start time
 * (clock ticks after boot, low 32 bits) above its thread id, so that a
 * thread id used again by a later task does not pass for the owner.
 */
#define OWNER_TID(w) ((pid_t)(uint32_t)(w))

/* The state letter and start time of task tid from /proc/<tid>/stat (fields
 * 3 and 22, after the name in parentheses, which may hold anything). 0, or
 * -errno (-ENOENT: no such task, or no /proc). */
static UCOV_NOTRACE int task_stat(pid_t tid, char *state, uint64_t *start) {
  char path[64], buf[1024];
  snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  int err = errno;
  close(fd);
  if (n <= 0)
    return n < 0 ? -err : -ENOENT;
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ' || !p[2])
    return -EINVAL;
  *state = p[2];
  p += 3; /* at the space before field 4 */
  for (int field = 4; field <= 22; field++) {
    while (*p == ' ')
      p++;
    if (field == 22) {
      char *end;
      *start = strtoull(p, &end, 10);
      return end == p ? -EINVAL : 0;
    }
    while (*p && *p != ' ')
      p++;
  }
  return -EINVAL;
}

/* The calling task's owner word (its start time 0 where /proc cannot say). */
static UCOV_NOTRACE uint64_t task_word(void) {
  pid_t tid = gettid();
  char state;
  uint64_t start = 0;
  if (task_stat(tid, &state, &start) != 0)
    start = 0;
  return (start & 0xffffffffull) << 32 | (uint32_t)tid;
}

/* Does the task of owner word w still run? A task that is gone, a zombie, or
 * another task under its number does not; when /proc cannot say, whether
 * the number is in use decides; when unsure, it runs (a device is never
 * taken from a live owner). */
static UCOV_NOTRACE int owner_alive(uint64_t w) {
  char state;
  uint64_t start;
  int err = task_stat(OWNER_TID(w), &state, &start);
  if (!err)
    return state != 'Z' && state != 'X' && (uint32_t)start == (uint32_t)(w >> 32);
  if (err == -ENOENT && access("/proc/self/stat", F_OK) == 0)
    return 0;
  return kill(OWNER_TID(w), 0) == 0 || errno != ESRCH;
}

/* Enables: the calling task becomes the owner where the device is shared,
 * unless a live task (of another process: one of this process that has the
 * device enabled left the core's state ENABLED, and the core said EINVAL
 * before asking) owns it. Compare-and-swap, so that of two processes
 * enabling at once one wins and the other sees a live owner. */
UCOV_NOTRACE int ucov_port_device_claim(struct ucov_device *dev) {
  struct posix_device *pd = (struct posix_device *)dev;
  struct device_meta *m = meta_of(dev);
  if (!m)
    return 0;
  uint64_t mine = task_word();
  for (int tries = 0; tries < 8; tries++) {
    uint64_t cur = __atomic_load_n(&m->owner, __ATOMIC_ACQUIRE);
    if (cur != mine && cur && owner_alive(cur))
      return -UCOV_EINVAL;
    if (cur == mine ||
        __atomic_compare_exchange_n(&m->owner, &cur, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      pd->claim = mine;
      return 0;
    }
  }
  return -UCOV_EINVAL; /* others keep taking it: someone has it */
}

UCOV_NOTRACE void ucov_port_device_unclaim(struct ucov_device *dev) {
  struct posix_device *pd = (struct posix_device *)dev;
  struct device_meta *m = meta_of(dev);
  uint64_t mine = pd->claim;
  pd->claim = 0;
  if (m && mine)
    __atomic_compare_exchange_n(&m->owner, &mine, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

UCOV_NOTRACE uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes) {
  struct posix_device *pd = (struct posix_device *)dev;
  int wfd = writable_fd(pd->fd);
  if (wfd < 0)
    return NULL;
  uint64_t *area = NULL;
  /* Sized once and sealed: no one it is passed to (a REMOTE target) or who
   * shares it can shrink it under a mapping (SIGBUS) or grow it. */
  uint64_t total = meta_offset(bytes / 8) + META_BYTES;
  if (ftruncate(wfd, (off_t)total) == 0 &&
      fcntl(wfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) {
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, wfd, 0);
    area = p == MAP_FAILED ? NULL : p;
    if (area) {
      struct device_meta *m = (struct device_meta *)(void *)((char *)area + meta_offset(bytes / 8));
      m->words = bytes / 8;
      m->magic = META_MAGIC;
    }
  }
  if (wfd != pd->fd)
    close(wfd);
  return area;
}

UCOV_NOTRACE void ucov_port_device_release(struct ucov_device *dev) {
  struct posix_device *pd = (struct posix_device *)dev;
  for (struct posix_device **pp = &devices; *pp; pp = &(*pp)->next) {
    if (*pp == pd) {
      *pp = pd->next;
      break;
    }
  }
  if (dev->area)
    munmap(dev->area, meta_offset(dev->size) + META_BYTES);
  free(pd);
}

/* --- thread exit and fork --- */

static pthread_once_t task_once = PTHREAD_ONCE_INIT;
static pthread_key_t task_key;
static int task_key_err;

static UCOV_NOTRACE void task_key_destructor(void *task) {
  ucov_task_exit(task);
}

static UCOV_NOTRACE void fork_prepare(void) {
  ucov_control_fork_prepare();
  ucov_port_lock();
}

static UCOV_NOTRACE void fork_parent(void) {
  ucov_port_unlock();
  ucov_control_fork_parent();
}

static UCOV_NOTRACE void fork_child(void) {
  ucov_task_fork_child();
  /* Devices the parent's tasks enabled are the parent's (claimed there). */
  for (struct posix_device *pd = devices, *next; pd; pd = next) {
    next = pd->next;
    pd->claim = 0;
    ucov_device_fork_child(&pd->core);
  }
  ucov_control_fork_child();
  ucov_port_unlock();
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static UCOV_NOTRACE void atfork_register(void) {
  pthread_atfork(fork_prepare, fork_parent, fork_child);
}

UCOV_NOTRACE void ucov_posix_atfork_once(void) {
  pthread_once(&atfork_once, atfork_register);
}

static UCOV_NOTRACE void task_once_init(void) {
  task_key_err = pthread_key_create(&task_key, task_key_destructor);
}

UCOV_NOTRACE int ucov_port_task_bind(struct ucov_task *task) {
  ucov_posix_atfork_once();
  pthread_once(&task_once, task_once_init);
  if (task_key_err)
    return -task_key_err;
  int err = pthread_setspecific(task_key, task);
  return err ? -err : 0;
}

/* --- the API --- */

/* Map the area of fd (size bytes, the meta page included) that another
 * process initialised, or this one before an exec: the device is READY here.
 * 0, or -1 if the file is not one of ours as we write them or cannot be
 * mapped (the descriptor may be read-only: the runtime writes through one of
 * its own). Lock held. */
static UCOV_NOTRACE int device_map_area(struct posix_device *pd, int fd, uint64_t size) {
  struct device_meta m = {0};
  if (!read_meta(fd, size, &m))
    return -1;
  int wfd = writable_fd(fd);
  if (wfd < 0)
    return -1;
  void *a = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, wfd, 0);
  if (wfd != fd)
    close(wfd);
  if (a == MAP_FAILED)
    return -1;
  pd->core.area = a;
  pd->core.size = m.words;
  pd->core.state = UCOV_DEVICE_READY;
  return 0;
}

/* Before an ioctl or mmap: a device still NEW here that a process sharing it
 * has initialised is READY here too, as Linux's INIT_TRACE is the file's
 * (another INIT_TRACE is then EBUSY, mmap maps the same area). Lock held. */
static UCOV_NOTRACE void device_sync(struct posix_device *pd) {
  struct stat st;
  if (pd->core.state == UCOV_DEVICE_NEW && fstat(pd->fd, &st) == 0 && st.st_size > 0)
    device_map_area(pd, pd->fd, (uint64_t)st.st_size);
}

/* The device behind fd, or NULL with *err set (EBADF, ENOTTY). Lock held. */
static UCOV_NOTRACE struct posix_device *device_lookup(int fd, int *err) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *err = errno;
    return NULL;
  }
  for (struct posix_device *pd = devices; pd; pd = pd->next) {
    if (pd->st_dev == st.st_dev && pd->st_ino == st.st_ino) {
      pd->fd = fd;
      return pd;
    }
  }
  *err = ENOTTY;
  return NULL;
}

/*
 * After exec: the devices this process inherited (descriptors without
 * close-on-exec, as open(2) of the KCOV path gives) are its devices again,
 * and the one the exec'ing thread had enabled goes on tracing from here, the
 * program's first constructor (priority 101), as Linux keeps a task's kcov
 * across exec. Devices never initialised come back new.
 */
__attribute__((constructor(101))) static UCOV_NOTRACE void devices_adopt(void) {
  if (!ucov_posix_runtime_active())
    return;
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return;
  int self = dirfd(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end, link[64], path[64];
    long fd = strtol(e->d_name, &end, 10);
    if (*end || fd == self)
      continue;
    snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
    ssize_t n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
      continue;
    link[n] = 0;
    struct stat st;
    if (strncmp(link, "/memfd:ucov-kcov", 16) != 0 || fstat((int)fd, &st) != 0)
      continue;
    struct device_meta m = {0};
    if (st.st_size && !read_meta((int)fd, (uint64_t)st.st_size, &m))
      continue; /* not one of ours as we write them */
    struct posix_device *pd = calloc(1, sizeof(*pd));
    if (!pd)
      break;
    pd->st_dev = st.st_dev;
    pd->st_ino = st.st_ino;
    pd->fd = (int)fd;
    ucov_port_lock();
    int dup_of_known = 0;
    for (struct posix_device *o = devices; o; o = o->next)
      dup_of_known |= o->st_dev == st.st_dev && o->st_ino == st.st_ino;
    if (dup_of_known) {
      ucov_port_unlock();
      free(pd);
      continue;
    }
    if (st.st_size && device_map_area(pd, (int)fd, (uint64_t)st.st_size) != 0) {
      ucov_port_unlock();
      free(pd);
      continue;
    }
    pd->id = ++next_id;
    pd->next = devices;
    devices = pd;
    /* Enabled by this very task before the exec: again (the claim finds it
     * ours). A REMOTE registration's handles were the old program's: the
     * device is free again. */
    if (st.st_size && m.owner && m.owner == task_word()) {
      pd->fd = (int)fd;
      if (m.cmd == KCOV_REMOTE_ENABLE ||
          ucov_device_ioctl(&pd->core, (unsigned long)m.cmd, (unsigned long)m.arg) != 0) {
        uint64_t mine = m.owner;
        __atomic_compare_exchange_n(&meta_of(&pd->core)->owner, &mine, 0, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
      }
    }
    pd->fd = -1;
    ucov_port_unlock();
  }
  closedir(d);
}

UCOV_EXPORT UCOV_NOTRACE int ucov_open(void) {
  struct posix_device *pd = calloc(1, sizeof(*pd));
  if (!pd)
    return -1;
  int fd = memfd_create("ucov-kcov", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int err = errno;
    if (fd >= 0)
      close(fd);
    free(pd);
    errno = err;
    return -1;
  }
  pd->st_dev = st.st_dev;
  pd->st_ino = st.st_ino;
  pd->fd = -1;
  ucov_port_lock();
  pd->id = ++next_id;
  pd->next = devices;
  devices = pd;
  ucov_port_unlock();
  return fd;
}

UCOV_EXPORT UCOV_NOTRACE int ucov_ioctl(int fd, unsigned long cmd, unsigned long arg) {
  /* Linux's request is an unsigned int: a number held in an int and
   * sign-extended on the way (syzkaller's executor) is the same request. */
  cmd = (unsigned int)cmd;
  int err = 0;
  ucov_port_lock();
  struct posix_device *pd = device_lookup(fd, &err);
  if (pd) {
    device_sync(pd);
    err = -ucov_device_ioctl(&pd->core, cmd, arg);
    /* How its owner (claimed by the enable) enabled it, for a program this
     * task may exec. */
    struct device_meta *m = err ? NULL : meta_of(&pd->core);
    if (m && (cmd == KCOV_ENABLE || cmd == KCOV_UNIQUE_ENABLE || cmd == KCOV_REMOTE_ENABLE)) {
      m->cmd = cmd;
      m->arg = arg;
    }
  }
  ucov_port_unlock();
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

UCOV_EXPORT UCOV_NOTRACE void *ucov_mmap(void *addr, size_t length, int prot, int flags, int fd,
                                         off_t offset) {
  int err = 0;
  ucov_port_lock();
  struct posix_device *pd = device_lookup(fd, &err);
  if (pd)
    device_sync(pd);
  /* As kcov_mmap: the vma (the length rounded up to pages) must be the area. */
  long page = sysconf(_SC_PAGESIZE);
  size_t vma = page > 0 ? (length + (size_t)page - 1) & ~((size_t)page - 1) : length;
  int fl = fcntl(fd, F_GETFL);
  if (pd && length && (prot & PROT_WRITE) && (flags & MAP_SHARED) && fl >= 0 &&
      (fl & O_ACCMODE) == O_RDONLY) {
    err = EACCES; /* as mmap(2) of any file opened read-only */
  } else if (pd) {
    err = length ? -ucov_device_mmap_check(&pd->core, vma, (uint64_t)offset) : EINVAL;
  } else if (err == ENOTTY) {
    err = ENODEV;
  }
  ucov_port_unlock();
  if (err) {
    errno = err;
    return MAP_FAILED;
  }
  /* KCOV's area is one set of pages whatever the flags say: always share. */
  flags = (flags & ~MAP_PRIVATE) | MAP_SHARED;
  return mmap(addr, length, prot, flags, fd, offset);
}

/*
 * Does another descriptor of this process still refer to the device? Each is
 * looked at through its /proc/self/fd link (stat of the path, not fstat of
 * the number: other threads open and close descriptors meanwhile, and a
 * number reused under us must not be touched as ours).
 */
static UCOV_NOTRACE int device_still_open(const struct posix_device *pd) {
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return 0;
  int found = 0;
  struct dirent *e;
  while (!found && (e = readdir(d))) {
    char path[16 + sizeof(e->d_name)];
    struct stat st;
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
    found = stat(path, &st) == 0 && st.st_dev == pd->st_dev && st.st_ino == pd->st_ino;
  }
  closedir(d);
  return found;
}

/*
 * As a Linux file: the device lives until its last descriptor is closed
 * (dup, dup2, dup3, F_DUPFD copies keep it); a client's mapping outlives
 * them all, as the memfd's pages do.
 */
UCOV_EXPORT UCOV_NOTRACE int ucov_close(int fd) {
  int err = 0;
  ucov_port_lock();
  struct posix_device *pd = device_lookup(fd, &err);
  int ret = close(fd);
  int saved = errno;
  if (pd && !device_still_open(pd))
    ucov_device_close(&pd->core);
  ucov_port_unlock();
  errno = saved;
  return ret;
}
