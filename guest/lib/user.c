// SPDX-License-Identifier: MIT
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/user.h"

/* user_entry.S; tss_rsp0 is 4 mod 8 (the TSS is packed): asm stores it. */
u64 __run_user(user_fn_t fn, void *arg, u64 user_rsp, u64 rflags, void *tss_rsp0);

u64 run_user(user_fn_t fn, void *arg, unsigned int flags)
{
	struct percpu *pc = this_cpu();
	/*
	 * Ports two ways, so one always works: IOPL=3 (VMX and SVM honour it)
	 * and the all-zero TSS bitmap (kvm_pvm forces IOPL to 0 at CPL3 but
	 * checks the bitmap). Not the bitmap alone: QEMU's TCG, which runs our
	 * nested SVM test VM, refuses it once KVM has marked TR busy.
	 */
	u64 rflags = X86_EFLAGS_FIXED | X86_EFLAGS_IOPL3;

	if (flags & RUN_USER_IRQS_ON)
		rflags |= X86_EFLAGS_IF;
	return __run_user(fn, arg, stack_top(pc->cpu, USER_STACK_TOP), rflags,
			  (u8 *)pc->tss + offsetof(struct tss, rsp0));
}

unsigned int current_cpl(void)
{
	return read_cs() & 3;
}
