/* SPDX-License-Identifier: MIT */
/*
 * A program that defines, for its own use, names the runtime once defined as
 * globals (symbols.sh links it with every ucov cc mode): it must link, call
 * its own functions, and still be measured (a thread is created, through the
 * runtime's pthread_create wrapper). With UCOV_TRACE_SELF=1 it also traces
 * itself through ucov's API and prints how many PCs it got.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ucov/kcov.h"
#include "ucov/ucov.h"

/* The program's own parse_pid, ctl_open, mem_sink_init and friends. */
int parse_pid(const char *s) {
  return (int)strlen(s) * 7;
}
int ctl_open(int x) {
  return x + 100;
}
int ctl_call(int x) {
  return x * 2;
}
void mem_sink_init(int *p) {
  *p = 42;
}
int fd_sink_init = 5;
int control_fork_child(void) {
  return 9;
}
long posix_module_base(long x) {
  return x - 1;
}
int pgo_module_unload(void) {
  return 11;
}
int posix_runtime_active = 3;

static void *worker(void *arg) {
  int *v = arg;
  *v += ctl_call(*v);
  return NULL;
}

int main(void) {
  uint64_t *cover = NULL;
  int fd = -1;
  if (getenv("UCOV_TRACE_SELF")) {
    fd = ucov_open();
    if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, 4096) ||
        (cover = ucov_mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
            MAP_FAILED ||
        ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
      return 2;
    __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  }
  int sink = 0;
  mem_sink_init(&sink);
  int v = parse_pid("1234") + ctl_open(1) + sink + fd_sink_init + control_fork_child() +
          (int)posix_module_base(2) + pgo_module_unload() + posix_runtime_active;
  pthread_t t;
  if (pthread_create(&t, NULL, worker, &v) || pthread_join(t, NULL))
    return 3;
  printf("own %d\n", v);
  if (cover) {
    unsigned long n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
    ucov_ioctl(fd, KCOV_DISABLE, 0);
    printf("pcs %lu\n", n);
  }
  return 0;
}
