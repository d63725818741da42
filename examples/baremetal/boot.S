/* SPDX-License-Identifier: MIT */
/* Multiboot (version 1) entry: QEMU's -kernel loads this ELF at 1 MiB. */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003 /* page-aligned modules, memory information */

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.section .bss
	.align 16
stack_bottom:
	.skip 65536
stack_top:

	.section .text
	.global _start
	.type _start, @function
_start:
	mov $stack_top, %esp
	cld
	call kmain
1:	cli
	hlt
	jmp 1b

	.section .note.GNU-stack, "", @progbits
