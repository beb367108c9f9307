// SPDX-License-Identifier: MIT
/*
 * hostile: hypercalls from CPL3. The TLFS allows them at CPL0 only. Under
 * run_user() every port is allowed, so the page's trap instruction (`out %al, $0xf9`)
 * does reach the VMM from CPL3; the VMM must inject #UD on that very
 * instruction, at CPL3, leave RAX alone and do nothing else. The other
 * forms of an OUT to the port (`out %al, %dx`, one byte long, and
 * `rep outsb`) must fault on their own first byte too.
 */
#include <minivmm/abi.h>

#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/report.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "tests/hostile.h"

#define CPL3_VECTOR	0x54
#define RAX_MARK	0x0123456789abcdefull

enum trap_form {
	OUT_IMM8,	/* what the hypercall page uses */
	OUT_DX,
	REP_OUTSB,
};

struct cpl3_try {
	const char *name;
	enum trap_form form;
	u64 control, rdx, r8;
	u64 rax;
	int vector;
	unsigned int cpl_before, cpl_after;
};

static u32 hits;
static u8 outs_src[0x2003];	/* what a rep outsb could read */

static void cpl3_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(hits, hits + 1);
}

/* The #UD is caught only if it hits the listed (first) byte. */
static int trap_form(struct cpl3_try *t)
{
	const void *src = outs_src;
	u64 n = t->control;

	if (t->form == OUT_IMM8)
		return hostile_raw_trap(t->control, t->rdx, t->r8, &t->rax);
	ex_arm();
	if (t->form == OUT_DX)
		asm volatile(ASM_TRY("outb %%al, %%dx")
			     : "+a"(t->rax) : "c"(t->control), "d"((u16)MVM_PORT_HCALL) : "memory");
	else
		asm volatile(ASM_TRY("rep outsb")
			     : "+a"(t->rax), "+S"(src), "+c"(n) : "d"((u16)MVM_PORT_HCALL)
			     : "memory");
	return ex_vector();
}

/* Runs at CPL3 with IF=1: an IPI the VMM wrongly sent would land here. */
static u64 cpl3_trap(void *arg)
{
	struct cpl3_try *t = arg;

	t->cpl_before = current_cpl();
	t->rax = RAX_MARK;
	t->vector = trap_form(t);
	t->cpl_after = current_cpl();
	udelay(1000);		/* time for a wrongly sent self-IPI to arrive */
	return 0;
}

static void try_from_cpl3(struct cpl3_try *t)
{
	/* KVM's page traps with VMCALL/VMMCALL: port 0xf9 is no hypercall then. */
	if (t->form != OUT_IMM8 && hv_kvm_serves()) {
		report_skip(t->name, "minivmm's trap port only; KVM's Hyper-V (--hv-impl kvm) "
			    "has none");
		return;
	}
	WRITE_ONCE(hits, 0);
	run_user(cpl3_trap, t, RUN_USER_IRQS_ON);
	report_why(t->vector == UD_VECTOR && t->cpl_before == 3 && t->cpl_after == 3 &&
		   t->rax == RAX_MARK && !READ_ONCE(hits), t->name,
		   "vector %d, CPL %u -> %u, rax 0x%lx, %u interrupts", t->vector,
		   t->cpl_before, t->cpl_after, t->rax, hits);
}

void hostile_cpl3(void)
{
	u64 self = 1ull << smp_id();
	struct cpl3_try tries[] = {
		{ .name = "CPL3: unknown call code raises #UD at CPL3", .control = 0x7fff },
		{ .name = "CPL3: fast SendIpi to self raises #UD, sends nothing",
		  .control = HVCALL_SEND_IPI | HV_HCALL_FAST_BIT, .rdx = CPL3_VECTOR, .r8 = self },
		{ .name = "CPL3: FlushVirtualAddressSpace raises #UD",
		  .control = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, .rdx = (uintptr_t)hostile_in },
		{ .name = "CPL3: reserved bits set raise #UD, not a status",
		  .control = HVCALL_SEND_IPI | HV_HCALL_RSVD_MASK },
		{ .name = "CPL3: out %al, %dx (1 byte) raises #UD on itself",
		  .form = OUT_DX, .control = 0x7fff },
		{ .name = "CPL3: rep outsb to the port raises #UD on itself",
		  .form = REP_OUTSB, .control = 3 },
		{ .name = "CPL3: rep outsb of 8195 bytes (more than one exit) raises #UD",
		  .form = REP_OUTSB, .control = 0x2003 },
	};

	hostile_in[0] = 0;
	hostile_in[1] = 0;
	hostile_in[2] = self;
	irq_register(CPL3_VECTOR, cpl3_irq);
	for (u32 i = 0; i < ARRAY_SIZE(tries); i++)
		try_from_cpl3(&tries[i]);
	irq_unregister(CPL3_VECTOR);
}
