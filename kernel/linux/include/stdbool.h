/* SPDX-License-Identifier: MIT */
/* <stdbool.h> for the core inside the Linux kernel: its bool. */
#ifndef UCOV_LINUX_STDBOOL_H
#define UCOV_LINUX_STDBOOL_H

#include <linux/types.h>

#endif
