/* SPDX-License-Identifier: MIT */
/* Compiler attributes and barriers used by the freestanding core. */
#ifndef UCOV_COMPILER_H
#define UCOV_COMPILER_H

/*
 * UCOV_NOTRACE: never instrument this function, whatever flags the build
 * passes. The runtime is built without coverage flags anyway; this keeps a
 * hook from recursing into itself if someone compiles it with them.
 */
#if defined(__clang__)
#define UCOV_NOTRACE __attribute__((no_instrument_function, no_sanitize("coverage")))
#elif defined(__GNUC__) && __GNUC__ >= 12
#define UCOV_NOTRACE __attribute__((no_instrument_function, no_sanitize_coverage))
#else
#define UCOV_NOTRACE __attribute__((no_instrument_function))
#endif

/*
 * Thread-local storage the hooks can reach without a call: initial-exec in
 * position-independent code (no __tls_get_addr, which may allocate),
 * local-exec when the runtime is built for executables only (libucov.a).
 */
#ifndef UCOV_TLS_MODEL
#define UCOV_TLS_MODEL "initial-exec"
#endif
/* A port without threads or TLS (a kernel that switches the task state
 * itself) defines UCOV_THREAD_LOCAL empty: the state is then global. */
#ifndef UCOV_THREAD_LOCAL
#define UCOV_THREAD_LOCAL _Thread_local __attribute__((tls_model(UCOV_TLS_MODEL)))
#endif

/*
 * UCOV_NO_SANITIZER: no sanitizer instrumentation at all (not even TSan's
 * function entry), for code that runs in a new thread before a sanitizer's
 * own thread start has set the thread up (below its pthread_create
 * interceptor, as the KCOV shim's thread start is).
 */
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define UCOV_NO_SANITIZER __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#ifndef UCOV_NO_SANITIZER
#define UCOV_NO_SANITIZER
#endif

/*
 * UCOV_HIDDEN: the core's own declarations (src/core), never exported.
 * UCOV_PORT_API: a call the core offers a port (include/ucov/port): linked
 * into the same image as the port, so hidden too; a program never sees it.
 */
#define UCOV_HIDDEN __attribute__((visibility("hidden")))
#define UCOV_PORT_API __attribute__((visibility("hidden")))
#define UCOV_EXPORT __attribute__((visibility("default")))
#define UCOV_LIKELY(x) __builtin_expect(!!(x), 1)
#define UCOV_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UCOV_ALWAYS_INLINE inline __attribute__((always_inline))

/* Relaxed single-copy-atomic accesses (READ_ONCE/WRITE_ONCE in the kernel). */
#define UCOV_LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define UCOV_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/*
 * Live reads of counters that instrumented code updates without atomics (gcc's
 * default -fprofile-update=single): such reads race by design. An aligned
 * 64-bit load is never torn, and reading never writes the counter, so the
 * worst case is a value a few increments old. Functions doing them are not
 * TSan-instrumented, and the loads are plain volatile loads (TSan reports an
 * atomic load against a plain store even in such a function).
 */
#define UCOV_RACY_READS __attribute__((no_sanitize("thread")))
#define UCOV_LOAD_RACY(p) (*(volatile const __typeof__(*(p)) *)(p))

/*
 * Take a byte that instrumented code sets without atomics (MC/DC bitmaps):
 * an atomic exchange with 0, so a bit set meanwhile is never lost. TSan
 * reports any atomic against the program's plain stores, so its builds read
 * and clear with plain accesses instead (a bit set in between may be lost).
 */
#if defined(__SANITIZE_THREAD__)
#define UCOV_TSAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UCOV_TSAN_BUILD 1
#endif
#endif
#ifdef UCOV_TSAN_BUILD
#define UCOV_TAKE_RACY(p)                                                                          \
  __extension__({                                                                                  \
    __typeof__(*(p)) v_ = UCOV_LOAD_RACY(p);                                                       \
    *(volatile __typeof__(*(p)) *)(p) = 0;                                                         \
    v_;                                                                                            \
  })
#define UCOV_CLEAR_RACY(p, bits) (*(volatile __typeof__(*(p)) *)(p) &= (__typeof__(*(p)))~(bits))
#else
#define UCOV_TAKE_RACY(p) __atomic_exchange_n((p), 0, __ATOMIC_RELAXED)
/* Clear some bits of such a byte, keeping any other set meanwhile. */
#define UCOV_CLEAR_RACY(p, bits)                                                                   \
  __atomic_fetch_and((p), (__typeof__(*(p)))~(bits), __ATOMIC_RELAXED)
#endif

/*
 * A compiler barrier that also orders against a signal handler running on
 * this thread: the only concurrency a task's own hooks see.
 */
#define UCOV_SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#endif
