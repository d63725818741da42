/* SPDX-License-Identifier: MIT */
/*
 * kcov.c's answers to the sizes a client passes, on ucov.ko's
 * /sys/kernel/debug/kcov: each check prints "errno NAME ok" or "errno NAME
 * bad: ..." (tests/kernel/linux.sh wants every one ok, and no warning in
 * the log after them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ucov/kcov.h"

#define KCOV "/sys/kernel/debug/kcov"

static int bad;

/* rc is the call's result; want the errno it must fail with (0: success). */
static void check(const char *name, long rc, int want) {
  int got = rc == -1 ? errno : 0;
  if (got == want) {
    printf("errno %s ok\n", name);
  } else {
    printf("errno %s bad: %s, want %s\n", name, got ? strerror(got) : "success",
           want ? strerror(want) : "success");
    bad = 1;
  }
}

static long map(int fd, size_t len, off_t off) {
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
  if (p == MAP_FAILED)
    return -1;
  munmap(p, len);
  return 0;
}

static int fresh(void) {
  int fd = open(KCOV, O_RDWR);
  if (fd < 0)
    perror(KCOV), exit(1);
  return fd;
}

int main(void) {
  int fd = fresh();
  check("init-1-word", ioctl(fd, KCOV_INIT_TRACE, 1ul), EINVAL);
  check("init-over-int-max", ioctl(fd, KCOV_INIT_TRACE, 0x10000000ul), EINVAL);
  check("init-huge", ioctl(fd, KCOV_INIT_TRACE, ~0ul), EINVAL);
  check("enable-before-init", ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  check("init-1000", ioctl(fd, KCOV_INIT_TRACE, 1000ul), 0);
  check("init-twice", ioctl(fd, KCOV_INIT_TRACE, 1000ul), EBUSY);
  /* 1000 words are 8000 bytes: no mapping is exactly that long. */
  check("mmap-8000-of-1000-words", map(fd, 8000, 0), EINVAL);
  check("mmap-8192-of-1000-words", map(fd, 8192, 0), EINVAL);
  close(fd);
  fd = fresh();
  check("init-1024", ioctl(fd, KCOV_INIT_TRACE, 1024ul), 0);
  check("mmap-exact", map(fd, 8192, 0), 0);
  check("mmap-longer", map(fd, 16384, 0), EINVAL);
  check("mmap-shorter", map(fd, 4096, 0), EINVAL);
  check("mmap-offset", map(fd, 8192, 4096), EINVAL);
  check("unknown-command", ioctl(fd, 0x6399, 0), ENOTTY);
  check("unknown-mode", ioctl(fd, KCOV_ENABLE, 7ul), EINVAL);
  struct {
    struct kcov_remote_arg a;
    uint64_t h[KCOV_REMOTE_MAX_HANDLES + 1];
  } r;
  memset(&r, 0, sizeof(r));
  r.a.trace_mode = KCOV_TRACE_PC;
  r.a.area_size = 1024;
  r.a.num_handles = KCOV_REMOTE_MAX_HANDLES + 1;
  check("remote-too-many-handles", ioctl(fd, KCOV_REMOTE_ENABLE, &r), EINVAL);
  r.a.num_handles = 1;
  r.h[0] = 1ull << 40; /* bits 32-55 set */
  check("remote-bad-handle", ioctl(fd, KCOV_REMOTE_ENABLE, &r), EINVAL);
  r.a.trace_mode = 5;
  r.h[0] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 3);
  check("remote-bad-mode", ioctl(fd, KCOV_REMOTE_ENABLE, &r), EINVAL);
  /* Any area size is taken, as kcov.c takes it: 0x10000000 words (2 GiB). */
  r.a.trace_mode = KCOV_TRACE_PC;
  r.a.area_size = 0x10000000u;
  r.a.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x55);
  check("remote-area-0x10000000", ioctl(fd, KCOV_REMOTE_ENABLE, &r), 0);
  /* ... and its sections, far over the limit, record nothing without a warning. */
  int d = open("/dev/ucov-demo", O_WRONLY);
  if (d < 0 && errno == ENOENT) /* (vmlinux's own KCOV: no demo module loaded) */
    printf("errno remote-huge-section skipped: no /dev/ucov-demo\n");
  else
    check("remote-huge-section", d >= 0 && write(d, "&1+1", 4) == 4 ? 0 : -1, 0);
  if (d >= 0)
    close(d);
  check("disable", ioctl(fd, KCOV_DISABLE, 0ul), 0);
  r.a.area_size = 0xffffffffu;
  check("remote-area-u32-max", ioctl(fd, KCOV_REMOTE_ENABLE, &r), 0);
  check("disable-nonzero-arg", ioctl(fd, KCOV_DISABLE, 1ul), EINVAL);
  check("disable-2", ioctl(fd, KCOV_DISABLE, 0ul), 0);
  close(fd);
  return bad;
}
