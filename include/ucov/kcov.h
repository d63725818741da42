/* SPDX-License-Identifier: MIT */
/*
 * ucov/kcov.h - the KCOV ABI, as Linux defines it, for userspace targets.
 *
 * Values are those of the kernel's include/uapi/linux/kcov.h plus the posted
 * TRACE_PC_EXT / UNIQUE series. The header is freestanding (stdint.h only) so
 * that kernels, hypervisors and firmware built on the ucov core can use it.
 *
 * It can be included together with <linux/kcov.h> in either order: the part
 * that Linux already defines is skipped when Linux's header came first, and
 * Linux's header is turned into a no-op when this one came first.
 */
#ifndef UCOV_KCOV_H
#define UCOV_KCOV_H

#include <stdint.h>

/* Linux's generic ioctl encoding: nr 0-7, type 8-15, size 16-29, dir 30-31. */
#define UCOV_IOC_NONE 0u
#define UCOV_IOC_WRITE 1u
#define UCOV_IOC_READ 2u
#define UCOV_IOC(dir, type, nr, size)                                                              \
  ((unsigned long)(((dir) << 30) | ((unsigned)(size) << 16) | ((unsigned)(type) << 8) | (nr)))

#ifndef _LINUX_KCOV_IOCTLS_H
#define _LINUX_KCOV_IOCTLS_H /* makes a later #include <linux/kcov.h> a no-op */

/* Argument of KCOV_REMOTE_ENABLE (24 bytes: 4 bytes of padding before common_handle). */
struct kcov_remote_arg {
  uint32_t trace_mode;  /* KCOV_TRACE_PC or KCOV_TRACE_CMP */
  uint32_t area_size;   /* length of the per-section coverage area, in 64-bit words */
  uint32_t num_handles; /* number of entries in handles[] */
  uint64_t common_handle __attribute__((aligned(8)));
  uint64_t handles[];
};

#define KCOV_REMOTE_MAX_HANDLES 0x100

/* _IOR('c', 1, unsigned long): arg = buffer size in 64-bit words, by value. */
#define KCOV_INIT_TRACE UCOV_IOC(UCOV_IOC_READ, 'c', 1, sizeof(unsigned long))
/* _IO('c', 100): arg = trace mode. */
#define KCOV_ENABLE UCOV_IOC(UCOV_IOC_NONE, 'c', 100, 0)
/* _IO('c', 101): arg must be 0; only the enabling thread may disable. */
#define KCOV_DISABLE UCOV_IOC(UCOV_IOC_NONE, 'c', 101, 0)
/* _IOW('c', 102, struct kcov_remote_arg): arg = pointer to the argument. */
#define KCOV_REMOTE_ENABLE UCOV_IOC(UCOV_IOC_WRITE, 'c', 102, sizeof(struct kcov_remote_arg))

enum {
  KCOV_TRACE_PC = 0,  /* PCs of executed basic blocks */
  KCOV_TRACE_CMP = 1, /* comparison operands, 4 words a record */
};

/* Comparison record type: bit 0 = one operand is a compile-time constant,
 * bits 1-2 = log2 of the operand size in bytes. */
#define KCOV_CMP_CONST (1 << 0)
#define KCOV_CMP_SIZE(n) ((n) << 1)
#define KCOV_CMP_MASK KCOV_CMP_SIZE(3)

/* Remote handles: subsystem in bits 56-63, instance in bits 0-31. */
#define KCOV_SUBSYSTEM_COMMON (0x00ull << 56)
#define KCOV_SUBSYSTEM_USB (0x01ull << 56)
#define KCOV_SUBSYSTEM_MASK (0xffull << 56)
#define KCOV_INSTANCE_MASK (0xffffffffull)

/* Returns the handle for (subsystem, instance), or 0 if either is out of range. */
static inline uint64_t kcov_remote_handle(uint64_t subsys, uint64_t inst) {
  if ((subsys & ~KCOV_SUBSYSTEM_MASK) || (inst & ~KCOV_INSTANCE_MASK))
    return 0;
  return subsys | inst;
}
#endif /* _LINUX_KCOV_IOCTLS_H */

/* --- Beyond today's <linux/kcov.h>: the posted EXT and UNIQUE series. --- */

/* PCs tagged as function entry, exit or normal block (top nibble of each record). */
#define KCOV_TRACE_PC_EXT 2

/* _IOW('c', 103, unsigned long): arg = bitmap size in 64-bit words. */
#define KCOV_UNIQUE_ENABLE UCOV_IOC(UCOV_IOC_WRITE, 'c', 103, sizeof(unsigned long))
/* _IO('c', 104): clears the UNIQUE bitmap and trace count. */
#define KCOV_RESET_TRACE UCOV_IOC(UCOV_IOC_NONE, 'c', 104, 0)

/* TRACE_PC_EXT records: the address in the low 56 bits, the type in the top nibble. */
#define KCOV_RECORD_IP_MASK 0x00ffffffffffffffull
#define KCOV_RECORD_TYPE_SHIFT 60
#define KCOV_RECORD_ENTRY 0x0ull
#define KCOV_RECORD_EXIT 0x1ull
#define KCOV_RECORD_CSW 0x2ull /* context-switch summary (kernel only; never written here) */
#define KCOV_RECORD_NORMAL 0xfull
#define KCOV_RECORD_TYPE(rec) ((uint64_t)(rec) >> KCOV_RECORD_TYPE_SHIFT)
#define KCOV_RECORD_IP(rec) ((uint64_t)(rec)&KCOV_RECORD_IP_MASK)
/* The record's whole address: a kernel address (bit 55 set: the top half of
 * a 64-bit address space, as x86-64's and arm64's kernels use it) gets back
 * the top byte its tag replaced; a user address is its low 56 bits. */
#define KCOV_RECORD_PC(rec)                                                                        \
  (KCOV_RECORD_IP(rec) & (1ull << 55) ? KCOV_RECORD_IP(rec) | ~KCOV_RECORD_IP_MASK                 \
                                      : KCOV_RECORD_IP(rec))

/* Helpers for remote handles. */
#define KCOV_HANDLE_SUBSYSTEM(h) ((uint64_t)(h)&KCOV_SUBSYSTEM_MASK)
#define KCOV_HANDLE_INSTANCE(h) ((uint64_t)(h)&KCOV_INSTANCE_MASK)
/* A handle is well formed when bits 32-55 are zero. */
#define KCOV_HANDLE_VALID(h) (((uint64_t)(h) & ~(KCOV_SUBSYSTEM_MASK | KCOV_INSTANCE_MASK)) == 0)

/* Words per TRACE_CMP record: type, arg1, arg2, pc. */
#define KCOV_WORDS_PER_CMP 4

#endif /* UCOV_KCOV_H */
