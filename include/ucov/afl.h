/* SPDX-License-Identifier: MIT */
/*
 * ucov/afl.h - AFL++'s source-level interface for a target built with
 * `ucov cc --afl`, which includes this header in every compile (-include),
 * as afl-cc defines the same macros on its command line. Targets written
 * for afl-clang-fast build unchanged:
 *
 *   __AFL_INIT()        start the fork server here (deferred), not before main
 *   __AFL_LOOP(n)       persistent mode: up to n inputs per process
 *   __AFL_FUZZ_INIT()   at file scope, once: the test case in shared memory
 *   __AFL_FUZZ_TESTCASE_BUF, __AFL_FUZZ_TESTCASE_LEN
 *                       the current input (from afl-fuzz's shared memory, or
 *                       read from stdin when the program runs on its own)
 *
 * The runtime's side of them (libucov-afl.a) is the one AFL++'s targets
 * call: __afl_persistent_loop, __afl_manual_init, __afl_fuzz_ptr and
 * __afl_fuzz_len. The signature strings tell afl-fuzz which modes the
 * binary has; they must stay in the program, hence the volatile stores.
 */
#ifndef UCOV_AFL_H
#define UCOV_AFL_H

#define __AFL_HAVE_MANUAL_CONTROL 1

#ifdef __cplusplus
#define UCOV_AFL_C_ "C"
#else
#define UCOV_AFL_C_
#endif

#define __AFL_LOOP(n)                                                                              \
  __extension__({                                                                                  \
    static volatile const char *ucov_afl_sig_ __attribute__((used, unused));                       \
    ucov_afl_sig_ = "##SIG_AFL_PERSISTENT##";                                                      \
    __attribute__((visibility("default"))) int ucov_afl_loop_(unsigned int) __asm__(               \
        "__afl_persistent_loop");                                                                  \
    ucov_afl_loop_(n);                                                                             \
  })

#define __AFL_INIT()                                                                               \
  do {                                                                                             \
    static volatile const char *ucov_afl_sig_ __attribute__((used, unused));                       \
    ucov_afl_sig_ = "##SIG_AFL_DEFER_FORKSRV##";                                                   \
    __attribute__((visibility("default"))) void ucov_afl_init_(void) __asm__("__afl_manual_init"); \
    ucov_afl_init_();                                                                              \
  } while (0)

/* The input: afl-fuzz's shared memory when it gives one, else up to 1 MiB
 * read from stdin once per call of __AFL_FUZZ_TESTCASE_LEN. */
#define __AFL_FUZZ_INIT()                                                                          \
  int __afl_sharedmem_fuzzing = 1;                                                                 \
  extern UCOV_AFL_C_ unsigned int *__afl_fuzz_len;                                                 \
  extern UCOV_AFL_C_ unsigned char *__afl_fuzz_ptr;                                                \
  unsigned char __afl_fuzz_alt[1 << 20];                                                           \
  unsigned char *__afl_fuzz_alt_ptr = __afl_fuzz_alt

#define __AFL_FUZZ_TESTCASE_BUF (__afl_fuzz_ptr ? __afl_fuzz_ptr : __afl_fuzz_alt_ptr)
#define __AFL_FUZZ_TESTCASE_LEN                                                                    \
  (__afl_fuzz_ptr                                                                                  \
       ? *__afl_fuzz_len                                                                           \
       : ((*__afl_fuzz_len = (unsigned int)read(0, __afl_fuzz_alt_ptr, 1 << 20)) == 0xffffffffu    \
              ? 0                                                                                  \
              : *__afl_fuzz_len))

#endif
