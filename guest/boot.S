/* SPDX-License-Identifier: MIT */
/*
 * Entry for every vCPU (see include/minivmm/abi.h and docs/guest.md):
 * 64-bit mode, paging on, RDI = vCPU index, RSI = GPA of the boot info,
 * RSP = 0. Pick this vCPU's stack block in the free RAM above the image
 * (bootmem.h: block i at ALIGN_UP(free_gpa, STACK_BLOCK_SIZE) + i blocks),
 * record the index in its struct percpu at the block's top (layout.h), just
 * above the kernel stack, and call
 * guest_main(cpu, bootinfo). vCPU 0 checks the boot info itself in C; the
 * checks here only keep a vCPU off memory that is not there: one that
 * fails them stops (vCPU 0 says why, the others halt silently).
 * Kept to a handful of instructions: CPL0 is emulated on kvm_pvm.
 */
#include "lib/layout.h"

	.section .text.boot, "ax"
	.code64
	.globl _start
	.type _start, @function
_start:
	leaq	no_bootinfo_msg(%rip), %rdx
	testq	%rsi, %rsi
	jz	say_and_exit
	cmpq	$GUEST_MAX_VCPUS, %rdi
	jae	stop_quietly
	cmpl	ASM_BI_NR_VCPUS(%rsi), %edi
	jae	stop_quietly

	/* block = ALIGN_UP(free_gpa, STACK_BLOCK_SIZE) + cpu * STACK_BLOCK_SIZE */
	movq	ASM_BI_FREE_GPA(%rsi), %rax
	addq	$(STACK_BLOCK_SIZE - 1), %rax
	andq	$-STACK_BLOCK_SIZE, %rax
	imulq	$STACK_BLOCK_SIZE, %rdi, %rcx
	addq	%rcx, %rax
	leaq	STACK_BLOCK_SIZE(%rax), %rcx
	cmpq	ASM_BI_RAM_SIZE(%rsi), %rcx
	ja	no_ram_for_stack
	movl	%edi, KERNEL_STACK_TOP(%rax)
	leaq	KERNEL_STACK_TOP(%rax), %rsp
	xorl	%ebp, %ebp
	call	guest_main
	/* guest_main does not return; if it did, stop this vCPU quietly. */
	jmp	stop_quietly
	.size _start, . - _start

no_ram_for_stack:
	leaq	no_ram_msg(%rip), %rdx
/* vCPU 0 only (the others stop quietly): no stack, no C. Print (RDX), exit 2. */
say_and_exit:
	testq	%rdi, %rdi
	jnz	stop_quietly
	movq	%rdx, %rsi
	movw	$ASM_PORT_COM1, %dx
1:	movb	(%rsi), %al
	testb	%al, %al
	jz	2f
	outb	%al, %dx
	incq	%rsi
	jmp	1b
2:	movl	$2, %eax
	movw	$ASM_PORT_EXIT, %dx
	outl	%eax, %dx
stop_quietly:
	cli
	hlt
	jmp	stop_quietly

	.section .rodata
no_bootinfo_msg:
	.asciz	"guest: no boot info (RSI = 0)\n"
no_ram_msg:
	.asciz	"guest.elf: no RAM for vCPU 0's stack above the image: give more --mem\n"
