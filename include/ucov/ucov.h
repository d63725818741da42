/* SPDX-License-Identifier: MIT */
/*
 * ucov/ucov.h - the hosted C API of the ucov runtime (POSIX port).
 *
 * Trace devices follow Linux KCOV exactly; a KCOV client ports by replacing
 * open("/sys/kernel/debug/kcov") with ucov_open() and ioctl() with
 * ucov_ioctl(), or runs unchanged under LD_PRELOAD=libucov-kcov.so:
 *
 *     int fd = ucov_open();
 *     ucov_ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE);
 *     uint64_t *cover = mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE,
 *                            MAP_SHARED, fd, 0);
 *     ucov_ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC);
 *     __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
 *     code_under_test();
 *     uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
 *     for (uint64_t i = 0; i < n; i++) printf("0x%lx\n", cover[i + 1]);
 *     ucov_ioctl(fd, KCOV_DISABLE, 0);
 *     munmap(cover, COVER_SIZE * 8);
 *     ucov_close(fd);
 *
 * Code under test is built with `ucov cc --trace` (or the flags it prints with
 * -v). The runtime itself is never instrumented.
 */
#ifndef UCOV_UCOV_H
#define UCOV_UCOV_H

#include <stddef.h>
#include <stdint.h>
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
#include <sys/types.h>
#endif

#include "kcov.h"
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- devices */

/*
 * Open a new trace device. Returns a file descriptor (a memfd, close-on-exec)
 * or -1 with errno set. The fd can be passed to another process (SCM_RIGHTS,
 * fork): whoever maps it sees the same buffer. As a Linux task keeps its
 * kcov across exec, a thread that enabled a device and execs a program with
 * the ucov runtime keeps tracing into it from the program's first
 * constructor, if the descriptor survives the exec (clear FD_CLOEXEC, or open
 * the KCOV path under the shim, which does); the new program's inherited
 * descriptors are devices there too.
 */
int ucov_open(void);

/*
 * Apply a KCOV command to a device, with Linux's semantics and errno values
 * (cmd compares on its low 32 bits, as Linux's unsigned int request: a
 * number held in an int and sign-extended is the same request):
 *   KCOV_INIT_TRACE (arg = size in 64-bit words): EINVAL if size < 2 or
 *       size > INT_MAX / 8; EBUSY if already initialised; ENOMEM.
 *   KCOV_ENABLE (arg = KCOV_TRACE_PC, KCOV_TRACE_CMP or KCOV_TRACE_PC_EXT):
 *       binds the device to the calling thread. EINVAL before INIT_TRACE, if
 *       the device is already enabled (by any thread) or for an unknown mode;
 *       EBUSY if the calling thread already traces into another device.
 *   KCOV_DISABLE (arg = 0): EINVAL if arg != 0 or the calling thread is not
 *       the one that enabled this device.
 *   KCOV_UNIQUE_ENABLE (arg = bitmap words; a ucov mode, numbered as proposed
 *       for Linux): KCOV_TRACE_PC where each PC is appended once;
 *       the bitmap of arg * 64 bits takes buf[0..arg), the trace (count, PCs)
 *       follows. EINVAL before INIT_TRACE or if already enabled, or if arg is
 *       0 or leaves fewer than two words for the trace; EBUSY if the device or
 *       the calling thread already traces.
 *   KCOV_RESET_TRACE (arg ignored): clears the bitmap and the trace count of
 *       a UNIQUE device, the count of any other. EINVAL unless the calling
 *       thread traces into this device.
 *   KCOV_REMOTE_ENABLE (arg = struct kcov_remote_arg *): registers handles
 *       whose sections workers run with ucov_remote_start/stop; the calling
 *       thread is bound (busy) but records nothing itself, and its common
 *       handle passes to the threads it creates. EINVAL before INIT_TRACE,
 *       if already enabled, for a trace_mode other than PC or CMP, more than
 *       KCOV_REMOTE_MAX_HANDLES handles, a handle in handles[] not of USB (the
 *       only other subsystem), a common handle not of COMMON or of instance
 *       0, or bits 32-55 set in any handle; EBUSY if the device or the
 *       calling thread already traces; EEXIST if another device holds one of
 *       the handles; ENOMEM. area_size is taken as Linux takes it (any u32;
 *       fewer than two words record nothing).
 *   anything else: ENOTTY. A descriptor that is not a ucov device: ENOTTY;
 *       a closed one: EBADF.
 * Returns 0, or -1 with errno set.
 *
 * A thread that exits disables its device; a forked child does not trace
 * (coverage is per thread and is not inherited across fork).
 */
int ucov_ioctl(int fd, unsigned long cmd, unsigned long arg);

/*
 * mmap(2) for devices, with Linux kcov_mmap's checks: EINVAL before
 * KCOV_INIT_TRACE, for an offset other than 0, or when the length rounded up
 * to whole pages (the vma) is not size * 8 (so KCOV_INIT_TRACE of 1000 words
 * cannot be mapped, as on Linux); EACCES for a writable shared mapping of a
 * descriptor opened read-only; ENODEV if fd is not a ucov device. The mapping
 * is always shared. Plain mmap(2) with the right arguments works as well; it
 * just cannot check them.
 */
void *ucov_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);

/*
 * Close a descriptor of a device. As a Linux file, the device lives until its
 * last descriptor in this process is closed (dup, dup2, dup3 and F_DUPFD
 * copies keep it); a thread still tracing into it keeps doing so until it
 * disables or exits; then it is freed. A client's mapping outlives it all.
 * Returns close(2)'s result.
 */
int ucov_close(int fd);

/* --------------------------------------------------------------- remote */

/*
 * REMOTE coverage (KCOV_REMOTE_ENABLE): a worker brackets work it does on
 * behalf of a handle, and the coverage lands in the buffer of the device
 * that registered the handle. Start returns 0 (also when nobody registered
 * the handle: then nothing is collected) or -1 if the thread already traces
 * or is inside a section (sections do not nest). Stop appends the section to
 * that buffer (count published last, with release order), or discards it if
 * the device was disabled meanwhile. Neither allocates on a hook path.
 */
int ucov_remote_start(uint64_t handle);
void ucov_remote_stop(void);

/*
 * The calling thread's common handle: the one a KCOV_REMOTE_ENABLE on this
 * thread registered, inherited by the threads it creates (pthread_create in
 * code linked by `ucov cc`, or run under the KCOV shim) and the children it forks. 0 if none.
 */
uint64_t ucov_common_handle(void);

/*
 * Set the calling thread's common handle: what a thread-creation wrapper does
 * first in the new thread, with its creator's ucov_common_handle() (the KCOV
 * shim's pthread_create does, for clients not linked by `ucov cc`).
 */
void ucov_set_common_handle(uint64_t handle);

/*
 * KCOV_REMOTE_ENABLE in another process: register the handles of `arg` with
 * the running ucov target `pid`, for device fd (after KCOV_INIT_TRACE and
 * mmap here). The target maps the same pages, so the sections its workers run
 * for these handles are appended to fd's buffer. Returns a descriptor whose
 * lifetime is the registration's: close it (or exit) and the handles are
 * freed. -1 with errno: EINVAL, EEXIST (a handle another device holds) as for
 * KCOV_REMOTE_ENABLE; EBUSY; ESRCH (no such process); ECONNREFUSED (no
 * control socket there).
 */
#if !defined(__STDC_HOSTED__) || __STDC_HOSTED__
int ucov_remote_attach(pid_t pid, int fd, const struct kcov_remote_arg *arg);
#endif

/* ----------------------------------------------------------- module map */

/* One loadable segment of a module mapped into the process. */
struct ucov_module {
  uintptr_t start;         /* first address of the segment */
  uintptr_t end;           /* one past its last address */
  uint64_t offset;         /* file offset that start maps */
  uintptr_t bias;          /* load bias: ELF virtual address = address - bias */
  int prot;                /* PROT_READ | PROT_WRITE | PROT_EXEC of the segment */
  const char *path;        /* absolute path of the file (the executable's too) */
  const uint8_t *build_id; /* GNU build-id bytes, or NULL */
  size_t build_id_size;    /* their number */
};

/*
 * Call fn once for every loadable segment of every module of the process
 * (executable, shared libraries, vdso), in load order. Stops when fn returns
 * non-zero and returns that value; returns 0 otherwise.
 */
int ucov_modules(int (*fn)(const struct ucov_module *m, void *arg), void *arg);

/*
 * Write the module map as text to fd, one segment a line (format in
 * docs/formats.md):
 *     <start> <end> <offset> <bias> <r-x> <build-id|-> <path>
 * with hexadecimal numbers. Returns 0, or -1 with errno set.
 */
int ucov_modules_write(int fd);

/*
 * The runtime's version, "MAJOR.MINOR.PATCH": the library's, which may be newer
 * than the ucov/version.h a program was compiled with. *number, if not NULL,
 * gets it as UCOV_VERSION_NUMBER does (MAJOR * 10000 + MINOR * 100 + PATCH).
 */
const char *ucov_version(int *number);

/* ---------------------------------------------------------- attributes */

/*
 * Keep a function out of every ucov instrumentation: trace-pc/cmp hooks,
 * entry/exit records, gcov and LLVM profile counters, with the attributes
 * each compiler knows:  UCOV_NO_INSTRUMENT static void hot(void) { ... }
 */
#if defined(__clang__)
#define UCOV_NO_INSTRUMENT                                                                         \
  __attribute__((no_instrument_function, no_sanitize("coverage"), no_profile_instrument_function))
#elif defined(__GNUC__) && __GNUC__ >= 12
#define UCOV_NO_INSTRUMENT                                                                         \
  __attribute__((no_instrument_function, no_sanitize_coverage, no_profile_instrument_function))
#else
#define UCOV_NO_INSTRUMENT __attribute__((no_instrument_function))
#endif

#ifdef __cplusplus
}
#endif

#endif /* UCOV_UCOV_H */
