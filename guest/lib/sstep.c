// SPDX-License-Identifier: MIT
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/sstep.h"

#define X86_EFLAGS_TF	(1ul << 8)

/* Set TF, call fn, clear TF: the glue steps the same for every fn. */
static void stepped_call(void (*fn)(void *), void *arg)
{
	asm volatile("pushfq\n\t"
		     "orq %[tf], (%%rsp)\n\t"
		     "popfq\n\t"
		     "call *%[fn]\n\t"
		     "pushfq\n\t"
		     "andq %[notf], (%%rsp)\n\t"
		     "popfq"
		     : "+D"(arg)
		     : [fn] "r"(fn), [tf] "i"(X86_EFLAGS_TF), [notf] "i"(~X86_EFLAGS_TF)
		     : "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc");
}

static void no_op(void *arg)
{
	(void)arg;
}

static u64 steps_of(void (*fn)(void *), void *arg)
{
	struct percpu *pc = this_cpu();

	WRITE_ONCE(pc->sstep_steps, 0);
	WRITE_ONCE(pc->sstep_on, true);
	stepped_call(fn, arg);
	WRITE_ONCE(pc->sstep_on, false);
	return READ_ONCE(pc->sstep_steps);
}

u64 sstep_count(void (*fn)(void *arg), void *arg, const char **why)
{
	u64 base = steps_of(no_op, NULL);
	u64 n = steps_of(fn, arg);

	if (!base || n <= base || n >= SSTEP_MAX) {
		*why = !base ? "no single-step #DB arrived (TF not honoured here)" :
		       n >= SSTEP_MAX ? "path longer than SSTEP_MAX steps" :
				       "fewer steps than a no-op call";
		return 0;
	}
	*why = NULL;
	return n - base + 1;	/* no_op is one instruction: its ret */
}

bool sstep_trap(struct trap_frame *tf)
{
	struct percpu *pc = this_cpu();

	if (tf->vector != DB_VECTOR || !READ_ONCE(pc->sstep_on))
		return false;
	if (++pc->sstep_steps >= SSTEP_MAX)
		tf->rflags &= ~X86_EFLAGS_TF;	/* runaway: stop stepping */
	return true;
}
