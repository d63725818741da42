/* SPDX-License-Identifier: MIT */
/*
 * ucov.ko under load: TRACERS threads each trace their own reads of the demo
 * device through a KCOV device of their own, while RUNNERS threads read it
 * without tracing, for SECONDS. Every PC a tracer collects must be in the
 * demo module's text ([TEXT, TEXT + 1 MiB)), every trace non-empty, and no
 * tracer may see another's records (each trace is checked to be a demo_read
 * call's: it starts and ends inside the module and is not longer than one
 * read's worth). Prints "stress ok TRACES READS" or the first failure.
 * usage: kcov_stress TEXT SECONDS
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define KCOV_INIT_TRACE _IOR('c', 1, unsigned long)
#define KCOV_ENABLE _IO('c', 100)
#define KCOV_DISABLE _IO('c', 101)
#define KCOV_TRACE_PC 0
#define WORDS (64 << 10)
#define TRACERS 4
#define RUNNERS 4

static unsigned long text;
static time_t until;
static long traces, reads, failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, unsigned long v) {
  pthread_mutex_lock(&lock);
  if (!failed++)
    printf("stress failed: %s 0x%lx\n", what, v);
  pthread_mutex_unlock(&lock);
}

static int read_demo(int fd) {
  char buf[64];
  return pread(fd, buf, sizeof(buf), 0) > 0 ? 0 : -1;
}

static void *tracer(void *arg) {
  (void)arg;
  int kcov = open("/sys/kernel/debug/kcov", O_RDWR), demo = open("/dev/ucov-demo", O_RDONLY);
  if (kcov < 0 || demo < 0 || ioctl(kcov, KCOV_INIT_TRACE, WORDS)) {
    fail("setup", 0);
    return NULL;
  }
  unsigned long *cover =
      mmap(NULL, WORDS * sizeof(unsigned long), PROT_READ | PROT_WRITE, MAP_SHARED, kcov, 0);
  if (cover == MAP_FAILED || ioctl(kcov, KCOV_ENABLE, KCOV_TRACE_PC)) {
    fail("enable", 0);
    return NULL;
  }
  long n_traces = 0;
  while (time(NULL) < until && !failed) {
    __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
    if (read_demo(demo)) {
      fail("read", 0);
      break;
    }
    unsigned long n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
    if (n == 0 || n > 4096)
      fail("trace length", n);
    for (unsigned long i = 0; i < n && i < WORDS - 1; i++)
      if (cover[i + 1] < text || cover[i + 1] >= text + (1ul << 20))
        fail("pc outside the module", cover[i + 1]);
    n_traces++;
  }
  if (ioctl(kcov, KCOV_DISABLE, 0))
    fail("disable", 0);
  munmap(cover, WORDS * sizeof(unsigned long));
  close(kcov);
  close(demo);
  __atomic_fetch_add(&traces, n_traces, __ATOMIC_RELAXED);
  return NULL;
}

static void *runner(void *arg) {
  (void)arg;
  int demo = open("/dev/ucov-demo", O_RDONLY);
  long n = 0;
  while (demo >= 0 && time(NULL) < until && !failed) {
    if (read_demo(demo))
      fail("read (runner)", 0);
    n++;
  }
  if (demo >= 0)
    close(demo);
  __atomic_fetch_add(&reads, n, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  text = strtoul(argv[1], NULL, 16);
  until = time(NULL) + atoi(argv[2]);
  pthread_t t[TRACERS + RUNNERS];
  for (int i = 0; i < TRACERS + RUNNERS; i++)
    pthread_create(&t[i], NULL, i < TRACERS ? tracer : runner, NULL);
  for (int i = 0; i < TRACERS + RUNNERS; i++)
    pthread_join(t[i], NULL);
  if (!failed)
    printf("stress ok %ld %ld\n", traces, reads);
  return failed ? 1 : 0;
}
