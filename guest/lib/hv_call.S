/* SPDX-License-Identifier: MIT */
/*
 * The three Hyper-V calling conventions as real functions, not inline asm:
 * gcc refuses XMM clobbers under -mgeneral-regs-only, and a function call
 * already lets us clobber XMM0-15, RCX, RDX, R8-R11 and flags (SysV ABI),
 * which covers whatever the VMM's page does besides setting RAX. The page
 * may also spill XMM0-5 below RSP: safe, the payload has no red zone.
 * movdqu is the one XMM load kvm_pvm emulates at CPL0.
 */
#include "lib/layout.h"

	.text

/* u64 hv_hcall(u64 control, u64 in_gpa, u64 out_gpa) */
	.globl hv_hcall
	.type hv_hcall, @function
hv_hcall:
	movq	%rdi, %rcx
	movq	%rdx, %r8
	movq	%rsi, %rdx
	call	hv_hypercall_page
	ret
	.size hv_hcall, . - hv_hcall

/* u64 hv_hcall_fast(u64 control, u64 a, u64 b) */
	.globl hv_hcall_fast
	.type hv_hcall_fast, @function
hv_hcall_fast:
	movq	%rdi, %rcx
	orq	$ASM_HV_HCALL_FAST_BIT, %rcx
	movq	%rdx, %r8
	movq	%rsi, %rdx
	call	hv_hypercall_page
	ret
	.size hv_hcall_fast, . - hv_hcall_fast

/* u64 hv_hcall_xmm(u64 control, const u64 in[14]) */
	.globl hv_hcall_xmm
	.type hv_hcall_xmm, @function
hv_hcall_xmm:
	movq	%rdi, %rcx
	orq	$ASM_HV_HCALL_FAST_BIT, %rcx
	movq	0(%rsi), %rdx
	movq	8(%rsi), %r8
	movdqu	16(%rsi), %xmm0
	movdqu	32(%rsi), %xmm1
	movdqu	48(%rsi), %xmm2
	movdqu	64(%rsi), %xmm3
	movdqu	80(%rsi), %xmm4
	movdqu	96(%rsi), %xmm5
	call	hv_hypercall_page
	ret
	.size hv_hcall_xmm, . - hv_hcall_xmm
