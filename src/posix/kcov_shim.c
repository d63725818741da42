/* SPDX-License-Identifier: MIT */
/*
 * libucov-kcov.so: run an unmodified KCOV client on ucov with LD_PRELOAD.
 *
 * open("/sys/kernel/debug/kcov") returns a ucov device; ioctl() and mmap() on a
 * device reach ucov_ioctl() and ucov_mmap(); close() releases it; a thread
 * made with pthread_create() inherits its creator's REMOTE common handle, as a
 * Linux task inherits kcov_handle. Everything else goes to the next
 * definition (libc). The ucov runtime itself lives in
 * the instrumented program (linked by `ucov cc`) or in a libucov.so it loads;
 * the shim finds it by name at the first open. A process without a runtime (an
 * uninstrumented fuzzer that hands devices to its targets, say) gets the
 * libucov.so installed beside the shim; if there is none, open fails with
 * ENOENT, as on a kernel without KCOV.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ucov/port/compiler.h"
#include "ucov/kcov.h"

#define KCOV_PATH "/sys/kernel/debug/kcov"

/* The runtime's entry points, found at the first open. */
static int (*rt_open)(void);
static int (*rt_ioctl)(int, unsigned long, unsigned long);
static void *(*rt_mmap)(void *, size_t, int, int, int, off_t);
static int (*rt_close)(int);

/* libc's definitions. */
static int (*next_openat)(int, const char *, int, ...);
static int (*next_ioctl)(int, unsigned long, ...);
static void *(*next_mmap)(void *, size_t, int, int, int, off_t);
static int (*next_close)(int);
static int (*next_dup)(int);
static int (*next_dup2)(int, int);
static int (*next_dup3)(int, int, int);
static int (*next_fcntl)(int, int, ...);
static int (*next_fcntl64)(int, int, ...);
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static create_fn next_pthread_create;

/*
 * Set while this thread runs inside the runtime: the runtime's own mmap(),
 * ftruncate() and close() calls on a device must reach libc, not come back here.
 */
static _Thread_local __attribute__((tls_model("initial-exec"))) int in_runtime;
#define RT_CALL(expr)                                                                              \
  ({                                                                                               \
    in_runtime = 1;                                                                                \
    __typeof__(expr) rt_ret_ = (expr);                                                             \
    in_runtime = 0;                                                                                \
    rt_ret_;                                                                                       \
  })

/* Descriptors this shim handed out as devices (others are checked by command). */
#define SHIM_MAX_FD 65536
static uint64_t shim_fds[SHIM_MAX_FD / 64];

static UCOV_NOTRACE int shim_fd_is_device(int fd) {
  return !in_runtime && fd >= 0 && fd < SHIM_MAX_FD &&
         (__atomic_load_n(&shim_fds[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) & 1;
}

static UCOV_NOTRACE void shim_fd_mark(int fd, int on) {
  if (fd < 0 || fd >= SHIM_MAX_FD)
    return;
  uint64_t bit = 1ull << (fd % 64);
  if (on)
    __atomic_fetch_or(&shim_fds[fd / 64], bit, __ATOMIC_RELAXED);
  else
    __atomic_fetch_and(&shim_fds[fd / 64], ~bit, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static UCOV_NOTRACE void shim_init(void) {
  next_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
  next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  next_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
  next_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  next_dup = (int (*)(int))dlsym(RTLD_NEXT, "dup");
  next_dup2 = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
  next_dup3 = (int (*)(int, int, int))dlsym(RTLD_NEXT, "dup3");
  next_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
  next_fcntl64 = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl64");
  next_pthread_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
}

/* libucov.so.0 from the shim's own directory, or NULL. */
static UCOV_NOTRACE void *shim_load_runtime(void) {
  Dl_info info;
  if (!dladdr((void *)shim_load_runtime, &info) || !info.dli_fname)
    return NULL;
  const char *slash = strrchr(info.dli_fname, '/');
  size_t dirlen = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
  static const char name[] = "libucov.so.0";
  char path[4096];
  if (dirlen + sizeof(name) > sizeof(path))
    return NULL;
  memcpy(path, info.dli_fname, dirlen);
  memcpy(path + dirlen, name, sizeof(name));
  return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

static UCOV_NOTRACE int shim_find_runtime(void) {
  if (__atomic_load_n(&rt_open, __ATOMIC_ACQUIRE))
    return 1;
  void *where = RTLD_DEFAULT;
  if (!dlsym(where, "ucov_open")) {
    where = RT_CALL(shim_load_runtime());
    if (!where)
      return 0;
  }
  rt_ioctl = (int (*)(int, unsigned long, unsigned long))dlsym(where, "ucov_ioctl");
  rt_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(where, "ucov_mmap");
  rt_close = (int (*)(int))dlsym(where, "ucov_close");
  int (*open_fn)(void) = (int (*)(void))dlsym(where, "ucov_open");
  if (!rt_ioctl || !rt_mmap || !rt_close || !open_fn)
    return 0;
  __atomic_store_n(&rt_open, open_fn, __ATOMIC_RELEASE);
  return 1;
}

static UCOV_NOTRACE int shim_open_device(int flags) {
  if (!shim_find_runtime()) {
    errno = ENOENT;
    return -1;
  }
  int fd = RT_CALL(rt_open());
  if (fd < 0)
    return -1;
  /* Opened read-only, as the client asked: ioctls work, a writable shared
   * mapping is EACCES (the runtime writes through a descriptor of its own). */
  if ((flags & O_ACCMODE) == O_RDONLY) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int ro = next_openat ? next_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0)
                         : (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
    int saved = errno;
    if (next_close)
      next_close(fd);
    else
      syscall(SYS_close, fd);
    if (ro < 0) {
      errno = saved;
      return -1;
    }
    fd = ro;
  }
  /* A real open() without O_CLOEXEC gives an inheritable descriptor. */
  if (!(flags & O_CLOEXEC))
    fcntl(fd, F_SETFD, 0);
  shim_fd_mark(fd, 1);
  return fd;
}

static UCOV_NOTRACE int shim_openat(int dirfd, const char *path, int flags, mode_t mode) {
  if (!in_runtime && path && strcmp(path, KCOV_PATH) == 0)
    return shim_open_device(flags);
  if (next_openat)
    return next_openat(dirfd, path, flags, mode);
  return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/* mode is only passed when flags ask for it; read it only then. */
#define SHIM_MODE_ARG(flags, mode)                                                                 \
  do {                                                                                             \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                         \
      va_list ap;                                                                                  \
      va_start(ap, flags);                                                                         \
      mode = va_arg(ap, mode_t);                                                                   \
      va_end(ap);                                                                                  \
    }                                                                                              \
  } while (0)

UCOV_EXPORT UCOV_NOTRACE int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  SHIM_MODE_ARG(flags, mode);
  return shim_openat(AT_FDCWD, path, flags, mode);
}

UCOV_EXPORT UCOV_NOTRACE int open64(const char *path, int flags, ...) {
  mode_t mode = 0;
  SHIM_MODE_ARG(flags, mode);
  return shim_openat(AT_FDCWD, path, flags, mode);
}

UCOV_EXPORT UCOV_NOTRACE int openat(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  SHIM_MODE_ARG(flags, mode);
  return shim_openat(dirfd, path, flags, mode);
}

UCOV_EXPORT UCOV_NOTRACE int openat64(int dirfd, const char *path, int flags, ...) {
  mode_t mode = 0;
  SHIM_MODE_ARG(flags, mode);
  return shim_openat(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE variants. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
UCOV_EXPORT UCOV_NOTRACE int __open_2(const char *path, int flags) {
  return shim_openat(AT_FDCWD, path, flags, 0);
}
UCOV_EXPORT UCOV_NOTRACE int __open64_2(const char *path, int flags) {
  return shim_openat(AT_FDCWD, path, flags, 0);
}

/* Is cmd one of KCOV's ('c', 1) or ('c', 100..104)? */
static UCOV_NOTRACE int is_kcov_cmd(unsigned long cmd) {
  unsigned type = (cmd >> 8) & 0xff, nr = cmd & 0xff;
  return type == 'c' && (nr == 1 || (nr >= 100 && nr <= 104));
}

UCOV_EXPORT UCOV_NOTRACE int ioctl(int fd, unsigned long cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  unsigned long arg = va_arg(ap, unsigned long);
  va_end(ap);
  /* A descriptor this shim did not open may still be a device (dup, SCM_RIGHTS). */
  if (shim_fd_is_device(fd) || (!in_runtime && is_kcov_cmd(cmd) && shim_find_runtime())) {
    int saved = errno;
    int ret = RT_CALL(rt_ioctl(fd, cmd, arg));
    if (ret == 0 || errno != ENOTTY || shim_fd_is_device(fd))
      return ret;
    errno = saved; /* not a ucov device: the real ioctl decides */
  }
  if (next_ioctl)
    return next_ioctl(fd, cmd, arg);
  return (int)syscall(SYS_ioctl, fd, cmd, arg);
}

UCOV_EXPORT UCOV_NOTRACE void *mmap(void *addr, size_t len, int prot, int flags, int fd,
                                    off_t off) {
  if (shim_fd_is_device(fd) && rt_mmap)
    return RT_CALL(rt_mmap(addr, len, prot, flags, fd, off));
  if (next_mmap)
    return next_mmap(addr, len, prot, flags, fd, off);
  /* Before the constructor ran (dlsym itself may allocate): the system call. */
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

UCOV_EXPORT UCOV_NOTRACE void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                                      off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}

/*
 * Copies of a device are devices (as a Linux file's): dup, dup2, dup3 and
 * fcntl's F_DUPFD mark the new number; a number a copy lands on is no longer
 * whatever it was.
 */
static UCOV_NOTRACE int shim_copied(int oldfd, int newfd) {
  if (newfd >= 0)
    shim_fd_mark(newfd, shim_fd_is_device(oldfd));
  return newfd;
}

UCOV_EXPORT UCOV_NOTRACE int dup(int fd) {
  int r = next_dup ? next_dup(fd) : (int)syscall(SYS_dup, fd);
  return shim_copied(fd, r);
}

UCOV_EXPORT UCOV_NOTRACE int dup2(int fd, int to) {
  int r = next_dup2 ? next_dup2(fd, to) : (int)syscall(SYS_dup2, fd, to);
  return fd == to ? r : shim_copied(fd, r);
}

UCOV_EXPORT UCOV_NOTRACE int dup3(int fd, int to, int flags) {
  int r = next_dup3 ? next_dup3(fd, to, flags) : (int)syscall(SYS_dup3, fd, to, flags);
  return shim_copied(fd, r);
}

/* fcntl's third argument, whatever its type, is one register's worth. */
static UCOV_NOTRACE int shim_fcntl(int (*next)(int, int, ...), int fd, int cmd, void *arg) {
  int r = next ? next(fd, cmd, arg) : (int)syscall(SYS_fcntl, fd, cmd, arg);
  if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
    shim_copied(fd, r);
  return r;
}

UCOV_EXPORT UCOV_NOTRACE int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return shim_fcntl(next_fcntl, fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);
UCOV_EXPORT UCOV_NOTRACE int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return shim_fcntl(next_fcntl64 ? next_fcntl64 : next_fcntl, fd, cmd, arg);
}

UCOV_EXPORT UCOV_NOTRACE int close(int fd) {
  if (shim_fd_is_device(fd) && rt_close) {
    shim_fd_mark(fd, 0);
    return RT_CALL(rt_close(fd));
  }
  if (next_close)
    return next_close(fd);
  return (int)syscall(SYS_close, fd);
}

/*
 * Threads inherit the common handle. The runtime keeps it per thread (as
 * Linux keeps kcov_handle per task and copies it at clone); a program linked
 * by `ucov cc` wraps its own pthread_create calls, but a client under the
 * shim is not, so the shim does it for every call that reaches libc through
 * it. (In a program linked by `ucov cc` both wrap: the second sets the same
 * handle again.)
 *
 * A sanitizer's pthread_create interceptor comes before the shim in the
 * lookup order (it is in the program), so the shim's thread start runs
 * before the sanitizer has set the thread up: it calls nothing instrumented
 * or intercepted (no free), and what it needs comes from a slot of a static
 * table, taken and given back with atomics.
 */
static uint64_t (*rt_common)(void);
static void (*rt_set_common)(uint64_t);

struct shim_inherit {
  int busy; /* taken by a creator until its thread has read it */
  void *(*start)(void *);
  void *arg;
  uint64_t common;
  void (*set)(uint64_t);
};
#define INHERIT_SLOTS 256
static struct shim_inherit inherit_slots[INHERIT_SLOTS];

static UCOV_NOTRACE UCOV_NO_SANITIZER void *shim_thread_start(void *p) {
  struct shim_inherit *slot = p;
  void *(*start)(void *) = __atomic_load_n(&slot->start, __ATOMIC_RELAXED);
  void *arg = __atomic_load_n(&slot->arg, __ATOMIC_RELAXED);
  uint64_t common = __atomic_load_n(&slot->common, __ATOMIC_RELAXED);
  void (*set)(uint64_t) = __atomic_load_n(&slot->set, __ATOMIC_RELAXED);
  __atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
  set(common);
  return start(arg);
}

/* The runtime's getter and setter, wherever the runtime is: the one the shim
 * found at an open, else one the program has (it may call ucov_ioctl itself),
 * looked up until it is there. */
static UCOV_NOTRACE int shim_common_fns(void) {
  if (__atomic_load_n(&rt_common, __ATOMIC_ACQUIRE))
    return 1;
  void (*set)(uint64_t) = (void (*)(uint64_t))dlsym(RTLD_DEFAULT, "ucov_set_common_handle");
  uint64_t (*get)(void) = (uint64_t(*)(void))dlsym(RTLD_DEFAULT, "ucov_common_handle");
  if (!set || !get)
    return 0;
  __atomic_store_n(&rt_set_common, set, __ATOMIC_RELAXED);
  __atomic_store_n(&rt_common, get, __ATOMIC_RELEASE);
  return 1;
}

UCOV_EXPORT UCOV_NOTRACE int pthread_create(pthread_t *th, const pthread_attr_t *attr,
                                            void *(*start)(void *), void *arg) {
  create_fn create = next_pthread_create;
  if (!create) /* before the constructor ran */
    create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!create)
    return EAGAIN;
  uint64_t common = shim_common_fns() ? rt_common() : 0;
  if (!common)
    return create(th, attr, start, arg);
  /* A free slot; with every one waiting for its thread to start, wait. */
  for (unsigned spins = 0;; spins++) {
    struct shim_inherit *slot = &inherit_slots[spins % INHERIT_SLOTS];
    int idle = 0;
    if (!__atomic_compare_exchange_n(&slot->busy, &idle, 1, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
      if (spins % INHERIT_SLOTS == INHERIT_SLOTS - 1)
        sched_yield();
      continue;
    }
    __atomic_store_n(&slot->start, start, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->common, common, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->set, __atomic_load_n(&rt_set_common, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
    int err = create(th, attr, shim_thread_start, slot);
    if (err)
      __atomic_store_n(&slot->busy, 0, __ATOMIC_RELEASE);
    return err;
  }
}
