/* SPDX-License-Identifier: MIT */
/* Call sites on i386 (a kernel's code): call rel32 (callsites.c), addresses modulo 2^32; no PLT. */
#include "callsites.h"

#include <elf.h>

const struct cs_arch cs_i386 = {EM_386, NULL, 0xffffffffu};
