// SPDX-License-Identifier: MIT
/*
 * Where every vector lands: expected exceptions resume at their landing
 * address, registered interrupts run their handler, anything else prints
 * what happened and ends the run with status 1.
 */
#include "lib/exit.h"
#include "lib/extable.h"
#include "lib/irq.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/sstep.h"
#include "lib/trap.h"

static const char *const names[NR_EXCEPTIONS] = {
	"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
	"#DF", "vec9", "#TS", "#NP", "#SS", "#GP", "#PF", "vec15",
	"#MF", "#AC", "#MC", "#XM", "#VE", "#CP", "vec22", "vec23",
	"vec24", "vec25", "vec26", "vec27", "#HV", "#VC", "#SX", "vec31",
};

const char *exception_name(unsigned int vector)
{
	return vector < NR_EXCEPTIONS ? names[vector] : "irq";
}

/* Asynchronous or abort-class: never the result of a listed instruction. */
static bool fixup_allowed(u64 vector)
{
	return vector != NMI_VECTOR && vector != DF_VECTOR && vector != MC_VECTOR;
}

static bool try_fixup(struct trap_frame *tf)
{
	struct ex_record *ex = &this_cpu()->ex;
	u64 landing;

	if (!fixup_allowed(tf->vector))
		return false;
	landing = extable_landing(tf->rip);
	if (!landing)
		return false;
	ex->error_code = (u32)tf->error_code;
	ex->rip = tf->rip;
	ex->cr2 = tf->vector == PF_VECTOR ? read_cr2() : 0;
	WRITE_ONCE(ex->vector, (int)tf->vector);
	tf->rip = landing;
	return true;
}

static void dump_regs(const struct trap_frame *tf)
{
	printf("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
	       tf->rax, tf->rbx, tf->rcx, tf->rdx);
	printf("  rsi %016lx rdi %016lx rbp %016lx rsp %016lx\n",
	       tf->rsi, tf->rdi, tf->rbp, tf->rsp);
	printf("  r8  %016lx r9  %016lx r10 %016lx r11 %016lx\n",
	       tf->r8, tf->r9, tf->r10, tf->r11);
	printf("  r12 %016lx r13 %016lx r14 %016lx r15 %016lx\n",
	       tf->r12, tf->r13, tf->r14, tf->r15);
}

static __noreturn void trap_fatal(const struct trap_frame *tf)
{
	const char *what = tf->vector < NR_EXCEPTIONS ? "exception" : "interrupt";

	printf("FAIL: unexpected %s %s (vector %lu) on cpu %u: error 0x%lx rip 0x%lx ",
	       what, exception_name(tf->vector), tf->vector, smp_id(), tf->error_code, tf->rip);
	printf("cr2 0x%lx cs 0x%lx rflags 0x%lx\n", read_cr2(), tf->cs, tf->rflags);
	dump_regs(tf);
	report_abort();
}

void trap_dispatch(struct trap_frame *tf)
{
	if (tf->vector < NR_EXCEPTIONS) {
		if (sstep_trap(tf) || try_fixup(tf))
			return;
		trap_fatal(tf);
	}
	if (!irq_dispatch(tf))
		trap_fatal(tf);
}
