/* SPDX-License-Identifier: MIT */
/*
 * Entry for every vCPU (see include/minivmm/abi.h and docs/guest.md):
 * 64-bit mode, paging on, RDI = vCPU index, RSI = GPA of the boot info,
 * RSP = 0. Pick this vCPU's stack block, record the index in its header
 * (percpu.h finds it there) and call guest_main(cpu, bootinfo).
 * Kept to a handful of instructions: CPL0 is emulated on kvm_pvm.
 */
#include "lib/layout.h"

#define STR(x)		#x
#define XSTR(x)		STR(x)

	.section .text.boot, "ax"
	.code64
	.globl _start
	.type _start, @function
_start:
	cmpq	$GUEST_MAX_VCPUS, %rdi
	jae	too_many_vcpus

	/* block = stack_blocks + cpu * STACK_BLOCK_SIZE */
	imulq	$STACK_BLOCK_SIZE, %rdi, %rax
	addq	$stack_blocks, %rax
	movl	%edi, (%rax)
	leaq	KERNEL_STACK_TOP(%rax), %rsp
	xorl	%ebp, %ebp
	call	guest_main
	/* guest_main does not return; if it did, stop this vCPU quietly. */
1:	cli
	hlt
	jmp	1b
	.size _start, . - _start

/* No stack and no C here: print one line and exit with status 2. */
too_many_vcpus:
	leaq	too_many_msg(%rip), %rsi
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
3:	cli
	hlt
	jmp	3b

	.section .rodata
too_many_msg:
	.asciz	"guest.elf supports at most " XSTR(GUEST_MAX_VCPUS) " vCPUs\n"
