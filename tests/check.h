/* SPDX-License-Identifier: MIT */
/* A tiny test harness: CHECK() records a failure and goes on; main returns the verdict. */
#ifndef UCOV_TESTS_CHECK_H
#define UCOV_TESTS_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    __atomic_fetch_add(&check_count, 1, __ATOMIC_RELAXED);                                         \
    if (!(cond)) {                                                                                 \
      __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_EQ(a, b)                                                                             \
  do {                                                                                             \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b);                 \
    __atomic_fetch_add(&check_count, 1, __ATOMIC_RELAXED);                                         \
    if (a_ != b_) {                                                                                \
      __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (0x%llx != 0x%llx)\n", __FILE__, __LINE__, \
              #a, #b, a_, b_);                                                                     \
    }                                                                                              \
  } while (0)

/* A call that must fail with errno e. */
#define CHECK_ERRNO(call, e)                                                                       \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long r_ = (long)(call);                                                                        \
    int e_ = errno;                                                                                \
    __atomic_fetch_add(&check_count, 1, __ATOMIC_RELAXED);                                         \
    if (r_ != -1 || e_ != (e)) {                                                                   \
      __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "%s:%d: %s: want -1/%s, got %ld/%s\n", __FILE__, __LINE__, #call, #e, r_,    \
              strerror(e_));                                                                       \
    }                                                                                              \
  } while (0)

#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long r_ = (long)(call);                                                                        \
    __atomic_fetch_add(&check_count, 1, __ATOMIC_RELAXED);                                         \
    if (r_ != 0) {                                                                                 \
      __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED);                                    \
      fprintf(stderr, "%s:%d: %s: want 0, got %ld (%s)\n", __FILE__, __LINE__, #call, r_,          \
              strerror(errno));                                                                    \
    }                                                                                              \
  } while (0)

static inline int check_report(const char *name) {
  printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures ? 1 : 0;
}

#endif
