/* SPDX-License-Identifier: MIT */
/* <stddef.h> for the core inside the Linux kernel: size_t, NULL, offsetof. */
#ifndef UCOV_LINUX_STDDEF_H
#define UCOV_LINUX_STDDEF_H

#include <linux/stddef.h>
#include <linux/types.h>

#endif
