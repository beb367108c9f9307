/* SPDX-License-Identifier: MIT */
/*
 * run_user()'s trip to CPL3 and back.
 *
 * Out: save the callee-saved registers and RFLAGS on the kernel stack, point
 * TSS.RSP0 just below them, and IRETQ to user_trampoline at CPL3.
 * Back: the trampoline calls fn, then `int3` through the #BP gate, which
 * is DPL3. Not `int $N` or `syscall`: at CPL3 kvm_pvm raises #UD for INT n
 * other than 3/4 and mishandles SYSCALL, while #BP is delivered on VMX,
 * SVM and kvm_pvm alike. The CPU switches to TSS.RSP0, so the 5-word frame
 * sits directly below the saved registers: drop it, restore, and return
 * fn's value (still in RAX) to run_user()'s caller. Any other #BP (CPL0,
 * or an int3 elsewhere in user code) goes to the ordinary #BP stub.
 */
#include "lib/layout.h"

	.text

/* u64 __run_user(fn, arg, user_rsp, rflags, void *tss_rsp0) */
	.globl __run_user
	.type __run_user, @function
__run_user:
	pushfq
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/*
	 * Entered with RSP = 8 mod 16 (ABI); 7 pushes make it 16-aligned. The
	 * CPU aligns RSP0 down to 16 before pushing, so it must already be
	 * aligned for the frame to end exactly at the saved registers.
	 */
	movq	%rsp, (%r8)
	pushq	$(USER_DS | 3)
	pushq	%rdx			/* user RSP */
	pushq	%rcx			/* RFLAGS: IOPL=3 (kvm_pvm makes it 0), IF as asked */
	pushq	$(USER_CS | 3)
	leaq	user_trampoline(%rip), %rax
	pushq	%rax
	movq	%rdi, %rax
	movq	%rsi, %rdi
	iretq
	.size __run_user, . - __run_user

/* CPL3, on the user stack (16-aligned): RAX = fn, RDI = arg. */
user_trampoline:
	call	*%rax
	int3
user_return_site:			/* the #BP frame's RIP on the way back */
	ud2				/* not reached */

/* The #BP gate (DPL3): CPL0, IF=0; no error code, so the frame starts at RIP. */
	.globl user_return_entry
	.type user_return_entry, @function
user_return_entry:
	testb	$3, 8(%rsp)		/* CS of the interrupted code */
	jz	1f
	pushq	%rax
	leaq	user_return_site(%rip), %rax
	cmpq	%rax, 8(%rsp)		/* RIP, above the pushed RAX */
	popq	%rax
	jne	1f
	addq	$40, %rsp		/* RIP, CS, RFLAGS, RSP, SS */
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	popfq
	ret
1:	jmp	trap_stubs + 16 * 3	/* an ordinary #BP */
	.size user_return_entry, . - user_return_entry
