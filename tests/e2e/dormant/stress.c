/* SPDX-License-Identifier: MIT */
/*
 * A dormant build under load (tests/e2e/dormant.sh): WORKERS threads run
 * instrumented code without a break while the main thread enables a KCOV
 * device, traces a known call, and disables it CYCLES times, each enable
 * making every site live and each disable dormant again, under the workers'
 * feet. Every traced call must give exactly the records of the first one
 * (nothing lost while enabled), and every worker's sums must stay right
 * (a site patched wrongly would change them, or crash).
 *
 *   stress CYCLES WORKERS [own-trap] [worker-trace] [pause] [remote]
 * own-trap: the program has its own SIGTRAP handler, installed first, and
 *   raises SIGTRAP and runs int3 itself now and then: its handler must see
 *   each of them, and nothing else.
 * worker-trace: each worker also enables a device of its own now and then,
 *   and checks its traced call as the main thread does.
 * pause: after the first enable print "live" and wait for a line on stdin;
 *   at the end, a thread enables a device and ends without disabling it
 *   (the last device goes with its thread): print "dormant" and wait again.
 * remote: at the end, KCOV_REMOTE_ENABLE on a new device and a worker's
 *   section of the traced call: print "remote: N records".
 * reload: each cycle the program's module is unregistered and registered
 *   again, so its site table is read anew and replaced, while it is live
 *   (every other cycle) or dormant, with the workers trapping meanwhile.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucov/dormant.h>
#include <ucov/ucov.h>

#include "work.h"

#define WORDS 4096

static volatile int stop;
static int cycles, n_workers, own_trap, worker_trace, pause_points, remote, reload;
static long expect_sum;
static volatile long own_traps;

static void on_trap(int sig) {
  (void)sig;
  own_traps++;
}

struct tracer {
  int fd;
  uint64_t *cover;
  uint64_t ref[WORDS];
  uint64_t n_ref;
};

static int tracer_open(struct tracer *t) {
  t->fd = ucov_open();
  if (t->fd < 0 || ucov_ioctl(t->fd, KCOV_INIT_TRACE, WORDS) != 0)
    return -1;
  t->cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
  t->n_ref = (uint64_t)-1;
  return t->cover == MAP_FAILED ? -1 : 0;
}

/* The program's module registered again: its table is read anew. */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
static void reload_table(void) {
  struct ucov_dormant_module m = {__ehdr_start, 0, 0, 0, 0, 0};
  ucov_dormant_unregister(__ehdr_start);
  ucov_dormant_register(&m);
}

/* One traced call of work_traced(); 0 if it gave the reference's records.
 * live_reload: the table is replaced while the sites are live. */
static int tracer_cycle(struct tracer *t, const char *who, int live_reload) {
  if (ucov_ioctl(t->fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0) {
    perror("KCOV_ENABLE");
    return -1;
  }
  if (live_reload)
    reload_table();
  __atomic_store_n(&t->cover[0], 0, __ATOMIC_RELAXED);
  long r = work_traced(7);
  uint64_t n = __atomic_load_n(&t->cover[0], __ATOMIC_RELAXED);
  if (ucov_ioctl(t->fd, KCOV_DISABLE, 0) != 0) {
    perror("KCOV_DISABLE");
    return -1;
  }
  if (r != work_expected(7) || n == 0 || n >= WORDS) {
    fprintf(stderr, "%s: traced call gave %ld (%ld) and %llu records\n", who, r, work_expected(7),
            (unsigned long long)n);
    return -1;
  }
  if (t->n_ref == (uint64_t)-1) {
    memcpy(t->ref, t->cover + 1, n * 8);
    t->n_ref = n;
    return 0;
  }
  if (n != t->n_ref || memcmp(t->ref, t->cover + 1, n * 8)) {
    fprintf(stderr, "%s: %llu records, the first call had %llu\n", who, (unsigned long long)n,
            (unsigned long long)t->n_ref);
    return -1;
  }
  return 0;
}

static void *worker(void *arg) {
  long id = (long)arg, rounds = 0;
  struct tracer t;
  if (worker_trace && tracer_open(&t) != 0) {
    perror("worker device");
    exit(1);
  }
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    long s = work_loop(200);
    if (s != expect_sum) {
      fprintf(stderr, "worker %ld: sum %ld, expected %ld\n", id, s, expect_sum);
      exit(1);
    }
    if (worker_trace && ++rounds % 8 == 0 && tracer_cycle(&t, "worker", 0) != 0)
      exit(1);
  }
  return NULL;
}

/* A worker's REMOTE section for handle REMOTE_HANDLE: the traced call. */
#define REMOTE_HANDLE kcov_remote_handle(KCOV_SUBSYSTEM_USB, 42)
static void *remote_worker(void *arg) {
  (void)arg;
  if (ucov_remote_start(REMOTE_HANDLE) != 0)
    exit(1);
  long r = work_traced(7);
  ucov_remote_stop();
  if (r != work_expected(7))
    exit(1);
  return NULL;
}

/* KCOV_REMOTE_ENABLE is an enable too: the records of a worker's section
 * of the traced call (a dormant build's must be a plain build's). */
static long remote_records(void) {
  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, WORDS) != 0)
    return -1;
  uint64_t *cover = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  uint64_t buf[sizeof(struct kcov_remote_arg) / 8 + 2] = {0}; /* the argument, one handle */
  struct kcov_remote_arg *ra = (struct kcov_remote_arg *)buf;
  ra->trace_mode = KCOV_TRACE_PC;
  ra->area_size = WORDS;
  ra->num_handles = 1;
  ra->handles[0] = REMOTE_HANDLE;
  if (cover == MAP_FAILED || ucov_ioctl(fd, KCOV_REMOTE_ENABLE, (unsigned long)ra) != 0)
    return -1;
  pthread_t w;
  pthread_create(&w, NULL, remote_worker, NULL);
  pthread_join(w, NULL);
  long n = (long)__atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
  ucov_ioctl(fd, KCOV_DISABLE, 0);
  ucov_close(fd);
  return n;
}

/* Enable a device of its own and end without disabling it. */
static void *trace_and_exit(void *arg) {
  (void)arg;
  struct tracer t;
  if (tracer_open(&t) != 0 || ucov_ioctl(t.fd, KCOV_ENABLE, KCOV_TRACE_PC) != 0)
    exit(1);
  if (work_traced(3) != work_expected(3))
    exit(1);
  return NULL;
}

static void wait_line(const char *say) {
  char line[16];
  printf("%s\n", say);
  fflush(stdout);
  if (!fgets(line, sizeof(line), stdin))
    exit(1);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  cycles = atoi(argv[1]);
  n_workers = atoi(argv[2]);
  for (int i = 3; i < argc; i++) {
    own_trap |= !strcmp(argv[i], "own-trap");
    worker_trace |= !strcmp(argv[i], "worker-trace");
    pause_points |= !strcmp(argv[i], "pause");
    remote |= !strcmp(argv[i], "remote");
    reload |= !strcmp(argv[i], "reload");
  }
  if (own_trap)
    signal(SIGTRAP, on_trap);
  expect_sum = work_loop(200);
  pthread_t th[16];
  for (long i = 0; i < n_workers && i < 16; i++)
    pthread_create(&th[i], NULL, worker, (void *)i);
  struct tracer t;
  if (tracer_open(&t) != 0) {
    perror("device");
    return 1;
  }
  long want_traps = 0;
  for (int c = 0; c < cycles; c++) {
    if (pause_points && c == 0) {
      ucov_ioctl(t.fd, KCOV_ENABLE, KCOV_TRACE_PC);
      wait_line("live");
      ucov_ioctl(t.fd, KCOV_DISABLE, 0);
    }
    if (reload && c % 2)
      reload_table();
    if (tracer_cycle(&t, "main", reload && c % 2 == 0) != 0)
      return 1;
    if (own_trap && c % 16 == 0) {
      raise(SIGTRAP);
      __asm__ volatile("int3");
      want_traps += 2;
      if (own_traps != want_traps) {
        fprintf(stderr, "own SIGTRAP handler: %ld traps, expected %ld\n", own_traps, want_traps);
        return 1;
      }
    }
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  for (long i = 0; i < n_workers && i < 16; i++)
    pthread_join(th[i], NULL);
  if (pause_points) {
    /* the last device goes with its thread, which never disables it */
    pthread_t last;
    pthread_create(&last, NULL, trace_and_exit, NULL);
    pthread_join(last, NULL);
    wait_line("dormant");
  }
  if (remote)
    printf("remote: %ld records\n", remote_records());
  printf("stress: %d cycles, %llu records each, %d workers, %ld own traps\n", cycles,
         (unsigned long long)t.n_ref, n_workers, own_traps);
  return 0;
}
