/* SPDX-License-Identifier: MIT */
/*
 * bool vcpu_is_preempted_thunk(u32 cpu): vcpu_is_preempted() with a
 * callee-saved-registers convention. The SysV ABI lets a C function clobber
 * RAX, RCX, RDX, RSI, RDI and R8-R11; this wrapper saves and restores all of
 * them but RAX (the result), so a call site may keep live values in any
 * register except RAX across the call (pvtime.h: vcpu_is_preempted_thunked).
 * The price is eight pushes and pops per call; the preempt-call suite
 * measures whether that is cheaper than the spills a plain call forces.
 */

	.text

	.globl vcpu_is_preempted_thunk
	.type vcpu_is_preempted_thunk, @function
vcpu_is_preempted_thunk:
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	/* Entered at 8 mod 16; eight pushes keep it there: realign for the call. */
	subq	$8, %rsp
	call	vcpu_is_preempted
	addq	$8, %rsp
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	ret
	.size vcpu_is_preempted_thunk, . - vcpu_is_preempted_thunk
