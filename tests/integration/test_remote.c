/* SPDX-License-Identifier: MIT */
/*
 * KCOV_REMOTE_ENABLE and ucov_remote_start/stop: Linux's errors, workers
 * attributing coverage to the right client, common-handle inheritance through
 * pthread_create and fork, sections discarded by DISABLE, no nesting.
 * Linked with -Wl,--wrap=pthread_create (and the defsym naming the runtime's
 * ucov_pthread_create), as `ucov cc` links programs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "../testlib.h"
#include "target.h"
#include "ucov/ucov.h"

#define SIZE 8192
#define H_A kcov_remote_handle(KCOV_SUBSYSTEM_USB, 1)
#define H_B kcov_remote_handle(KCOV_SUBSYSTEM_USB, 2)
#define H_COMMON kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 7)

/* KCOV_REMOTE_ENABLE with a struct kcov_remote_arg built as a KCOV client does. */
static int remote_enable(int fd, uint32_t mode, uint32_t area, uint32_t n, const uint64_t *handles,
                         uint64_t common) {
  struct kcov_remote_arg *arg = calloc(1, sizeof(*arg) + (size_t)n * sizeof(uint64_t));
  arg->trace_mode = mode;
  arg->area_size = area;
  arg->num_handles = n;
  arg->common_handle = common;
  for (uint32_t i = 0; i < n; i++)
    arg->handles[i] = handles[i];
  int ret = ucov_ioctl(fd, KCOV_REMOTE_ENABLE, (unsigned long)arg);
  int err = errno;
  free(arg);
  errno = err;
  return ret;
}

static int new_device(uint64_t **buf) {
  int fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, SIZE));
  *buf = map_buffer(fd, SIZE);
  return fd;
}

/* On another thread (this one is bound): h[4] is free, h[5] is taken. */
static void *register_elsewhere(void *arg) {
  int fd2 = *(int *)arg;
  uint64_t hs[2] = {kcov_remote_handle(KCOV_SUBSYSTEM_USB, 104),
                    kcov_remote_handle(KCOV_SUBSYSTEM_USB, 105)};
  CHECK_ERRNO(remote_enable(fd2, KCOV_TRACE_PC, 512, 2, hs, 0), EEXIST);
  /* h[4] was not left registered by the failed call: it can be taken alone. */
  CHECK_OK(remote_enable(fd2, KCOV_TRACE_PC, 512, 1, hs, 0));
  CHECK_OK(ucov_ioctl(fd2, KCOV_DISABLE, 0));
  return NULL;
}

static void test_errors(void) {
  uint64_t *buf, *buf2;
  int fd = ucov_open();
  uint64_t h[KCOV_REMOTE_MAX_HANDLES + 1];
  for (int i = 0; i <= KCOV_REMOTE_MAX_HANDLES; i++)
    h[i] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, (uint64_t)i + 100);
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, h, 0), EINVAL); /* before INIT */
  ucov_close(fd);
  fd = new_device(&buf);
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, KCOV_REMOTE_MAX_HANDLES + 1, h, 0), EINVAL);
  uint64_t bad = 0x0000000100000001ull; /* bits 32-55 set */
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &bad, 0), EINVAL);
  uint64_t common_in_list = H_COMMON;
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &common_in_list, 0), EINVAL);
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, h, H_A), EINVAL); /* common must be COMMON */
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 1, h, 0)); /* no common handle is fine */
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC_EXT, 512, 1, h, 0), EINVAL);
  CHECK_ERRNO(remote_enable(fd, 9, 512, 1, h, 0), EINVAL);
  /* Any area size, as kcov.c (it refuses only > LONG_MAX / 8, beyond a u32);
   * sections of fewer than 2 words record nothing. */
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 1, 1, h, 0));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 1u << 30, 1, h, 0));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  /* A handle of a subsystem that does not exist (only COMMON and USB do). */
  uint64_t unknown = kcov_remote_handle(0x02ull << 56, 1);
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &unknown, 0), EINVAL);
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, KCOV_REMOTE_MAX_HANDLES, h, H_COMMON));
  CHECK_ERRNO(remote_enable(fd, KCOV_TRACE_PC, 512, 1, h, 0), EINVAL); /* already enabled */
  int fd2 = new_device(&buf2);
  CHECK_ERRNO(ucov_ioctl(fd2, KCOV_ENABLE, KCOV_TRACE_PC), EBUSY); /* this thread is bound */
  CHECK_ERRNO(remote_enable(fd2, KCOV_TRACE_PC, 512, 1, h, 0), EBUSY);
  CHECK_EQ(ucov_common_handle(), H_COMMON);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_EQ(ucov_common_handle(), 0);
  /* A handle another device holds: EEXIST, and nothing of that call stays. */
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &h[5], 0));
  pthread_t th;
  pthread_create(&th, NULL, register_elsewhere, &fd2);
  pthread_join(th, NULL);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(fd2);
  ucov_close(fd);
  munmap(buf, SIZE * 8);
  munmap(buf2, SIZE * 8);
}

/* A worker pool: requests carry a client's handle and what to run. */
struct request {
  uint64_t handle;
  int (*fn)(int);
};
static struct request queue[64];
static int q_head, q_tail, q_done;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&q_lock);
    while (q_head == q_tail && !q_done)
      pthread_cond_wait(&q_cond, &q_lock);
    if (q_head == q_tail) {
      pthread_mutex_unlock(&q_lock);
      return NULL;
    }
    struct request r = queue[q_head++ % 64];
    pthread_mutex_unlock(&q_lock);
    CHECK_EQ(ucov_remote_start(r.handle), 0);
    r.fn(50);
    ucov_remote_stop();
  }
}

struct client {
  uint64_t handle;
  int (*fn)(int);
  uint64_t *buf;
  pthread_barrier_t *ready;
};

static void *client_main(void *arg) {
  struct client *c = arg;
  int fd = new_device(&c->buf);
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 1024, 1, &c->handle, 0));
  pthread_barrier_wait(c->ready);
  for (int i = 0; i < 20; i++) {
    pthread_mutex_lock(&q_lock);
    queue[q_tail++ % 64] = (struct request){c->handle, c->fn};
    pthread_cond_signal(&q_cond);
    pthread_mutex_unlock(&q_lock);
    usleep(1000);
  }
  pthread_barrier_wait(c->ready); /* until the workers are done */
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(fd);
  return NULL;
}

static uint64_t count_in(const uint64_t *buf, const char *name) {
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE), k = 0;
  for (uint64_t i = 0; i < n; i++)
    k += pc_in(buf[i + 1], name);
  return k;
}

static void test_pool(void) {
  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, 3);
  struct client c[2] = {{H_A, tgt_thread_a, NULL, &ready}, {H_B, tgt_thread_b, NULL, &ready}};
  pthread_t ct[2], wt[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&ct[i], NULL, client_main, &c[i]);
  pthread_barrier_wait(&ready); /* handles registered */
  for (int i = 0; i < 2; i++)
    pthread_create(&wt[i], NULL, worker, NULL);
  while (1) { /* let the clients queue all 40 requests */
    pthread_mutex_lock(&q_lock);
    int queued = q_tail;
    pthread_mutex_unlock(&q_lock);
    if (queued == 40)
      break;
    usleep(1000);
  }
  pthread_mutex_lock(&q_lock);
  q_done = 1;
  pthread_cond_broadcast(&q_cond);
  pthread_mutex_unlock(&q_lock);
  for (int i = 0; i < 2; i++)
    pthread_join(wt[i], NULL);
  uint64_t na = __atomic_load_n(&c[0].buf[0], __ATOMIC_ACQUIRE);
  uint64_t nb = __atomic_load_n(&c[1].buf[0], __ATOMIC_ACQUIRE);
  CHECK(na > 20 && nb > 20);
  /* Each client has exactly the coverage of its own requests. */
  CHECK_EQ(count_in(c[0].buf, "tgt_thread_a"), na);
  CHECK_EQ(count_in(c[1].buf, "tgt_thread_b"), nb);
  /* 20 requests each, all sections the same size: the counts divide evenly. */
  CHECK_EQ(na % 20, 0);
  CHECK_EQ(nb % 20, 0);
  pthread_barrier_wait(&ready);
  for (int i = 0; i < 2; i++)
    pthread_join(ct[i], NULL);
  pthread_barrier_destroy(&ready);
  for (int i = 0; i < 2; i++)
    munmap(c[i].buf, SIZE * 8);
}

/* Many devices, each with KCOV_REMOTE_MAX_HANDLES handles: the registry's
 * hash table grows, loses every other device's entries, and each handle
 * still finds its own device. */
#define MANY_DEVS 12
#define MANY_HANDLES KCOV_REMOTE_MAX_HANDLES
static pthread_barrier_t many_step;
static uint64_t *many_buf[MANY_DEVS];

static uint64_t many_handle(int dev, int k) {
  return kcov_remote_handle(KCOV_SUBSYSTEM_USB, (uint64_t)dev * 1000 + (uint64_t)k + 1);
}

static void *many_client(void *arg) {
  int dev = (int)(intptr_t)arg;
  uint64_t *h = calloc(MANY_HANDLES, sizeof(*h));
  for (int k = 0; k < MANY_HANDLES; k++)
    h[k] = many_handle(dev, k);
  int fd = new_device(&many_buf[dev]);
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 1024, MANY_HANDLES, h, 0));
  pthread_barrier_wait(&many_step); /* registered */
  pthread_barrier_wait(&many_step); /* every handle checked */
  if (dev % 2)
    CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  pthread_barrier_wait(&many_step); /* the odd ones gone */
  pthread_barrier_wait(&many_step); /* checked again */
  if (dev % 2 == 0)
    CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(fd);
  free(h);
  return NULL;
}

/* A section for handle (dev, k): did it land in dev's buffer? */
static int many_section(int dev, int k) {
  uint64_t before = __atomic_load_n(&many_buf[dev][0], __ATOMIC_ACQUIRE);
  CHECK_EQ(ucov_remote_start(many_handle(dev, k)), 0);
  tgt_thread_a(1);
  ucov_remote_stop();
  return __atomic_load_n(&many_buf[dev][0], __ATOMIC_ACQUIRE) > before;
}

static void test_many_handles(void) {
  pthread_t t[MANY_DEVS];
  pthread_barrier_init(&many_step, NULL, MANY_DEVS + 1);
  for (int d = 0; d < MANY_DEVS; d++)
    pthread_create(&t[d], NULL, many_client, (void *)(intptr_t)d);
  pthread_barrier_wait(&many_step);
  int found = 0, kept = 0, gone = 0;
  for (int d = 0; d < MANY_DEVS; d++)
    for (int k = 0; k < MANY_HANDLES; k += 17)
      found += many_section(d, k);
  CHECK_EQ(found, MANY_DEVS * ((MANY_HANDLES + 16) / 17));
  pthread_barrier_wait(&many_step);
  pthread_barrier_wait(&many_step);
  for (int d = 0; d < MANY_DEVS; d++)
    for (int k = 0; k < MANY_HANDLES; k += 17)
      *(d % 2 ? &gone : &kept) += many_section(d, k);
  CHECK_EQ(kept, MANY_DEVS / 2 * ((MANY_HANDLES + 16) / 17));
  CHECK_EQ(gone, 0);
  pthread_barrier_wait(&many_step);
  for (int d = 0; d < MANY_DEVS; d++) {
    pthread_join(t[d], NULL);
    munmap(many_buf[d], SIZE * 8);
  }
  pthread_barrier_destroy(&many_step);
}

static void *inherited(void *arg) {
  uint64_t *seen = arg;
  *seen = ucov_common_handle();
  CHECK_EQ(ucov_remote_start(*seen), 0);
  tgt_leaf(5);
  ucov_remote_stop();
  return NULL;
}

static void test_inheritance(void) {
  uint64_t *buf;
  int fd = new_device(&buf);
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 0, NULL, H_COMMON));
  uint64_t seen = 0;
  pthread_t th;
  pthread_create(&th, NULL, inherited, &seen);
  pthread_join(th, NULL);
  CHECK_EQ(seen, H_COMMON);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE);
  CHECK(n >= 1);
  CHECK_EQ(count_in(buf, "tgt_leaf"), n);
  pid_t pid = fork();
  if (pid == 0)
    _exit(ucov_common_handle() == H_COMMON ? 0 : 1);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  /* After DISABLE new threads inherit nothing. */
  pthread_create(&th, NULL, inherited, &seen);
  pthread_join(th, NULL);
  CHECK_EQ(seen, 0);
  ucov_close(fd);
  munmap(buf, SIZE * 8);
}

static int disable_fd;
static pthread_barrier_t step;

static void *section_across_disable(void *arg) {
  (void)arg;
  CHECK_EQ(ucov_remote_start(H_A), 0);
  tgt_leaf(1);
  pthread_barrier_wait(&step); /* the owner disables now */
  pthread_barrier_wait(&step);
  tgt_leaf(2);
  ucov_remote_stop();
  return NULL;
}

static void *nested(void *arg) {
  (void)arg;
  CHECK_EQ(ucov_remote_start(H_A), 0);
  CHECK_EQ(ucov_remote_start(H_B), -1); /* sections do not nest */
  ucov_remote_stop();
  ucov_remote_stop(); /* a stop without a section does nothing */
  return NULL;
}

static void test_discard_and_nesting(void) {
  uint64_t *buf;
  int fd = new_device(&buf);
  uint64_t h = H_A;
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &h, 0));
  disable_fd = fd;
  pthread_barrier_init(&step, NULL, 2);
  pthread_t th;
  pthread_create(&th, NULL, section_across_disable, NULL);
  pthread_barrier_wait(&step);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  pthread_barrier_wait(&step);
  pthread_join(th, NULL);
  CHECK_EQ(buf[0], 0); /* discarded, not written into a disabled buffer */
  pthread_barrier_destroy(&step);

  /* No nesting; not while tracing; an unknown handle collects nothing. */
  int other = ucov_open();
  CHECK_OK(ucov_ioctl(other, KCOV_INIT_TRACE, 64));
  CHECK_EQ(ucov_remote_start(kcov_remote_handle(KCOV_SUBSYSTEM_USB, 99)), 0);
  ucov_remote_stop();
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &h, 0));
  CHECK_EQ(ucov_remote_start(H_A), -1); /* this thread is bound to a device */
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  CHECK_OK(ucov_ioctl(other, KCOV_ENABLE, KCOV_TRACE_PC));
  CHECK_EQ(ucov_remote_start(H_A), -1); /* this thread traces itself */
  CHECK_OK(ucov_ioctl(other, KCOV_DISABLE, 0));
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 512, 1, &h, 0));
  pthread_create(&th, NULL, nested, NULL);
  pthread_join(th, NULL);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(other);
  ucov_close(fd);
  munmap(buf, SIZE * 8);
}

static void *cmp_section(void *arg) {
  (void)arg;
  ucov_remote_start(H_B);
  tgt_cmp_const8(0x47);
  ucov_remote_stop();
  return NULL;
}

static void *leaf_section(void *arg) {
  (void)arg;
  ucov_remote_start(H_A);
  for (int i = 0; i < 4; i++)
    tgt_leaf(i);
  ucov_remote_stop();
  return NULL;
}

static void test_cmp_and_overflow(void) {
  uint64_t *buf;
  int fd = new_device(&buf);
  uint64_t h = H_B;
  CHECK_OK(remote_enable(fd, KCOV_TRACE_CMP, 64, 1, &h, 0));
  pthread_t th;
  pthread_create(&th, NULL, cmp_section, NULL);
  pthread_join(th, NULL);
  uint64_t n = __atomic_load_n(&buf[0], __ATOMIC_ACQUIRE);
  int found = 0;
  for (uint64_t i = 0; i < n; i++)
    found |= buf[1 + i * 4] == (KCOV_CMP_SIZE(0) | KCOV_CMP_CONST) && buf[2 + i * 4] == 0x5a &&
             buf[3 + i * 4] == 0x47;
  CHECK(found);
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(fd);
  munmap(buf, SIZE * 8);
  /* A small device: sections fill it and stop there, count consistent. */
  fd = ucov_open();
  CHECK_OK(ucov_ioctl(fd, KCOV_INIT_TRACE, 16));
  buf = map_buffer(fd, 16);
  h = H_A;
  CHECK_OK(remote_enable(fd, KCOV_TRACE_PC, 1024, 1, &h, 0));
  for (int i = 0; i < 3; i++) {
    pthread_create(&th, NULL, leaf_section, NULL);
    pthread_join(th, NULL);
  }
  CHECK_EQ(buf[0], 15);
  for (int i = 1; i < 16; i++)
    CHECK(pc_in(buf[i], "tgt_leaf"));
  CHECK_OK(ucov_ioctl(fd, KCOV_DISABLE, 0));
  ucov_close(fd);
  munmap(buf, 16 * 8);
}

int main(void) {
  test_errors();
  test_pool();
  test_many_handles();
  test_inheritance();
  test_discard_and_nesting();
  test_cmp_and_overflow();
  return check_report("test_remote");
}
