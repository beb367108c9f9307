// SPDX-License-Identifier: MIT
#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/irq.h"
#include "lib/processor.h"
#include "lib/smp.h"

static u32 online_count;
static u32 seen[GUEST_MAX_VCPUS];

static struct {
	u32 count;
	u32 sense;
} barrier_state;

void smp_mark_online(void)
{
	struct percpu *pc = this_cpu();

	atomic_inc(&seen[pc->cpu]);
	store_release(&pc->online, true);
	atomic_inc(&online_count);
}

u32 smp_online_count(void)
{
	return load_acquire(&online_count);
}

u32 smp_seen_count(u32 cpu)
{
	return cpu < boot_nr_cpus ? load_acquire(&seen[cpu]) : 0;
}

bool smp_cpu_online(u32 cpu)
{
	return cpu < boot_nr_cpus && load_acquire(&percpu[cpu].online);
}

/* Tickets are u32 and wrap: compare by signed distance. */
static bool ticket_done(struct smp_mailbox *mb, u32 ticket)
{
	return (s32)(load_acquire(&mb->done) - ticket) >= 0;
}

static u32 mailbox_post(struct smp_mailbox *mb, smp_fn_t fn, void *arg)
{
	u32 ticket;

	spin_lock(&mb->lock);
	while (load_acquire(&mb->fn))	/* the previous item is not taken yet */
		cpu_relax();
	mb->arg = arg;
	ticket = ++mb->posted;
	store_release(&mb->fn, fn);
	spin_unlock(&mb->lock);
	return ticket;
}

int smp_call(u32 cpu, smp_fn_t fn, void *arg, bool wait)
{
	struct smp_mailbox *mb;
	u32 ticket;

	if (cpu == smp_id()) {
		fn(arg);
		return 0;
	}
	if (!smp_cpu_online(cpu))
		return -1;
	mb = &percpu[cpu].mbox;
	ticket = mailbox_post(mb, fn, arg);
	apic_send_ipi(percpu[cpu].apic_id, SMP_CALL_VECTOR);
	if (wait)
		while (!ticket_done(mb, ticket))
			cpu_relax();
	return 0;
}

void smp_wait(u32 cpu)
{
	struct smp_mailbox *mb = &percpu[cpu].mbox;

	if (cpu != smp_id() && smp_cpu_online(cpu))
		while (!ticket_done(mb, READ_ONCE(mb->posted)))
			cpu_relax();
}

void smp_call_all(smp_fn_t fn, void *arg)
{
	u32 self = smp_id();

	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		if (cpu != self)
			smp_call(cpu, fn, arg, false);
	fn(arg);
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		smp_wait(cpu);
}

/*
 * At CPL0 waiters halt instead of spinning: with hundreds of vCPUs on a
 * few host CPUs, CPL0 spinners (emulated on kvm_pvm) would starve the
 * vCPUs still on their way. Everyone online takes part, so the last to
 * arrive wakes the rest with one all-but-self IPI; an IPI that lands
 * between a waiter's check and its HLT stays pending (IF=0) and ends the
 * HLT. At CPL3 (no HLT, no ICR there) waiters spin, natively on kvm_pvm.
 * All callers of one barrier run at the same CPL.
 */
static void barrier_wait_halted(u32 sense)
{
	bool irqs_were_on = read_rflags() & X86_EFLAGS_IF;

	for (;;) {
		irq_disable();
		if (load_acquire(&barrier_state.sense) == sense)
			break;
		safe_halt();
	}
	if (irqs_were_on)
		irq_enable();
}

void smp_barrier(void)
{
	struct percpu *pc = this_cpu();
	u32 sense = !pc->barrier_sense;
	bool cpl0 = !(read_cs() & 3);

	pc->barrier_sense = sense;
	if (atomic_inc_return(&barrier_state.count) == smp_online_count()) {
		WRITE_ONCE(barrier_state.count, 0);
		store_release(&barrier_state.sense, sense);
		if (cpl0 && smp_online_count() > 1)
			apic_send_ipi_all_but_self(SMP_CALL_VECTOR);
		return;
	}
	if (cpl0) {
		barrier_wait_halted(sense);
		return;
	}
	while (load_acquire(&barrier_state.sense) != sense)
		cpu_relax();
}

/* Take the posted item, if any, with interrupts off. */
static bool mailbox_take(struct smp_mailbox *mb, smp_fn_t *fn, void **arg)
{
	*fn = load_acquire(&mb->fn);
	if (!*fn)
		return false;
	*arg = mb->arg;
	store_release(&mb->fn, NULL);
	return true;
}

__noreturn void smp_service_loop(void)
{
	struct smp_mailbox *mb = &this_cpu()->mbox;
	smp_fn_t fn;
	void *arg;

	for (;;) {
		irq_disable();
		if (!mailbox_take(mb, &fn, &arg)) {
			/* An IPI after the check stays pending and ends the HLT. */
			safe_halt();
			continue;
		}
		fn(arg);
		atomic_inc(&mb->done);
	}
}

/* The IPI only ends the HLT; the loop above does the work. */
static void smp_call_irq(struct trap_frame *tf)
{
	(void)tf;
}

static void spurious_irq(struct trap_frame *tf)
{
	(void)tf;
}

void smp_init(void)
{
	irq_register_reserved(SMP_CALL_VECTOR, smp_call_irq);
	irq_register_reserved(SPURIOUS_VECTOR, spurious_irq);
}
