/* SPDX-License-Identifier: MIT */
/* <stdint.h> for the core inside the Linux kernel (which has no libc
 * headers): the kernel's own types, and the limits the core uses. */
#ifndef UCOV_LINUX_STDINT_H
#define UCOV_LINUX_STDINT_H

#include <linux/limits.h>
#include <linux/types.h>

typedef long intptr_t;

#ifndef INT8_MAX
#define INT8_MAX S8_MAX
#define INT16_MAX S16_MAX
#define INT32_MAX S32_MAX
#define INT64_MAX S64_MAX
#define INT32_MIN S32_MIN
#define INT64_MIN S64_MIN
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#endif
#ifndef UINTPTR_MAX
#define UINTPTR_MAX ULONG_MAX
#endif
#ifndef UINT64_C
#define UINT64_C(c) c##ULL
#define INT64_C(c) c##LL
#define UINT32_C(c) c##U
#endif

#endif
