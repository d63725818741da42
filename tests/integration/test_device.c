/* SPDX-License-Identifier: MIT */
/* Every ioctl error path and the KCOV state machine, with Linux's errno values. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "ucov/ucov.h"

static int shared_fd;

static void *enable_from_other_thread(void *arg) {
  (void)arg;
  /* The device is enabled by the main thread: busy for everyone. */
  CHECK_ERRNO(ucov_ioctl(shared_fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  /* Only the enabling thread may disable. */
  CHECK_ERRNO(ucov_ioctl(shared_fd, KCOV_DISABLE, 0), EINVAL);
  return NULL;
}

static void test_init(void) {
  int fd = ucov_open();
  CHECK(fd >= 0);
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  /* Sizes outside [2, INT_MAX / 8]. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, 0), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, 1), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, 0x7fffffffUL / 8 + 1), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, ~0UL), EINVAL);
  /* mmap before INIT. */
  CHECK(ucov_mmap(NULL, 16, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
  /* ENABLE before INIT. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 2));
  /* INIT twice: EBUSY (a bad size is still EINVAL: size is checked first). */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, 64), EBUSY);
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_INIT_TRACE, 1), EINVAL);
  /* Once sized, the memfd is sealed against shrinking and growing: a process
   * it is passed to (REMOTE) can map it without fear of SIGBUS. */
  int seals = fcntl(fd, F_GET_SEALS);
  CHECK(seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW));
  CHECK_ERRNO(ftruncate(fd, 8), EPERM);
  CHECK_ERRNO(ftruncate(fd, 4096), EPERM);
  CHECK_OK(ucov_close(fd));
  /* A descriptor that is not open (a number past any limit: a closed one may be
   * reused at once by another thread), and one that is not a device. */
  CHECK_ERRNO(ucov_ioctl(1 << 30, KCOV_INIT_TRACE, 64), EBADF);
  int nul = open("/dev/null", O_RDWR);
  CHECK_ERRNO(ucov_ioctl(nul, KCOV_INIT_TRACE, 64), ENOTTY);
  CHECK(ucov_mmap(NULL, 16, PROT_READ, MAP_SHARED, nul, 0) == MAP_FAILED && errno == ENODEV);
  close(nul);
}

/*
 * As a Linux file: dup, dup2, dup3 and F_DUPFD copies keep the device after
 * the original is closed; request numbers compare on 32 bits; INIT_TRACE of
 * 1000 words cannot be mapped (8000 bytes is no whole vma); a read-only
 * descriptor takes ioctls but no writable shared mapping.
 */
static void test_linux_file(void) {
  int fd = ucov_open();
  int d2 = dup2(fd, 239), d3 = dup3(fd, 240, O_CLOEXEC), dd = fcntl(fd, F_DUPFD_CLOEXEC, 300);
  CHECK(d2 == 239 && d3 == 240 && dd >= 300);
  CHECK_OK(ucov_close(fd));
  const int init = (int)KCOV_INIT_TRACE; /* held in an int: sign-extended */
  CHECK_OK(ucov_ioctl(239, (unsigned long)(long)init, 1024));
  uint64_t *a = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, 240, 0);
  CHECK(a != MAP_FAILED);
  CHECK(ucov_mmap(NULL, 1024 * 8 + 8, PROT_READ, MAP_SHARED, dd, 0) == MAP_FAILED &&
        errno == EINVAL); /* length checks through a copy too */
  CHECK_OK(ucov_close(239));
  CHECK_OK(ucov_close(240));
  CHECK_OK(ucov_ioctl(dd, KCOV_ENABLE, KCOV_TRACE_PC));
  __atomic_store_n(&a[0], 0, __ATOMIC_RELAXED);
  CHECK_OK(ucov_ioctl(dd, KCOV_DISABLE, 0));
  CHECK_OK(ucov_close(dd));
  if (a != MAP_FAILED)
    munmap(a, 1024 * 8);

  fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 1000));
  CHECK(ucov_mmap(NULL, 8000, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
  ucov_close(fd);

  fd = ucov_open();
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  int ro = open(path, O_RDONLY | O_CLOEXEC);
  ucov_close(fd);
  CHECK_OK(ucov_ioctl(ro, KCOV_INIT_TRACE, 512));
  CHECK(ucov_mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0) == MAP_FAILED &&
        errno == EACCES);
  uint64_t *r = ucov_mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 0);
  CHECK(r != MAP_FAILED);
  if (r != MAP_FAILED)
    munmap(r, 4096);
  ucov_close(ro);
}

static void test_mmap(void) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 1024));
  /* As kcov_mmap: the vma, the length rounded up to pages, must be the area. */
  uint64_t *r = ucov_mmap(NULL, 1024 * 8 - 8, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(r != MAP_FAILED);
  if (r != MAP_FAILED)
    munmap(r, 1024 * 8 - 8);
  CHECK(ucov_mmap(NULL, 1024 * 8 + 8, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
        errno == EINVAL);
  CHECK(ucov_mmap(NULL, 0, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL);
  CHECK(ucov_mmap(NULL, 1024 * 8, PROT_READ, MAP_SHARED, fd, 4096) == MAP_FAILED &&
        errno == EINVAL);
  uint64_t *a = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(a != MAP_FAILED);
  /* Even a MAP_PRIVATE request shares the pages, as KCOV's area is one set of pages. */
  uint64_t *b = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(b != MAP_FAILED);
  /* Plain mmap(2) of the memfd reaches the same pages. */
  uint64_t *c = map_buffer(fd, 1024);
  a[5] = 42;
  CHECK_EQ(b[5], 42);
  CHECK_EQ(c[5], 42);
  munmap(a, 1024 * 8);
  munmap(b, 1024 * 8);
  munmap(c, 1024 * 8);
  ucov_close(fd);
}

static void test_enable_disable(void) {
  int fd = ucov_open(), fd2 = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 256));
  CHECK_OK(ucov_ioctl(fd2, KCOV_INIT_TRACE, 256));
  /* Unknown modes. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_ENABLE, 3), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_ENABLE, ~0UL), EINVAL);
  /* DISABLE of a device that is not enabled. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_DISABLE, 0), EINVAL);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  /* Same fd twice: EINVAL. Another device on a tracing thread: EBUSY. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd2, KCOV_ENABLE, KCOV_TRACE_PC), EBUSY);
  /* A dup()ed descriptor is the same device. */
  int dupfd = dup(fd);
  CHECK_ERRNO(ucov_ioctl(dupfd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  close(dupfd);
  /* Another thread can neither enable nor disable it. */
  shared_fd = fd;
  pthread_t th;
  pthread_create(&th, NULL, enable_from_other_thread, NULL);
  pthread_join(th, NULL);
  /* DISABLE with arg != 0, and DISABLE of the other device. */
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_DISABLE, 1), EINVAL);
  CHECK_ERRNO(ucov_ioctl(fd2, KCOV_DISABLE, 0), EINVAL);
  /* Unknown commands, including a KCOV number with another type byte. */
  CHECK_ERRNO(ucov_ioctl(fd, 0x1234, 0), ENOTTY);
  CHECK_ERRNO(ucov_ioctl(fd, UCOV_IOC(UCOV_IOC_NONE, 'd', 100, 0), 0), ENOTTY);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_ERRNO(ucov_ioctl(fd, KCOV_DISABLE, 0), EINVAL);
  /* After DISABLE the device can be enabled again, in another mode, and the other one too. */
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC_EXT));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_OK(ucov_ioctl(fd2, KCOV_ENABLE, KCOV_TRACE_PC));
  CHECK_OK(ucov_ioctl(fd2, KCOV_DISABLE, 0));
  ucov_close(fd);
  ucov_close(fd2);
}

static void test_close_while_enabled(void) {
  /* Closing an enabled device keeps the thread tracing until DISABLE. */
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 64));
  uint64_t *buf = map_buffer(fd, 64);
  CHECK_OK(ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  int fd_copy = dup(fd);
  CHECK_OK(ucov_close(fd));
  /* A new device can be opened and initialised meanwhile; this thread is still busy. */
  int other = ucov_open();
  CHECK_OK(ucov_ioctl(other, KCOV_INIT_TRACE, 64));
  CHECK_ERRNO(ucov_ioctl(other, KCOV_ENABLE, KCOV_TRACE_PC), EBUSY);
  /* A surviving descriptor still reaches it (as in Linux). */
  CHECK_OK(ucov_ioctl(fd_copy, KCOV_DISABLE, 0));
  /* Disabled, but a descriptor is still open: it lives on (initialised). */
  CHECK_ERRNO(ucov_ioctl(fd_copy, KCOV_INIT_TRACE, 64), EBUSY);
  CHECK_OK(ucov_ioctl(other, KCOV_ENABLE, KCOV_TRACE_PC));
  CHECK_OK(ucov_ioctl(other, KCOV_DISABLE, 0));
  /* Its last descriptor closed and idle: released; a number reused for
   * another file is no device. */
  CHECK_OK(ucov_close(fd_copy));
  int reused = open("/dev/null", O_RDONLY);
  CHECK_ERRNO(ucov_ioctl(reused, KCOV_INIT_TRACE, 64), ENOTTY);
  close(reused);
  munmap(buf, 64 * 8);
  ucov_close(other);
}

int main(void) {
  test_init();
  test_mmap();
  test_linux_file();
  test_enable_disable();
  test_close_while_enabled();
  return check_report("test_device");
}
