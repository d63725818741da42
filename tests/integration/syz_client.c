/* SPDX-License-Identifier: MIT */
/*
 * A KCOV client with the call sequence of syzkaller's executor (written
 * here from its documented behaviour, for LD_PRELOAD=libucov-kcov.so): open,
 * dup2 onto a fixed high descriptor and close the original; request numbers
 * held in an int; INIT_TRACE and mmap through the copy; PC and CMP
 * collection by resetting the count word; an "extra" device for REMOTE with a
 * USB handle and a common handle. The threads that stand in for the kernel's
 * background work bracket theirs with ucov_remote_start/stop. A read-only
 * descriptor takes ioctls but no writable shared mapping, as on Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcov.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define COVER_FD 239
#define EXTRA_FD 240
#define COVER_SIZE (256 << 10) /* words */
#define EXTRA_SIZE (64 << 10)
#define PROCID 3

struct remote_arg1 {
  uint32_t trace_mode, area_size, num_handles, pad;
  uint64_t common_handle, handles[1];
};

struct cover {
  int fd;
  uint64_t *data;
};

/* cover_open: the descriptor ends up at a fixed number. */
static void cover_open(struct cover *c, int target_fd, uint64_t words) {
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd < 0)
    perror("open"), exit(1);
  if (dup2(fd, target_fd) < 0)
    perror("dup2"), exit(1);
  close(fd);
  c->fd = target_fd;
  const int kcov_init_trace = KCOV_INIT_TRACE; /* an int: sign-extended into ioctl */
  if (ioctl(c->fd, kcov_init_trace, words))
    perror("ioctl(KCOV_INIT_TRACE)"), exit(1);
  c->data = mmap(NULL, words * 8, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
  if ((void *)c->data == MAP_FAILED)
    perror("mmap"), exit(1);
}

static void cover_reset(struct cover *c) {
  __atomic_store_n(&c->data[0], 0, __ATOMIC_RELAXED);
}

static uint64_t cover_count(struct cover *c) {
  return __atomic_load_n(&c->data[0], __ATOMIC_RELAXED);
}

/* The kernel's part: work done for the client under a remote handle. */
static void *usb_work(void *arg) {
  (void)arg;
  ucov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, PROCID + 1));
  tgt_thread_a(10);
  ucov_remote_stop();
  return NULL;
}

static void *common_work(void *arg) {
  uint64_t *seen = arg;
  *seen = ucov_common_handle(); /* inherited from the thread that enabled */
  ucov_remote_start(*seen);
  tgt_thread_b(10);
  ucov_remote_stop();
  return NULL;
}

static int count_in(const uint64_t *pcs, uint64_t n, const char *fn) {
  int k = 0;
  for (uint64_t i = 0; i < n; i++)
    k += pc_in(pcs[i], fn);
  return k;
}

int main(void) {
  struct cover main_cov, extra;
  cover_open(&main_cov, COVER_FD, COVER_SIZE);
  CHECK(fcntl(COVER_FD, F_GETFD) >= 0);

  /* PCs. */
  const int kcov_enable = KCOV_ENABLE, kcov_disable = KCOV_DISABLE;
  CHECK_OK(ioctl(main_cov.fd, kcov_enable, KCOV_TRACE_PC));
  cover_reset(&main_cov);
  tgt_root(5);
  uint64_t n = cover_count(&main_cov);
  CHECK(n > 5 && count_in(main_cov.data + 1, n, "tgt_leaf") >= 3);
  CHECK_OK(ioctl(main_cov.fd, kcov_disable, 0));

  /* Comparison operands, into the same buffer. */
  CHECK_OK(ioctl(main_cov.fd, kcov_enable, KCOV_TRACE_CMP));
  cover_reset(&main_cov);
  tgt_cmp_const32(0x1234);
  n = cover_count(&main_cov);
  CHECK_OK(ioctl(main_cov.fd, kcov_disable, 0));
  int found = 0;
  for (uint64_t i = 0; i < n && 1 + i * 4 + 3 < COVER_SIZE; i++) {
    const uint64_t *r = &main_cov.data[1 + i * 4];
    found |= r[0] == (KCOV_CMP_SIZE(2) | KCOV_CMP_CONST) && r[1] == 0xdeadbeef && r[2] == 0x1234;
  }
  CHECK(found);

  /* The extra device: REMOTE with a USB handle and a common handle. */
  cover_open(&extra, EXTRA_FD, EXTRA_SIZE);
  struct remote_arg1 arg = {KCOV_TRACE_PC,
                            EXTRA_SIZE,
                            1,
                            0,
                            kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, PROCID + 1),
                            {kcov_remote_handle(KCOV_SUBSYSTEM_USB, PROCID + 1)}};
  const int kcov_remote_enable = KCOV_REMOTE_ENABLE;
  CHECK_OK(ioctl(extra.fd, kcov_remote_enable, &arg));
  cover_reset(&extra);
  pthread_t a, b;
  uint64_t seen = 0;
  pthread_create(&a, NULL, usb_work, NULL);
  pthread_join(a, NULL);
  pthread_create(&b, NULL, common_work, &seen);
  pthread_join(b, NULL);
  n = cover_count(&extra);
  CHECK_EQ(seen, arg.common_handle);
  CHECK(count_in(extra.data + 1, n, "tgt_thread_a") > 0);
  CHECK(count_in(extra.data + 1, n, "tgt_thread_b") > 0);
  CHECK_OK(ioctl(extra.fd, kcov_disable, 0));

  /* The errno of kcov.c through the copies. */
  CHECK(ioctl(main_cov.fd, KCOV_INIT_TRACE, COVER_SIZE) == -1 && errno == EBUSY);
  CHECK(ioctl(main_cov.fd, kcov_disable, 0) == -1 && errno == EINVAL);
  CHECK(mmap(NULL, COVER_SIZE * 8 + 4096, PROT_READ, MAP_SHARED, main_cov.fd, 0) == MAP_FAILED &&
        errno == EINVAL);

  /* A copy by fcntl keeps the device when the fixed number is closed. */
  int copy = fcntl(main_cov.fd, F_DUPFD_CLOEXEC, 300);
  CHECK(copy >= 300);
  CHECK_OK(close(main_cov.fd));
  CHECK_OK(ioctl(copy, kcov_enable, KCOV_TRACE_PC));
  cover_reset(&main_cov);
  tgt_leaf(1);
  CHECK(cover_count(&main_cov) > 0);
  CHECK_OK(ioctl(copy, kcov_disable, 0));
  close(copy);
  close(extra.fd);

  /* Opened read-only: ioctls yes, a writable shared mapping EACCES. */
  int ro = open("/sys/kernel/debug/kcov", O_RDONLY);
  CHECK(ro >= 0);
  CHECK_OK(ioctl(ro, KCOV_INIT_TRACE, 512));
  CHECK(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0) == MAP_FAILED &&
        errno == EACCES);
  void *rd = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ro, 0);
  CHECK(rd != MAP_FAILED);
  /* INIT_TRACE(1000): 8000 bytes is no whole vma, as kcov_mmap says. */
  int odd = open("/sys/kernel/debug/kcov", O_RDWR);
  CHECK_OK(ioctl(odd, KCOV_INIT_TRACE, 1000));
  CHECK(mmap(NULL, 8000, PROT_READ, MAP_SHARED, odd, 0) == MAP_FAILED && errno == EINVAL);
  close(odd);
  close(ro);
  munmap(main_cov.data, COVER_SIZE * 8);
  munmap(extra.data, EXTRA_SIZE * 8);
  return check_report("syz_client");
}
