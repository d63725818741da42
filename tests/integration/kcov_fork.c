/* SPDX-License-Identifier: MIT */
/*
 * A KCOV descriptor is one open file, shared by a parent and the children
 * it forks (syzkaller's fork server: the parent opens, initialises and maps
 * its devices once, every child enables them). Under LD_PRELOAD=libucov-kcov.so,
 * the device's state is shared as the file is, with kcov.c's errno:
 *  - while a live task of one process has it enabled, the other's ENABLE,
 *    UNIQUE_ENABLE and REMOTE_ENABLE are EINVAL (kcov->mode is not INIT),
 *    its DISABLE EINVAL (current->kcov != kcov), INIT_TRACE EBUSY;
 *  - once that task disabled it, exited, was killed, or is a zombie (Linux
 *    runs kcov_task_exit in do_exit), the other's ENABLE succeeds;
 *  - an INIT_TRACE in the child is the parent's too: the parent maps the
 *    same area, and sees what the child records.
 * A child reports its failed checks in its exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include "ucov/kcov.h" /* <linux/kcov.h>, and the unique series numbers */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "target.h"

#define KCOV_PATH "/sys/kernel/debug/kcov"
#define COVER_FD 239
#define WORDS (64 << 10)

static uint64_t count(const uint64_t *area) {
  return __atomic_load_n(&area[0], __ATOMIC_RELAXED);
}

/* cover_open of syzkaller's executor: open, dup2 to a fixed number, INIT, mmap. */
static uint64_t *cover_open(int at) {
  int fd = open(KCOV_PATH, O_RDWR);
  if (fd < 0 || dup2(fd, at) != at || close(fd))
    perror("open"), exit(1);
  if (ioctl(at, KCOV_INIT_TRACE, WORDS))
    perror("KCOV_INIT_TRACE"), exit(1);
  uint64_t *a = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, at, 0);
  if (a == MAP_FAILED)
    perror("mmap"), exit(1);
  return a;
}

/* A child's end: its failed checks are its status. */
static void child_exit(void) {
  fflush(NULL);
  _exit(check_failures > 100 ? 100 : check_failures);
}

static void wait_ok(pid_t pid, const char *what) {
  int st = 0;
  CHECK(waitpid(pid, &st, 0) == pid);
  if (!WIFEXITED(st) || WEXITSTATUS(st))
    fprintf(stderr, "%s: child status 0x%x\n", what, st);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* What the other process may not do while the device is enabled elsewhere. */
static void check_enabled_elsewhere(int fd) {
  struct kcov_remote_arg ra = {.trace_mode = KCOV_TRACE_PC, .area_size = 64};
  CHECK_ERRNO(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC), EINVAL);
  CHECK_ERRNO(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP), EINVAL);
  CHECK_ERRNO(ioctl(fd, KCOV_REMOTE_ENABLE, &ra), EINVAL);
  CHECK_ERRNO(ioctl(fd, KCOV_DISABLE, 0), EINVAL);
  CHECK_ERRNO(ioctl(fd, KCOV_INIT_TRACE, WORDS), EBUSY);
}

/* The fork server: every child enables the parent's device and ends without
 * disabling it (exit, SIGKILL, a zombie not yet reaped); the parent and the
 * next child enable it again. */
static void fork_server(void) {
  uint64_t *cov = cover_open(COVER_FD);
  for (int i = 0; i < 12; i++) {
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pid = fork();
    if (pid == 0) {
      char c;
      CHECK_OK(ioctl(COVER_FD, KCOV_ENABLE, KCOV_TRACE_PC));
      __atomic_store_n(&cov[0], 0, __ATOMIC_RELAXED);
      tgt_root(5);
      CHECK(count(cov) > 5);
      if (write(up[1], "e", 1) != 1 || read(down[0], &c, 1) != 1)
        CHECK(0);
      child_exit(); /* enabled to the end, as an executor's child */
    }
    char c;
    CHECK(read(up[0], &c, 1) == 1);
    check_enabled_elsewhere(COVER_FD);
    CHECK(count(cov) > 5); /* the child's records, in the parent's mapping */
    if (i % 3 == 0) {
      CHECK(write(down[1], "x", 1) == 1);
      wait_ok(pid, "fork server");
    } else {
      CHECK(kill(pid, SIGKILL) == 0);
      siginfo_t si;
      CHECK(waitid(P_PID, (id_t)pid, &si, WEXITED | (i % 3 == 1 ? WNOWAIT : 0)) == 0);
    }
    /* The child's task is gone (or a zombie): the device is free. */
    CHECK_OK(ioctl(COVER_FD, KCOV_ENABLE, KCOV_TRACE_PC));
    __atomic_store_n(&cov[0], 0, __ATOMIC_RELAXED);
    tgt_leaf(1);
    CHECK(count(cov) > 0);
    CHECK_OK(ioctl(COVER_FD, KCOV_DISABLE, 0));
    if (i % 3 == 1)
      waitpid(pid, NULL, 0);
    close(up[0]), close(up[1]), close(down[0]), close(down[1]);
  }
  CHECK(munmap(cov, WORDS * 8) == 0);
  CHECK(close(COVER_FD) == 0);
}

/* The parent enables, then forks: the child may not enable or disable it
 * until the parent disabled it; then it may, and the parent may not. */
static void parent_first(void) {
  uint64_t *cov = cover_open(COVER_FD);
  CHECK_OK(ioctl(COVER_FD, KCOV_ENABLE, KCOV_TRACE_PC));
  int up[2], down[2];
  CHECK(pipe(up) == 0 && pipe(down) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    check_enabled_elsewhere(COVER_FD);
    CHECK_ERRNO(ioctl(COVER_FD, KCOV_UNIQUE_ENABLE, 64), EINVAL);
    if (write(up[1], "1", 1) != 1 || read(down[0], &c, 1) != 1)
      CHECK(0);
    CHECK_OK(ioctl(COVER_FD, KCOV_ENABLE, KCOV_TRACE_PC));
    __atomic_store_n(&cov[0], 0, __ATOMIC_RELAXED);
    tgt_root(3);
    CHECK(count(cov) > 5);
    if (write(up[1], "2", 1) != 1 || read(down[0], &c, 1) != 1)
      CHECK(0);
    CHECK_OK(ioctl(COVER_FD, KCOV_DISABLE, 0));
    child_exit();
  }
  char c;
  CHECK(read(up[0], &c, 1) == 1);
  CHECK_OK(ioctl(COVER_FD, KCOV_DISABLE, 0));
  CHECK(write(down[1], "a", 1) == 1);
  CHECK(read(up[0], &c, 1) == 1);
  check_enabled_elsewhere(COVER_FD);
  CHECK(count(cov) > 5);
  CHECK(write(down[1], "b", 1) == 1);
  wait_ok(pid, "parent first");
  CHECK_OK(ioctl(COVER_FD, KCOV_ENABLE, KCOV_TRACE_CMP)); /* disabled by the child */
  CHECK_OK(ioctl(COVER_FD, KCOV_DISABLE, 0));
  close(up[0]), close(up[1]), close(down[0]), close(down[1]);
  munmap(cov, WORDS * 8);
  close(COVER_FD);
}

/* Opened in the parent, initialised and enabled (REMOTE) in the child: the
 * parent's INIT_TRACE is EBUSY and its mmap maps the child's area. */
static void child_inits(void) {
  int fd = open(KCOV_PATH, O_RDWR);
  CHECK(fd >= 0);
  int up[2], down[2];
  CHECK(pipe(up) == 0 && pipe(down) == 0);
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    CHECK_OK(ioctl(fd, KCOV_INIT_TRACE, WORDS));
    uint64_t *a = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(a != MAP_FAILED);
    CHECK_OK(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
    __atomic_store_n(&a[0], 0, __ATOMIC_RELAXED);
    tgt_root(4);
    CHECK_OK(ioctl(fd, KCOV_DISABLE, 0));
    struct kcov_remote_arg ra = {.trace_mode = KCOV_TRACE_PC,
                                 .area_size = 64,
                                 .common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 7)};
    CHECK_OK(ioctl(fd, KCOV_REMOTE_ENABLE, &ra));
    if (write(up[1], "r", 1) != 1 || read(down[0], &c, 1) != 1)
      CHECK(0);
    child_exit();
  }
  char c;
  CHECK(read(up[0], &c, 1) == 1);
  uint64_t *a = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(a != MAP_FAILED);
  CHECK(a != MAP_FAILED && count(a) > 5);
  check_enabled_elsewhere(fd);
  CHECK_ERRNO(ioctl(fd, KCOV_UNIQUE_ENABLE, 64), EINVAL);
  CHECK(write(down[1], "q", 1) == 1);
  wait_ok(pid, "child inits");
  CHECK_OK(ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC));
  CHECK_OK(ioctl(fd, KCOV_DISABLE, 0));
  close(up[0]), close(up[1]), close(down[0]), close(down[1]);
  if (a != MAP_FAILED)
    munmap(a, WORDS * 8);
  close(fd);
}

int main(void) {
  fork_server();
  parent_first();
  child_inits();
  return check_report("kcov_fork");
}
