// SPDX-License-Identifier: MIT
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/user.h"

/* user_entry.S; tss_rsp0 is 4 mod 8 (the TSS is packed): asm stores it. */
u64 __run_user(user_fn_t fn, void *arg, u64 user_rsp, u64 rflags, void *tss_rsp0);

u64 run_user(user_fn_t fn, void *arg, unsigned int flags)
{
	struct percpu *pc = this_cpu();
	/* IOPL=0 on every backend (kvm_pvm forces it): ports go through the TSS bitmap. */
	u64 rflags = X86_EFLAGS_FIXED;

	if (flags & RUN_USER_IRQS_ON)
		rflags |= X86_EFLAGS_IF;
	return __run_user(fn, arg, stack_top(pc->cpu, USER_STACK_TOP), rflags,
			  (u8 *)&pc->tss + offsetof(struct tss, rsp0));
}

unsigned int current_cpl(void)
{
	return read_cs() & 3;
}
