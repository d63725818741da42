/* SPDX-License-Identifier: MIT */
/*
 * libucov-dormant.a: linked whole by `ucov cc --dormant` into every program
 * and shared object it links. Its constructor registers the module with the
 * process's runtime (src/posix/dormant.c), which makes the module's sites
 * live when tracing starts, or at once if tracing is on while it is loaded;
 * its destructor unregisters it at dlclose. ucov_dormant_ret is the `ret`
 * that the module's conditional tail jumps to a hook go to while dormant.
 */
#include "ucov/compiler.h"
#include "ucov/dormant.h"

/* The module's own ELF header (the linker defines it, hidden, in each module). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));

__asm__(".text\n"
        ".globl ucov_dormant_ret\n"
        ".hidden ucov_dormant_ret\n"
        ".type ucov_dormant_ret, @function\n"
        "ucov_dormant_ret:\n"
        "\tret\n"
        ".size ucov_dormant_ret, 1\n");

/* First among the module's constructors, so that the others are traced when
 * the module is loaded while tracing is on. */
__attribute__((constructor(101))) static UCOV_NOTRACE void ucov_dormant_init(void) {
  ucov_dormant_register(__ehdr_start);
}

#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
#endif
__attribute__((destructor(100))) static UCOV_NOTRACE void ucov_dormant_fini(void) {
  ucov_dormant_unregister(__ehdr_start);
}
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif
