/* SPDX-License-Identifier: MIT */
/*
 * A bounded fuzzer of ucov.ko, run in the guest (tests/kernel/linux.sh),
 * which then checks the kernel log and taint: for SECONDS seconds,
 *  - two threads write random and mutated /dev/ucov frames (in one write or
 *    several, sometimes closing mid-request) and read what comes back;
 *  - two threads make random ioctls on kcov descriptors (INIT_TRACE,
 *    ENABLE, UNIQUE_ENABLE, RESET_TRACE, DISABLE, REMOTE_ENABLE with random
 *    modes, area sizes, handle counts and handles, unknown commands) with
 *    mmaps of random lengths and offsets, and munmap or close while enabled;
 *  - one thread races: forked children and threads that enable and exit or
 *    are killed while tracing reads of the demo device, devices closed and
 *    unmapped by one thread while another traces into them, and REMOTE
 *    work ('&' expressions) for a common handle being disabled meanwhile.
 * Prints "fuzz FRAMES IOCTLS RACES" at the end.
 * usage: kcov_fuzz SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ucov/kcov.h"
#include "ucov/port/frame.h"

#define KCOV "/sys/kernel/debug/kcov"

static volatile int stop;
static long frames, ioctls, races;

static uint64_t rnd(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

/* A request: a valid frame of a random op with a plausible payload, then
 * mutated (bytes flipped, lengths changed, cut short) or replaced by noise. */
static size_t make_frame(uint64_t *s, uint8_t *buf, size_t cap) {
  static const char *names[] = {"modules", "reset", "gcov/", "kcov/0.kcov", "pgo/x.profraw", ""};
  size_t len = 16;
  uint16_t op = (uint16_t)(1 + rnd(s) % 14);
  const char *name = names[rnd(s) % 6];
  if (op == 11 || op == 12) { /* token first */
    uint64_t tok = rnd(s) % 4;
    memcpy(buf + len, &tok, 8);
    len += 8;
    if (op == 12) {
      ucov_put32(buf + len, (uint32_t)rnd(s));
      len += 4;
    }
  }
  if (op != 12) {
    size_t n = strlen(name);
    memcpy(buf + len, name, n);
    len += n;
    if (rnd(s) % 4 == 0) { /* a long or binary name */
      size_t extra = rnd(s) % 600;
      for (size_t i = 0; i < extra && len < cap; i++)
        buf[len++] = (uint8_t)(rnd(s) % 3 ? 'a' + rnd(s) % 26 : rnd(s));
    }
  }
  ucov_put32(buf, UCOV_PROTO_MAGIC);
  buf[4] = UCOV_PROTO_VERSION, buf[5] = 0;
  buf[6] = (uint8_t)op, buf[7] = (uint8_t)(op >> 8);
  ucov_put32(buf + 8, 0);
  ucov_put32(buf + 12, (uint32_t)(len - 16));
  switch (rnd(s) % 6) {
  case 0: /* noise */
    len = rnd(s) % cap;
    for (size_t i = 0; i < len; i++)
      buf[i] = (uint8_t)rnd(s);
    break;
  case 1: /* a byte flipped */
    buf[rnd(s) % len] ^= (uint8_t)(1u << rnd(s) % 8);
    break;
  case 2: /* a length that lies */
    ucov_put32(buf + 12, (uint32_t)rnd(s) >> (rnd(s) % 32));
    break;
  case 3: /* cut short */
    len = 1 + rnd(s) % len;
    break;
  default:
    break;
  }
  return len;
}

static void *frame_thread(void *arg) {
  uint64_t s = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
  uint8_t buf[1024], reply[4096];
  while (!stop) {
    int fd = open("/dev/ucov", O_RDWR);
    if (fd < 0)
      return NULL;
    for (int k = 0; k < 8 && !stop; k++) {
      size_t len = make_frame(&s, buf, sizeof(buf));
      size_t at = 0;
      while (at < len) { /* in one write or several */
        size_t part = rnd(&s) % 3 ? len - at : 1 + rnd(&s) % (len - at);
        if (write(fd, buf + at, part) < 0)
          break;
        at += part;
      }
      if (rnd(&s) % 2)
        while (read(fd, reply, rnd(&s) % 2 ? sizeof(reply) : 1 + rnd(&s) % 64) > 0 && rnd(&s) % 8)
          ;
      __atomic_add_fetch(&frames, 1, __ATOMIC_RELAXED);
      if (rnd(&s) % 16 == 0)
        break; /* closed mid-request, or with a reply unread */
    }
    close(fd);
  }
  return NULL;
}

static const unsigned long cmds[] = {KCOV_INIT_TRACE,    KCOV_ENABLE,        KCOV_DISABLE,
                                     KCOV_REMOTE_ENABLE, KCOV_UNIQUE_ENABLE, KCOV_RESET_TRACE};

/* A size a client might pass: small, page-sized, odd, huge. */
static uint64_t some_size(uint64_t *s) {
  switch (rnd(s) % 6) {
  case 0:
    return rnd(s) % 4;
  case 1:
    return 512u << (rnd(s) % 8);
  case 2:
    return rnd(s) % 100000;
  case 3:
    return (uint32_t)rnd(s);
  case 4:
    return 0x10000000u >> (rnd(s) % 4); /* 256M words and below */
  default:
    return rnd(s);
  }
}

static void *ioctl_thread(void *arg) {
  uint64_t s = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 7;
  struct {
    struct kcov_remote_arg a;
    uint64_t h[300];
  } r;
  while (!stop) {
    int fd = open(KCOV, O_RDWR);
    if (fd < 0)
      return NULL;
    void *map = MAP_FAILED;
    size_t map_len = 0;
    for (int k = 0; k < 16 && !stop; k++) {
      unsigned long cmd = rnd(&s) % 8 ? cmds[rnd(&s) % 6] : (unsigned long)rnd(&s);
      unsigned long a = (unsigned long)some_size(&s);
      if (cmd == KCOV_INIT_TRACE && rnd(&s) % 2)
        a = 512u << (rnd(&s) % 6);
      if (cmd == KCOV_ENABLE)
        a = rnd(&s) % 4;
      if (cmd == KCOV_REMOTE_ENABLE) {
        memset(&r, 0, sizeof(r));
        r.a.trace_mode = (uint32_t)(rnd(&s) % 4);
        r.a.area_size = (uint32_t)some_size(&s);
        r.a.num_handles = (uint32_t)(rnd(&s) % 4 ? rnd(&s) % 4 : rnd(&s) % 300);
        for (unsigned i = 0; i < 300; i++)
          r.h[i] = rnd(&s) % 2 ? kcov_remote_handle(KCOV_SUBSYSTEM_USB, rnd(&s) % 8) : rnd(&s);
        r.a.common_handle =
            rnd(&s) % 2 ? kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 1 + rnd(&s) % 8) : 0;
        a = (unsigned long)&r;
      }
      ioctl(fd, cmd, a);
      __atomic_add_fetch(&ioctls, 1, __ATOMIC_RELAXED);
      if (rnd(&s) % 4 == 0) {
        if (map != MAP_FAILED)
          munmap(map, map_len);
        map_len = rnd(&s) % 2 ? 4096u << (rnd(&s) % 6) : 1 + rnd(&s) % (1u << 22);
        off_t off = rnd(&s) % 8 ? 0 : 4096;
        map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
        if (map != MAP_FAILED && rnd(&s) % 2)
          __atomic_store_n((uint64_t *)map, 0, __ATOMIC_RELAXED);
      }
      if (rnd(&s) % 32 == 0)
        break; /* closed while enabled, or mapped */
    }
    close(fd);
    if (map != MAP_FAILED)
      munmap(map, map_len);
  }
  return NULL;
}

/* A tracing task's life: enable, read the demo device traced, end somehow. */
static void traced_reads(int fd, uint64_t *s) {
  if (ioctl(fd, KCOV_ENABLE, rnd(s) % 3))
    return;
  for (int i = 0; i < 4; i++) {
    int d = open("/dev/ucov-demo", O_RDWR);
    if (d >= 0) {
      char out[64];
      if (write(d, "1+2*(3-4)", 9) == 9 && read(d, out, sizeof(out)) < 0)
        break;
      close(d);
    }
  }
}

struct race {
  int fd;
  uint64_t seed;
};

static void *race_tracer(void *arg) {
  struct race *r = arg;
  traced_reads(r->fd, &r->seed); /* ends with the device enabled */
  return NULL;
}

static void *race_thread(void *arg) {
  uint64_t s = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 13;
  while (!stop) {
    int fd = open(KCOV, O_RDWR);
    if (fd < 0)
      return NULL;
    if (ioctl(fd, KCOV_INIT_TRACE, 4096)) {
      close(fd);
      continue;
    }
    uint64_t *c = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    switch (rnd(&s) % 4) {
    case 0: { /* a child enables, traces and exits or is killed */
      pid_t p = fork();
      if (p == 0) {
        traced_reads(fd, &s);
        _exit(0);
      }
      if (p > 0) {
        if (rnd(&s) % 2)
          kill(p, SIGKILL);
        waitpid(p, NULL, 0);
      }
      break;
    }
    case 1: { /* a thread enables and exits enabled; the device is unmapped and closed meanwhile */
      struct race r = {fd, rnd(&s)};
      pthread_t t;
      if (pthread_create(&t, NULL, race_tracer, &r) == 0) {
        if (rnd(&s) % 2 && c != MAP_FAILED)
          munmap(c, 4096 * 8), c = MAP_FAILED;
        pthread_join(t, NULL);
      }
      break;
    }
    default: { /* REMOTE work for a common handle, disabled at once or not */
      struct {
        struct kcov_remote_arg a;
        uint64_t h[1];
      } ra = {{KCOV_TRACE_PC, 512u << (rnd(&s) % 4), 0,
               kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x100 + (uintptr_t)arg)},
              {0}};
      if (ioctl(fd, KCOV_REMOTE_ENABLE, &ra) == 0) {
        int d = open("/dev/ucov-demo", O_WRONLY);
        if (d >= 0) {
          if (write(d, "&7*6", 4) < 0)
            break;
          close(d);
        }
        if (rnd(&s) % 2)
          ioctl(fd, KCOV_DISABLE, 0);
      }
      break;
    }
    }
    if (c != MAP_FAILED)
      munmap(c, 4096 * 8);
    close(fd);
    __atomic_add_fetch(&races, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 30;
  pthread_t t[6];
  void *(*fn[6])(void *) = {frame_thread, frame_thread, ioctl_thread,
                            ioctl_thread, race_thread,  race_thread};
  signal(SIGPIPE, SIG_IGN);
  for (uintptr_t i = 0; i < 6; i++)
    if (pthread_create(&t[i], NULL, fn[i], (void *)(i + 1)))
      perror("pthread_create"), exit(1);
  sleep(seconds);
  stop = 1;
  for (int i = 0; i < 6; i++)
    pthread_join(t[i], NULL);
  printf("fuzz %ld %ld %ld\n", frames, ioctls, races);
  return frames && ioctls && races ? 0 : 1;
}
