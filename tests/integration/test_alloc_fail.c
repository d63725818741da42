/* SPDX-License-Identifier: MIT */
/*
 * An allocation-failure port: the runtime is linked with malloc, calloc and
 * realloc wrapped (-Wl,--wrap), and each path that allocates runs once for
 * every N with its Nth allocation failing, until a run has no Nth: devices
 * (open, INIT_TRACE, mmap, ENABLE), baselines (reset, read-and-reset,
 * snapshot and commit of a gcov unit), REMOTE handle entries, and replies
 * (requests served into a growing buffer). Each failure must be a clear error
 * (ENOMEM, or an error status), never a crash, and must lose no count: what a
 * failed reset leaves is exactly what was there; a later clean run works.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "posix/memsink.h"
#include "ucov/port/frame.h"
#include "ucov/kcov.h"
#include "ucov/port/objects.h"
#include "ucov/port/port.h"
#include "ucov/ucov.h"

int alloc_work(int n);
#ifdef UCOV_TEST_PGO
int alloc_pgo_work(int n);
#endif

/* ---- the failing allocator ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

static int fail_at; /* armed: the fail_at-th allocation from now fails */
static int seen;    /* allocations since arming */
static int failed;  /* the armed failure happened */

/* Fail this allocation? As libc's do, a failure sets errno. */
static int hit(void) {
  if (!__atomic_load_n(&fail_at, __ATOMIC_ACQUIRE))
    return 0;
  if (__atomic_add_fetch(&seen, 1, __ATOMIC_ACQ_REL) != __atomic_load_n(&fail_at, __ATOMIC_ACQUIRE))
    return 0;
  __atomic_store_n(&failed, 1, __ATOMIC_RELEASE);
  errno = ENOMEM;
  return 1;
}

void *__wrap_malloc(size_t n) {
  return hit() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n) {
  return hit() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n) {
  return hit() ? NULL : __real_realloc(p, n);
}

static void arm(int n) {
  __atomic_store_n(&seen, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&failed, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&fail_at, n, __ATOMIC_RELEASE);
}

/* Disarm; did the armed failure happen? */
static int disarm(void) {
  __atomic_store_n(&fail_at, 0, __ATOMIC_RELEASE);
  return __atomic_load_n(&failed, __ATOMIC_ACQUIRE);
}

#define MAX_N 64 /* no path here makes more allocations than this */

/* ---- devices ---- */

/* open, INIT_TRACE, mmap, ENABLE, trace, DISABLE: 0 with PCs, or -1 with errno ENOMEM. */
static int device_run(int *pcs) {
  int fd = ucov_open(), ret = -1;
  uint64_t *buf = MAP_FAILED;
  *pcs = 0;
  if (fd < 0)
    return -1;
  if (ucov_ioctl(fd, KCOV_INIT_TRACE, 1024) == 0 &&
      (buf = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) != MAP_FAILED &&
      ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC) == 0) {
    __atomic_store_n(&buf[0], 0, __ATOMIC_RELAXED);
    alloc_work(10);
    *pcs = (int)__atomic_load_n(&buf[0], __ATOMIC_RELAXED);
    ucov_ioctl(fd, KCOV_DISABLE, 0);
    ret = 0;
  }
  int e = errno;
  if (buf != MAP_FAILED)
    munmap(buf, 1024 * 8);
  ucov_close(fd);
  errno = e;
  return ret;
}

static void test_devices(void) {
  int n = 1, pcs;
  for (; n <= MAX_N; n++) {
    arm(n);
    int r = device_run(&pcs);
    int e = errno;
    if (!disarm()) {
      CHECK(r == 0 && pcs > 0); /* no Nth allocation: the whole run worked */
      break;
    }
    if (r != 0)
      CHECK_EQ(e, ENOMEM);
    else
      CHECK(pcs > 0); /* the failure was absorbed (a later retry) */
  }
  CHECK(n <= MAX_N);
  CHECK(device_run(&pcs) == 0 && pcs > 0);
}

/* ---- baselines ---- */

static char unit[UCOV_OBJECT_NAME_MAX];
static int (*work)(int n) = alloc_work;

/* The first object whose name starts with arg ("gcov/" with alloc_work in it). */
static int find_unit(const char *name, uint64_t size, void *arg) {
  (void)size;
  const char *prefix = arg;
  if (!unit[0] && strncmp(name, prefix, strlen(prefix)) == 0 &&
      (strcmp(prefix, "gcov/") != 0 || strstr(name, "alloc_work")))
    snprintf(unit, sizeof(unit), "%s", name);
  return 0;
}

/* A plain read of the unit (unarmed); caller frees. */
static struct ucov_mem_sink read_unit(void) {
  struct ucov_mem_sink s;
  ucov_mem_sink_init(&s);
  CHECK_EQ(ucov_object_read(unit, &s.sink, 0), 0);
  return s;
}

static int same(const struct ucov_mem_sink *a, const struct ucov_mem_sink *b) {
  return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

enum how { RESET, READ_AND_RESET, SNAPSHOT_COMMIT };

/* One reset of the unit by `how`, its Nth allocation failing. 1 if there was an Nth. */
static int baseline_round(enum how how, int n, const struct ucov_mem_sink *zero) {
  work(7);
  struct ucov_mem_sink before = read_unit(), got;
  ucov_mem_sink_init(&got);
  uint64_t token = 0;
  arm(n);
  int r = how == RESET            ? ucov_object_reset(unit)
          : how == READ_AND_RESET ? ucov_object_read(unit, &got.sink, 1)
                                  : ucov_object_snapshot(unit, &got.sink, &token);
  int hit_n = disarm();
  if (how == SNAPSHOT_COMMIT && r == 0)
    r = ucov_objects_commit(token, 1);
  struct ucov_mem_sink after = read_unit();
  if (r == 0) {
    CHECK(same(&after, zero)); /* reset: nothing since */
    if (how == READ_AND_RESET)
      CHECK(same(&got, &before)); /* what was read is what was there */
    if (how == SNAPSHOT_COMMIT)
      CHECK(got.len == before.len + 8 && memcmp(got.data + 8, before.data, before.len) == 0);
  } else {
    CHECK_EQ(-r, ENOMEM);
    CHECK(same(&after, &before)); /* a failed reset loses nothing */
  }
  ucov_mem_sink_free(&before);
  ucov_mem_sink_free(&got);
  ucov_mem_sink_free(&after);
  return hit_n;
}

/* The baselines of the first object named prefix... */
static void test_baselines(const char *prefix) {
  unit[0] = 0;
  CHECK_EQ(ucov_objects_list(find_unit, (void *)prefix), 0);
  CHECK(unit[0] != 0);
  if (!unit[0])
    return;
  CHECK_EQ(ucov_object_reset(unit), 0);
  struct ucov_mem_sink zero = read_unit();
  for (enum how how = RESET; how <= SNAPSHOT_COMMIT; how++) {
    int n = 1;
    while (n <= MAX_N && baseline_round(how, n, &zero))
      n++;
    CHECK(n <= MAX_N);
  }
  ucov_mem_sink_free(&zero);
}

/* ---- REMOTE handle entries ---- */

static void test_remote(void) {
  int fd = ucov_open();
  CHECK(fd >= 0 && ucov_ioctl(fd, KCOV_INIT_TRACE, 1024) == 0);
  uint64_t *buf = ucov_mmap(NULL, 1024 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(buf != MAP_FAILED);
  /* Built before arming, as a KCOV client builds it (not the runtime's allocation). */
  uint64_t words[(sizeof(struct kcov_remote_arg) + 2 * sizeof(uint64_t)) / 8 + 1] = {0};
  struct kcov_remote_arg *arg = (struct kcov_remote_arg *)words;
  arg->trace_mode = KCOV_TRACE_PC;
  arg->area_size = 512;
  arg->num_handles = 2;
  arg->common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 7);
  arg->handles[0] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 1);
  arg->handles[1] = kcov_remote_handle(KCOV_SUBSYSTEM_USB, 2);
  int n = 1;
  for (; n <= MAX_N; n++) {
    arm(n);
    int r = ucov_ioctl(fd, KCOV_REMOTE_ENABLE, (unsigned long)arg);
    int e = errno;
    int hit_n = disarm();
    if (r != 0) {
      CHECK_EQ(e, ENOMEM);
      /* Nothing half-registered: the same handles register now. */
      CHECK(ucov_ioctl(fd, KCOV_REMOTE_ENABLE, (unsigned long)arg) == 0);
    }
    CHECK(ucov_ioctl(fd, KCOV_DISABLE, 0) == 0);
    if (!hit_n)
      break;
  }
  CHECK(n <= MAX_N);
  if (buf != MAP_FAILED)
    munmap(buf, 1024 * 8);
  ucov_close(fd);
}

/* ---- replies ---- */

static uint32_t serve(uint16_t op, const char *name, struct ucov_mem_sink *out) {
  struct ucov_frame f = {UCOV_PROTO_MAGIC, UCOV_PROTO_VERSION, op, 0,
                         name ? (uint32_t)strlen(name) : 0};
  uint8_t e[4];
  return ucov_serve(&f, name ? name : "", &out->sink, e);
}

static void test_replies(void) {
  static const struct {
    uint16_t op;
    const char *name;
  } reqs[] = {
      {UCOV_OP_LIST, NULL}, {UCOV_OP_READ, unit}, {UCOV_OP_MODULES, NULL}, {UCOV_OP_INFO, NULL}};
  for (size_t k = 0; k < sizeof(reqs) / sizeof(reqs[0]); k++) {
    struct ucov_mem_sink ref;
    ucov_mem_sink_init(&ref);
    CHECK_EQ(serve(reqs[k].op, reqs[k].name, &ref), UCOV_ST_OK);
    int n = 1;
    for (; n <= MAX_N; n++) {
      struct ucov_mem_sink out;
      ucov_mem_sink_init(&out);
      arm(n);
      uint32_t st = serve(reqs[k].op, reqs[k].name, &out);
      int hit_n = disarm();
      if (st == UCOV_ST_OK) /* the whole reply, as the clean one */
        CHECK(reqs[k].op == UCOV_OP_INFO ||
              (out.len == ref.len && !memcmp(out.data, ref.data, ref.len)));
      else
        CHECK(st == UCOV_ST_INTERNAL || st == UCOV_ST_ERRNO); /* an error reply, not a crash */
      ucov_mem_sink_free(&out);
      if (!hit_n)
        break;
    }
    CHECK(n <= MAX_N);
    ucov_mem_sink_free(&ref);
  }
}

int main(void) {
  test_devices();
  test_baselines("gcov/");
#ifdef UCOV_TEST_PGO
  work = alloc_pgo_work;
  test_baselines("pgo/"); /* an LLVM profile: counters, value nodes */
  work = alloc_work;
  unit[0] = 0;
  ucov_objects_list(find_unit, (void *)"gcov/");
#endif
  test_remote();
  test_replies();
  return check_report("test_alloc_fail");
}
