// SPDX-License-Identifier: MIT
/*
 * stress: the loop each vCPU runs, at CPL0 with interrupts on throughout
 * (so it receives while it sends). A round: one IPI hypercall to every
 * target that has counted our previous IPI, then one flush hypercall.
 * With no target ready the vCPU halts with IF=1 (how kvm_pvm delivers IPIs
 * quickly) until a target's handler, having counted our IPI, wakes it with
 * an x2APIC IPI. Wake-ups are event-driven because on the nested runner a
 * halted vCPU's one-shot APIC timer interrupt was seen to get lost under
 * overcommit; the timer stays only as a second chance. Every vCPU watches
 * the others: an IPI unanswered, or a vCPU without a round, for longer
 * than the stall limit stops the run with a message. vCPU 0 does its final
 * waiting awake (IF=1, no HLT), so the watch goes on whatever the timer does.
 */
#include <minivmm/abi.h>

#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/timing.h"
#include "tests/stress.h"

#define NAP_TICKS		200000	/* one-shot: 200 us at KVM's 1 GHz APIC bus */
/*
 * Past BIG_VM vCPUs the second chance comes later: hundreds of halted
 * vCPUs each woken every 200 us would keep the host CPUs busy with wake-ups
 * and starve the vCPUs with work (vCPU 0 posting the start, senders).
 */
#define NAP_TICKS_BIG		(10 * NAP_TICKS)
#define GO_WAIT_TICKS		100000000	/* 100 ms: vCPU 0's IPI is what ends it */
#define START_WAIT_US		5000000
#define START_WAIT_US_PER_VCPU	20000
#define AWAKE_POLL_US		100
#define CHECK_EVERY		8
#define MIN_ROUNDS		8	/* one turn through the flush calls, however slow */
/*
 * With this many vCPUs the turns, which start at each vCPU's index, cover
 * every call between them in two rounds: on an overcommitted host each
 * round of hundreds of vCPUs takes seconds.
 */
#define MIN_ROUNDS_BIG		2
#define BIG_VM			64

enum nap_until {
	UNTIL_READY,		/* some target can take an IPI again, or time is up */
	UNTIL_ACKED,		/* every target counted everything we sent */
	UNTIL_ALL_DONE,		/* every vCPU finished (vCPU 0) */
};

struct stress_cpu *stress_cpus;
struct stress_ctl stress_ctl;

/* Wake `t` if it is napping (or about to): its nap re-checks after this. */
static void wake(u32 t)
{
	if (atomic_xchg(&stress_cpus[t].sleeping, 0))
		apic_send_ipi(t, STRESS_WAKE_VEC);
}

static void stress_ipi_irq(struct trap_frame *tf)
{
	u32 me = smp_id(), q = (u32)tf->vector - STRESS_VEC_BASE;
	struct stress_cpu *c = &stress_cpus[me];

	WRITE_ONCE(c->recv[q], c->recv[q] + 1);
	wake(stress_sender(me, q));
}

/* Wake-up and timer interrupts only end a HLT. */
static void stress_nop_irq(struct trap_frame *tf)
{
	(void)tf;
}

void stress_handlers(bool on)
{
	for (u32 q = 0; q < MIN(stress_ctl.nr, (u32)STRESS_MAX_PEERS); q++) {
		if (on)
			irq_register(STRESS_VEC_BASE + q, stress_ipi_irq);
		else
			irq_unregister(STRESS_VEC_BASE + q);
	}
	if (on) {
		irq_register(STRESS_WAKE_VEC, stress_nop_irq);
		irq_register(STRESS_TIMER_VEC, stress_nop_irq);
	} else {
		irq_unregister(STRESS_WAKE_VEC);
		irq_unregister(STRESS_TIMER_VEC);
	}
}

void stress_peers_init(u32 s)
{
	struct stress_cpu *c = &stress_cpus[s];
	u32 nb = stress_ctl.nr_banks, key = stress_key(s);

	/* In bank b, key(64b + j) == key exactly for j == key - b (mod nb). */
	c->nr_peers = 0;
	for (u32 b = 0; b < nb; b++)
		for (u32 j = (key + nb - b % nb) % nb; j < 64; j += nb)
			if (64 * b + j < stress_ctl.nr && c->nr_peers < STRESS_MAX_PEERS)
				c->peer[c->nr_peers++] = (u16)(64 * b + j);
}

static u64 all_peers(u32 me)
{
	u32 n = stress_cpus[me].nr_peers;

	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static u64 ms(u64 cycles)
{
	return cycles_to_ns(cycles) / 1000000;
}

/* The first vCPU to see trouble says what it saw; everyone stops. */
static void stress_stop(u32 me, const char *fmt, ...) __printf(2, 3);
static void stress_stop(u32 me, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (atomic_xchg(&stress_ctl.stop, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (u32 t = 0; t < stress_ctl.nr; t++)
		wake(t);
	report_fail("no deadlock, no lost or extra IPI", "seen by vCPU %u: %s", me, why);
	store_release(&stress_ctl.stall_reporter, me + 1);
}

/* Peers (bit k) that counted our last IPI; a count above ours is an extra delivery. */
static u64 ready_targets(u32 me)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 ready = 0;

	for (u32 k = 0; k < c->nr_peers; k++) {
		u32 t = c->peer[k], got = READ_ONCE(stress_cpus[t].recv[me % 64]);

		if (got == c->sent[k])
			ready |= 1ull << k;
		else if ((s32)(got - c->sent[k]) > 0)
			stress_stop(me, "vCPU %u took %u IPIs from vCPU %u, %u were sent", t, got,
				    me, c->sent[k]);
	}
	return ready;
}

static bool all_done(void)
{
	for (u32 t = 0; t < stress_ctl.nr; t++)
		if (!load_acquire(&stress_cpus[t].done))
			return false;
	return true;
}

static bool nap_over(u32 me, enum nap_until until)
{
	if (READ_ONCE(stress_ctl.stop))
		return true;
	if (until == UNTIL_ALL_DONE)
		return all_done();
	if (until == UNTIL_ACKED)
		return ready_targets(me) == all_peers(me);
	return ready_targets(me) || rdtsc() >= stress_ctl.end;
}

/*
 * Say "sleeping" (a locked xchg: a full barrier), then check with IF=0,
 * then STI;HLT. Whoever changes what we wait for changes it first and
 * then looks at the flag, so either we see the change or they wake us.
 */
static void nap(u32 me, enum nap_until until)
{
	struct stress_cpu *c = &stress_cpus[me];

	irq_disable();
	atomic_xchg(&c->sleeping, 1);
	if (nap_over(me, until)) {
		WRITE_ONCE(c->sleeping, 0);
		irq_enable();
		return;
	}
	wrmsr(MSR_X2APIC_TIMER_INIT, stress_ctl.nr > BIG_VM ? NAP_TICKS_BIG : NAP_TICKS);
	safe_halt();
	WRITE_ONCE(c->sleeping, 0);
}

static void check_peers(u32 me, u64 now)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 limit = stress_ctl.stall_cycles;

	/* Every vCPU is its own peer and has others: every heartbeat is watched. */
	for (u32 k = 0; k < c->nr_peers; k++) {
		u32 t = c->peer[k];
		const struct stress_cpu *o = &stress_cpus[t];
		u32 got = READ_ONCE(o->recv[me % 64]);

		if (got != c->sent[k] && now > c->sent_at[k] + limit)
			stress_stop(me, "IPI to vCPU %u unanswered for %lu ms (sent %u, got %u)", t,
				    ms(now - c->sent_at[k]), c->sent[k], got);
		if (!load_acquire(&o->done) && now > READ_ONCE(o->heartbeat) + limit)
			stress_stop(me, "vCPU %u has not finished a round for %lu ms", t,
				    ms(now - o->heartbeat));
	}
}

static void count_call(struct stress_cpu *c, enum stress_op op, u64 rax, u64 want)
{
	if (rax == want) {
		c->ops[op]++;
		return;
	}
	if (!c->bad_calls++) {
		c->bad_op = op;
		c->bad_rax = rax;
		c->bad_want = want;
	}
}

static enum stress_op next_op(u32 *turn, enum stress_op first, u32 nr)
{
	enum stress_op op;

	do {
		op = first + (*turn)++ % nr;
	} while (!stress_op_available(op));
	return op;
}

/* One IPI call to every ready target; false when none was ready. */
static bool send_round(u32 me, u64 now)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 ready = ready_targets(me), peers, want, rax;
	enum stress_op op;

	if (!ready)
		return false;
	op = next_op(&c->ipi_turn, OP_IPI, NR_IPI_OPS);
	peers = stress_ipi_peers(me, op, ready);
	if (!peers) {		/* none this form can name: a regular Ex call names any */
		op = OP_IPI_EX;
		peers = ready;
	}
	/* Counted before the call: the handler may run before it returns. */
	for (u32 k = 0; k < c->nr_peers; k++)
		if (peers & (1ull << k)) {
			c->sent[k]++;
			c->sent_at[k] = now;
		}
	rax = stress_ipi(me, op, peers, &want);
	if (rax != want)	/* a failed call sends nothing (docs/hyperv.md) */
		for (u32 k = 0; k < c->nr_peers; k++)
			if (peers & (1ull << k))
				c->sent[k]--;
	count_call(c, op, rax, want);
	return true;
}

static void flush_round(u32 me)
{
	struct stress_cpu *c = &stress_cpus[me];
	enum stress_op op = next_op(&c->flush_turn, OP_SPACE, NR_STRESS_OPS - NR_IPI_OPS);
	u64 want, rax = stress_flush(me, op, &want);

	count_call(c, op, rax, want);
}

static u64 total_ops(const struct stress_cpu *c)
{
	u64 n = 0;

	for (u32 op = 0; op < NR_STRESS_OPS; op++)
		n += c->ops[op];
	return n;
}

static u64 per_second(u64 events, u64 cycles)
{
	return cycles ? events * (tsc_khz * 1000) / cycles : 0;
}

/*
 * Halfway through (or at its last round, on a host too slow to get there
 * with a call done), each vCPU hands the VMM a record while the rest
 * hammer on.
 */
static void midrun_record(u32 me, u64 now, bool last)
{
	struct stress_cpu *c = &stress_cpus[me];
	u64 n = total_ops(c), rate;
	struct mvm_result r;
	char variant[16];

	if (c->midrun_record || !n)
		return;
	if (!last && now < stress_ctl.start + stress_ctl.run_cycles / 2)
		return;
	rate = per_second(n, now - stress_ctl.start);
	snprintf(variant, sizeof(variant), "vcpu %u", me);
	result_init(&r, "stress", "ops so far", variant);
	r.unit = MVM_UNIT_PER_SEC;
	r.targets = stress_ctl.nr;
	r.iters = n;
	r.min = r.median = r.p90 = r.p99 = r.max = r.mean = rate;
	result_submit(&r);
	c->midrun_record = true;
}

/* Every vCPU's CPL0 path is emulated on kvm_pvm: allow for each one. */
static u64 start_wait_us(void)
{
	return START_WAIT_US + (u64)stress_ctl.nr * START_WAIT_US_PER_VCPU;
}

/*
 * Halt until vCPU 0 says go (its all-but-self IPI ends the HLT): hundreds
 * of vCPUs spinning here at CPL0 would keep vCPU 0 from posting the rest.
 */
static void wait_for_go(void)
{
	u64 end = tsc_deadline(2 * start_wait_us());

	for (;;) {
		irq_disable();
		if (load_acquire(&stress_ctl.go) || READ_ONCE(stress_ctl.stop) || rdtsc() > end)
			break;
		wrmsr(MSR_X2APIC_TIMER_INIT, GO_WAIT_TICKS);	/* a second chance */
		safe_halt();
	}
}

static bool start_together(u32 me)
{
	atomic_inc(&stress_ctl.arrived);
	if (me) {
		wait_for_go();
		return load_acquire(&stress_ctl.go) && !READ_ONCE(stress_ctl.stop);
	}
	if (!wait_until(READ_ONCE(stress_ctl.arrived) == stress_ctl.nr, start_wait_us()))
		stress_stop(me, "only %u of %u vCPUs arrived", stress_ctl.arrived, stress_ctl.nr);
	stress_ctl.start = rdtsc();
	stress_ctl.end = stress_ctl.start + stress_ctl.run_cycles;
	for (u32 t = 0; t < stress_ctl.nr; t++)
		stress_cpus[t].heartbeat = stress_ctl.start;
	store_release(&stress_ctl.go, 1);
	if (stress_ctl.nr > 1)
		apic_send_ipi_all_but_self(STRESS_WAKE_VEC);
	return !READ_ONCE(stress_ctl.stop);
}

static void run_rounds(u32 me)
{
	struct stress_cpu *c = &stress_cpus[me];

	for (u64 round = 0; !READ_ONCE(stress_ctl.stop); round++) {
		u64 now = rdtsc();
		bool sent;

		WRITE_ONCE(c->heartbeat, now);
		if (now >= stress_ctl.end &&
		    round >= (stress_ctl.nr > BIG_VM ? MIN_ROUNDS_BIG : MIN_ROUNDS))
			break;
		if (round % CHECK_EVERY == 0)
			check_peers(me, now);
		midrun_record(me, now, false);
		sent = send_round(me, now);
		flush_round(me);
		if (!sent)
			nap(me, UNTIL_READY);
	}
	midrun_record(me, rdtsc(), true);
}

/* Wait for `until`, still answering IPIs and watching the others. */
static void wait_phase(u32 me, enum nap_until until)
{
	while (!nap_over(me, until)) {
		u64 now = rdtsc();

		WRITE_ONCE(stress_cpus[me].heartbeat, now);
		check_peers(me, now);
		if (me)
			nap(me, until);
		else
			udelay(AWAKE_POLL_US);	/* the watcher never sleeps */
	}
}

/* Stop the timer; one it raised already is taken before smp_call() returns. */
static void timer_off(void)
{
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_MASKED | STRESS_TIMER_VEC);
	wrmsr(MSR_X2APIC_TIMER_INIT, 0);
}

/* A stall seen by another vCPU: if vCPU 0 cannot report it, end the run here. */
static void reporter_fallback(u32 me)
{
	if (READ_ONCE(stress_ctl.stall_reporter) != me + 1 || !me)
		return;
	if (!wait_until(READ_ONCE(stress_ctl.vcpu0_reported), ms(stress_ctl.stall_cycles) * 1000)) {
		printf("stress: vCPU 0 did not report within the stall limit; ending the run\n");
		report_finish();
	}
}

void stress_worker(void *arg)
{
	u32 me = smp_id();
	struct stress_cpu *c = &stress_cpus[me];

	(void)arg;
	stress_peers_init(me);
	wrmsr(MSR_X2APIC_TIMER_DIV, TIMER_DIV_1);
	wrmsr(MSR_X2APIC_LVT_TIMER, STRESS_TIMER_VEC);	/* one-shot */
	if (start_together(me)) {
		irq_enable();
		run_rounds(me);
		wait_phase(me, UNTIL_ACKED);
		c->rate = per_second(total_ops(c), rdtsc() - stress_ctl.start);
		timer_off();
		if (!me) {
			store_release(&c->done, true);
			wait_phase(me, UNTIL_ALL_DONE);
		}
		irq_disable();
	} else {
		timer_off();
	}
	store_release(&c->done, true);
	wake(0);
	reporter_fallback(me);
}
