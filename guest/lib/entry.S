/* SPDX-License-Identifier: MIT */
/*
 * Interrupt and exception entry: one 16-byte stub per vector pushes a dummy
 * error code where the CPU pushes none, then the vector, and jumps to
 * trap_common, which saves every GPR as a struct trap_frame (trap.h) and
 * calls trap_dispatch(). idt.c points gate v at trap_stubs + 16 * v.
 */
#include "lib/layout.h"

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERRCODE(v)	((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || \
			 (v) == 21 || (v) == 29 || (v) == 30)

	.text
	.balign 16
	.globl trap_stubs
trap_stubs:
	.set vec, 0
	.rept 256
	.if !HAS_ERRCODE(vec)
	pushq	$0
	.endif
	pushq	$vec
	jmp	trap_common
	/* Pad to the next slot; the assembler refuses if a stub outgrew it. */
	.org	trap_stubs + 16 * (vec + 1), 0xcc
	.set vec, vec + 1
	.endr

trap_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/* The CPU aligned RSP to 16 before its 5-word frame: 7 + 15 words
	 * pushed since keep the call ABI-aligned. */
	movq	%rsp, %rdi
	cld
	call	trap_dispatch
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp		/* vector and error code */
	iretq
