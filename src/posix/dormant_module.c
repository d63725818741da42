/* SPDX-License-Identifier: MIT */
/*
 * libucov-dormant.a: linked whole by `ucov cc --dormant` into every program
 * and shared object it links. Its constructor registers the module with the
 * process's runtime (src/posix/dormant_patch.c), which makes the module's sites
 * live when tracing starts, or at once if tracing is on while it is loaded;
 * its destructor unregisters it at dlclose. ucov_dormant_ret is the `ret`
 * that the module's conditional tail jumps to a hook go to while dormant.
 *
 * A clang module built --ext --dormant has XRay sleds: their trampolines are
 * here, in the module, so that a sled's rel32 call reaches them wherever the
 * runtime is. Each saves what a function's entry or exit must keep (the
 * argument and return registers, %r10, %r11, %xmm0-7), calls
 * ucov_xray_hit(the module's ELF header, %r10d: the sled, kind) and returns:
 * to the function from an entry or tail sled, to its caller from an exit
 * sled (which jumped here in place of its `ret`).
 */
#include "ucov/port/compiler.h"
#include "ucov/dormant.h"

/* The module's own ELF header (the linker defines it, hidden, in each module). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
/* The module's XRay map, if it has one (the linker defines these then). */
extern const char __start_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const char __stop_xray_instr_map[] __attribute__((weak, visibility("hidden")));

__asm__(".text\n"
        ".globl ucov_dormant_ret\n"
        ".hidden ucov_dormant_ret\n"
        ".type ucov_dormant_ret, @function\n"
        "ucov_dormant_ret:\n"
        "\tret\n"
        ".size ucov_dormant_ret, 1\n");

#if defined(__x86_64__)
void ucov_dormant_tramp_entry(void), ucov_dormant_tramp_exit(void), ucov_dormant_tramp_tail(void);
#define TRAMP(name, kind)                                                                          \
  ".globl " #name "\n"                                                                             \
  ".hidden " #name "\n"                                                                            \
  ".type " #name ", @function\n" #name ":\n"                                                       \
  "\tpushq %rbp\n"                                                                                 \
  "\tmovq %rsp, %rbp\n"                                                                            \
  "\tandq $-16, %rsp\n"                                                                            \
  "\tsubq $208, %rsp\n"                                                                            \
  "\tmovq %rax, 0(%rsp)\n"                                                                         \
  "\tmovq %rdi, 8(%rsp)\n"                                                                         \
  "\tmovq %rsi, 16(%rsp)\n"                                                                        \
  "\tmovq %rdx, 24(%rsp)\n"                                                                        \
  "\tmovq %rcx, 32(%rsp)\n"                                                                        \
  "\tmovq %r8, 40(%rsp)\n"                                                                         \
  "\tmovq %r9, 48(%rsp)\n"                                                                         \
  "\tmovq %r10, 56(%rsp)\n"                                                                        \
  "\tmovq %r11, 64(%rsp)\n"                                                                        \
  "\tmovdqu %xmm0, 80(%rsp)\n"                                                                     \
  "\tmovdqu %xmm1, 96(%rsp)\n"                                                                     \
  "\tmovdqu %xmm2, 112(%rsp)\n"                                                                    \
  "\tmovdqu %xmm3, 128(%rsp)\n"                                                                    \
  "\tmovdqu %xmm4, 144(%rsp)\n"                                                                    \
  "\tmovdqu %xmm5, 160(%rsp)\n"                                                                    \
  "\tmovdqu %xmm6, 176(%rsp)\n"                                                                    \
  "\tmovdqu %xmm7, 192(%rsp)\n"                                                                    \
  "\tleaq __ehdr_start(%rip), %rdi\n"                                                              \
  "\tmovl %r10d, %esi\n"                                                                           \
  "\tmovl $" #kind ", %edx\n"                                                                      \
  "\tcall ucov_xray_hit@PLT\n"                                                                     \
  "\tmovq 0(%rsp), %rax\n"                                                                         \
  "\tmovq 8(%rsp), %rdi\n"                                                                         \
  "\tmovq 16(%rsp), %rsi\n"                                                                        \
  "\tmovq 24(%rsp), %rdx\n"                                                                        \
  "\tmovq 32(%rsp), %rcx\n"                                                                        \
  "\tmovq 40(%rsp), %r8\n"                                                                         \
  "\tmovq 48(%rsp), %r9\n"                                                                         \
  "\tmovq 56(%rsp), %r10\n"                                                                        \
  "\tmovq 64(%rsp), %r11\n"                                                                        \
  "\tmovdqu 80(%rsp), %xmm0\n"                                                                     \
  "\tmovdqu 96(%rsp), %xmm1\n"                                                                     \
  "\tmovdqu 112(%rsp), %xmm2\n"                                                                    \
  "\tmovdqu 128(%rsp), %xmm3\n"                                                                    \
  "\tmovdqu 144(%rsp), %xmm4\n"                                                                    \
  "\tmovdqu 160(%rsp), %xmm5\n"                                                                    \
  "\tmovdqu 176(%rsp), %xmm6\n"                                                                    \
  "\tmovdqu 192(%rsp), %xmm7\n"                                                                    \
  "\tmovq %rbp, %rsp\n"                                                                            \
  "\tpopq %rbp\n"                                                                                  \
  "\tret\n"                                                                                        \
  ".size " #name ", . - " #name "\n"
__asm__(".text\n" TRAMP(ucov_dormant_tramp_entry, 0) TRAMP(ucov_dormant_tramp_exit, 1)
            TRAMP(ucov_dormant_tramp_tail, 2));
#endif

/* First among the module's constructors, so that the others are traced when
 * the module is loaded while tracing is on. */
__attribute__((constructor(101))) static UCOV_NOTRACE void ucov_dormant_init(void) {
  struct ucov_dormant_module m = {
      __ehdr_start, __start_xray_instr_map, __stop_xray_instr_map, 0, 0, 0};
#if defined(__x86_64__)
  m.tramp_entry = (const void *)ucov_dormant_tramp_entry;
  m.tramp_exit = (const void *)ucov_dormant_tramp_exit;
  m.tramp_tail = (const void *)ucov_dormant_tramp_tail;
#endif
  ucov_dormant_register(&m);
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
