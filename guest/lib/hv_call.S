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

/*
 * u64 hv_hcall_xmm<N>(u64 control, const u64 in[2 + 2 * N]), N = 1..6:
 * loads only XMM0..N-1, as a guest kernel loads only what its input needs.
 * Where CPL0 is emulated each movdqu left out saves a microsecond or two.
 * hv_hcall_xmm is hv_hcall_xmm6 (the whole 112-byte block).
 */
.macro HCALL_XMM n
	.globl hv_hcall_xmm\n
	.type hv_hcall_xmm\n, @function
hv_hcall_xmm\n:
	movq	%rdi, %rcx
	orq	$ASM_HV_HCALL_FAST_BIT, %rcx
	movq	0(%rsi), %rdx
	movq	8(%rsi), %r8
	.irp k, 0, 1, 2, 3, 4, 5
	.if \k < \n
	movdqu	16 + 16 * \k(%rsi), %xmm\k
	.endif
	.endr
	call	hv_hypercall_page
	ret
	.size hv_hcall_xmm\n, . - hv_hcall_xmm\n
.endm

	.irp n, 1, 2, 3, 4, 5, 6
	HCALL_XMM \n
	.endr

	.globl hv_hcall_xmm
	.set hv_hcall_xmm, hv_hcall_xmm6
