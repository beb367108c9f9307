// SPDX-License-Identifier: MIT
#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/irq.h"
#include "lib/processor.h"
#include "lib/smp.h"
#include "lib/timing.h"

static u32 online_count;
static u32 seen[GUEST_MAX_VCPUS];
static u32 call_resends;	/* smp_call wake-ups sent again (see call_watch) */
static bool lose_next_call_ipi;	/* test hook: the next smp_call sends no IPI */

static struct {
	u32 count;
	u32 sense;
	bool lose_wakeup;	/* test hook: the next last arriver sends no IPI */
	u64 opened_tsc;		/* when the last arriver opened it */
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

/*
 * The backstop: while a waiter halts, a periodic APIC timer tick makes it
 * look again, so a wake-up IPI that never arrives (seen once on nested
 * SVM: both vCPUs halted here for good) costs one period, not the run.
 * Periodic, not one-shot: a timer interrupt to a halted vCPU was seen to
 * get lost there too (stress_worker.c). The period grows with vCPUs per
 * host CPU so that hundreds of waiters do not keep the host busy waking
 * up, between 10 ms and 1 s.
 */
#define BACKSTOP_MIN_NS		10000000ull
#define BACKSTOP_MAX_NS		1000000000ull
/* A wake-up IPI still missing this long after the barrier opened is lost, not in flight. */
#define LATE_IPI_US		1000
#define IRR_BIT(v)		(1ull << ((v) % 32))
#define MSR_X2APIC_IRR(v)	(0x820 + (v) / 32)

static u32 barrier_rescues;

static u64 backstop_ns(void)
{
	u32 host = MAX(boot_info->host_cpus, 1u);
	u64 per_host = (boot_nr_cpus + host - 1) / host;

	return MIN(per_host * BACKSTOP_MIN_NS, BACKSTOP_MAX_NS);
}

/*
 * The backstop of smp_call: a caller waiting on `cpu`'s mailbox looks at
 * the clock every CALL_WATCH_SPINS spins, and when the same item has sat
 * untaken for a backstop period (backstop_ns(), above: 10 ms to 1 s) it
 * takes the wake-up IPI as lost and sends it again, so a lost IPI costs
 * one period, not the run. The target halts with IF=1 in its service loop;
 * one IPI too many only makes it look at its mailbox once more.
 */
#define CALL_WATCH_SPINS	256u

struct call_watch {
	u32 spins;
	bool timing;	/* an untaken item is being timed: */
	u32 item;	/* its mb->posted */
	u64 since;
};

static void call_watch_step(u32 cpu, struct smp_mailbox *mb, struct call_watch *w)
{
	u32 item;
	u64 now;

	cpu_relax();
	if (++w->spins % CALL_WATCH_SPINS)
		return;
	if (!load_acquire(&mb->fn)) {
		w->timing = false;
		return;
	}
	item = READ_ONCE(mb->posted);
	now = rdtsc();
	if (!w->timing || item != w->item) {
		w->timing = true;
		w->item = item;
		w->since = now;
		return;
	}
	if (now - w->since < us_to_cycles(backstop_ns() / 1000))
		return;
	atomic_inc(&call_resends);
	apic_send_ipi(percpu[cpu].apic_id, SMP_CALL_VECTOR);
	w->since = now;
}

static u32 mailbox_post(u32 cpu, smp_fn_t fn, void *arg)
{
	struct smp_mailbox *mb = &percpu[cpu].mbox;
	struct call_watch w = { 0 };
	u32 ticket;

	spin_lock(&mb->lock);
	while (load_acquire(&mb->fn))	/* the previous item is not taken yet */
		call_watch_step(cpu, mb, &w);
	mb->arg = arg;
	ticket = ++mb->posted;
	store_release(&mb->fn, fn);
	spin_unlock(&mb->lock);
	return ticket;
}

static void call_wait(u32 cpu, u32 ticket)
{
	struct smp_mailbox *mb = &percpu[cpu].mbox;
	struct call_watch w = { 0 };

	while (!ticket_done(mb, ticket))
		call_watch_step(cpu, mb, &w);
}

int smp_call(u32 cpu, smp_fn_t fn, void *arg, bool wait)
{
	u32 ticket;

	if (cpu == smp_id()) {
		fn(arg);
		return 0;
	}
	if (!smp_cpu_online(cpu))
		return -1;
	ticket = mailbox_post(cpu, fn, arg);
	if (READ_ONCE(lose_next_call_ipi))
		WRITE_ONCE(lose_next_call_ipi, false);
	else
		apic_send_ipi(percpu[cpu].apic_id, SMP_CALL_VECTOR);
	if (wait)
		call_wait(cpu, ticket);
	return 0;
}

void smp_wait(u32 cpu)
{
	if (cpu != smp_id() && smp_cpu_online(cpu))
		call_wait(cpu, READ_ONCE(percpu[cpu].mbox.posted));
}

u32 smp_call_resends(void)
{
	return load_acquire(&call_resends);
}

void smp_call_lose_next_ipi(void)
{
	WRITE_ONCE(lose_next_call_ipi, true);
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

static void backstop_arm(void)
{
	wrmsr(MSR_X2APIC_TIMER_DIV, TIMER_DIV_1);
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_TIMER_PERIODIC | BARRIER_TIMER_VECTOR);
	wrmsr(MSR_X2APIC_TIMER_INIT, backstop_ns());
}

/* With IF=0: stop the tick, and take one raised already so none reaches the caller. */
static void backstop_disarm(void)
{
	wrmsr(MSR_X2APIC_TIMER_INIT, 0);
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_MASKED | BARRIER_TIMER_VECTOR);
	asm volatile("sti; nop; cli" ::: "memory");
}

/* The tick only ends a HLT; the count tells the waiter who woke it. */
static void barrier_tick_irq(struct trap_frame *tf)
{
	struct percpu *pc = this_cpu();

	(void)tf;
	WRITE_ONCE(pc->barrier_ticks, pc->barrier_ticks + 1);
}

/*
 * At CPL0 waiters halt instead of spinning: with hundreds of vCPUs on a
 * few host CPUs, CPL0 spinners (emulated on kvm_pvm) would starve the
 * vCPUs still on their way. Everyone online takes part, so the last to
 * arrive wakes the rest with one all-but-self IPI; an IPI that lands
 * between a waiter's check and its HLT stays pending (IF=0) and ends the
 * HLT. At CPL3 (no HLT, no ICR there) waiters spin, natively on kvm_pvm.
 * All callers of one barrier run at the same CPL. A waiter whose last HLT
 * a tick ended, with the wake-up IPI not even pending a millisecond after
 * the barrier opened, counts a rescue.
 */
static void barrier_wait_halted(struct percpu *pc, u32 sense)
{
	bool irqs_were_on = read_rflags() & X86_EFLAGS_IF;
	bool armed = false;
	u32 ticks = 0;

	for (;;) {
		irq_disable();
		if (load_acquire(&barrier_state.sense) == sense)
			break;
		if (!armed) {
			backstop_arm();
			armed = true;
		}
		ticks = READ_ONCE(pc->barrier_ticks);
		safe_halt();
	}
	if (armed) {
		if (READ_ONCE(pc->barrier_ticks) != ticks &&
		    !(rdmsr(MSR_X2APIC_IRR(SMP_CALL_VECTOR)) & IRR_BIT(SMP_CALL_VECTOR)) &&
		    rdtsc() - READ_ONCE(barrier_state.opened_tsc) > us_to_cycles(LATE_IPI_US))
			atomic_inc(&barrier_rescues);
		backstop_disarm();
	}
	if (irqs_were_on)
		irq_enable();
}

u32 smp_barrier_rescues(void)
{
	return load_acquire(&barrier_rescues);
}

u32 smp_barrier_ticks(void)
{
	u32 n = 0;

	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		n += READ_ONCE(percpu[cpu].barrier_ticks);
	return n;
}

u32 smp_barrier_arrived(void)
{
	return load_acquire(&barrier_state.count);
}

void smp_barrier_lose_next_wakeup(void)
{
	WRITE_ONCE(barrier_state.lose_wakeup, true);
}

void smp_barrier(void)
{
	struct percpu *pc = this_cpu();
	u32 sense = !pc->barrier_sense;
	bool cpl0 = !(read_cs() & 3);

	pc->barrier_sense = sense;
	if (atomic_inc_return(&barrier_state.count) == smp_online_count()) {
		WRITE_ONCE(barrier_state.count, 0);
		WRITE_ONCE(barrier_state.opened_tsc, rdtsc());
		store_release(&barrier_state.sense, sense);
		if (READ_ONCE(barrier_state.lose_wakeup))
			WRITE_ONCE(barrier_state.lose_wakeup, false);
		else if (cpl0 && smp_online_count() > 1)
			apic_send_ipi_all_but_self(SMP_CALL_VECTOR);
		return;
	}
	if (cpl0) {
		barrier_wait_halted(pc, sense);
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
	irq_register_reserved(BARRIER_TIMER_VECTOR, barrier_tick_irq);
	irq_register_reserved(SPURIOUS_VECTOR, spurious_irq);
}
