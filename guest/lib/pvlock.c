// SPDX-License-Identifier: MIT
#include "lib/apic.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/pvlock.h"
#include "lib/pvtime.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "lib/user.h"

#define __always_inline		inline __attribute__((always_inline))

enum pvlock_step {
	STEP_DONE,		/* quota or window reached, lock not held */
	STEP_HALT,		/* waiting for w->ticket: halt until it is served */
	STEP_KICK,		/* released: IPI w->kick_cpu, then resume */
};

enum hook { HOOK_NONE, HOOK_CALL, HOOK_THUNK };

static u64 kicks_received[GUEST_MAX_VCPUS];

static void kick_irq(struct trap_frame *tf)
{
	(void)tf;
	kicks_received[smp_id()]++;	/* only this vCPU writes its slot */
}

void pvlock_setup(void)
{
	irq_register(PVLOCK_KICK_VECTOR, kick_irq);
}

u64 pvlock_kicks_received(u32 cpu)
{
	return READ_ONCE(kicks_received[cpu]);
}

void pvlock_init(struct pvlock *l)
{
	memset(l, 0, sizeof(*l));
}

const char *pvlock_wait_name(enum pvlock_wait w)
{
	static const char *const names[PVLOCK_NR_WAITS] = {
		[PVLOCK_SPIN] = "spin",
		[PVLOCK_SPIN_CALL] = "spin+call",
		[PVLOCK_SPIN_THUNK] = "spin+thunk",
		[PVLOCK_PV] = "pv-spin+hlt",
		[PVLOCK_HALT] = "hlt+ipi",
	};

	return w < PVLOCK_NR_WAITS ? names[w] : "?";
}

/*
 * The locked add orders our `owner` store before the loads below, and the
 * waiter's xchg orders its `sleeper.on` store before its `owner` load: at
 * least one of us sees the other, so a waiter never sleeps through its turn.
 */
u32 pvlock_unlock_pv(struct pvlock *l)
{
	u32 n = __atomic_add_fetch(&l->owner, 1, __ATOMIC_SEQ_CST);
	u32 cpu = READ_ONCE(l->ticket_cpu[n % PVLOCK_SLOTS]);

	if (cpu < GUEST_MAX_VCPUS && READ_ONCE(l->sleeper[cpu].on) == (PVLOCK_SLEEPING | n))
		return cpu;
	return PVLOCK_NO_CPU;
}

static void account_wait(struct pvlock_worker *w, u64 t0, u64 rounds, u64 seen)
{
	u64 cycles = rdtsc() - t0;

	w->contended++;
	w->rounds += rounds;
	w->wait_cycles += cycles;
	w->preempted_seen += seen;
	if (w->episodes && rounds && w->nr_episodes < w->max_episodes)
		w->episodes[w->nr_episodes++] = cycles / rounds;
}

/*
 * The wait loop, specialised per hook at compile time so each variant is a
 * loop of its own. Returns false when the caller must halt instead.
 */
static __always_inline bool wait_loop(struct pvlock_worker *w, enum hook hook, bool halt)
{
	struct pvlock *l = w->lock;
	u32 t = w->ticket, o = load_acquire(&l->owner);
	u64 t0, rounds = 0, seen = 0;
	bool got = true;

	if (o == t)
		return true;
	t0 = rdtsc();
	do {
		if (hook != HOOK_NONE) {
			u32 cpu = READ_ONCE(l->ticket_cpu[o % PVLOCK_SLOTS]) % GUEST_MAX_VCPUS;
			bool p = hook == HOOK_CALL ? vcpu_is_preempted(cpu) :
						     vcpu_is_preempted_thunked(cpu);

			if (p) {
				seen++;
				if (halt) {
					got = false;
					break;
				}
			}
		}
		cpu_relax();
		rounds++;
		o = load_acquire(&l->owner);
	} while (o != t);
	account_wait(w, t0, rounds, seen);
	return got;
}

static __attribute__((noinline)) bool wait_spin(struct pvlock_worker *w)
{
	return wait_loop(w, HOOK_NONE, false);
}

static __attribute__((noinline)) bool wait_spin_call(struct pvlock_worker *w)
{
	return wait_loop(w, HOOK_CALL, false);
}

static __attribute__((noinline)) bool wait_spin_thunk(struct pvlock_worker *w)
{
	return wait_loop(w, HOOK_THUNK, false);
}

static __attribute__((noinline)) bool wait_pv(struct pvlock_worker *w)
{
	return wait_loop(w, HOOK_THUNK, true);
}

static bool wait_halt(struct pvlock_worker *w)
{
	if (load_acquire(&w->lock->owner) == w->ticket)
		return true;
	w->contended++;
	return false;
}

static bool wait_turn(struct pvlock_worker *w)
{
	switch (w->wait) {
	case PVLOCK_SPIN_CALL:
		return wait_spin_call(w);
	case PVLOCK_SPIN_THUNK:
		return wait_spin_thunk(w);
	case PVLOCK_PV:
		return wait_pv(w);
	case PVLOCK_HALT:
		return wait_halt(w);
	default:
		return wait_spin(w);
	}
}

/* A read-modify-write that only mutual exclusion keeps from losing updates. */
static void critical_section(struct pvlock_worker *w)
{
	u64 v = READ_ONCE(*w->counter);

	/* Widen the window a second holder would need; no PAUSE (it may exit). */
	for (u32 i = 0; i < w->cs_work; i++)
		asm volatile("");
	WRITE_ONCE(*w->counter, v + 1);
	w->acquired++;
}

/* True when a halted waiter must be kicked (w->kick_cpu). */
static bool release(struct pvlock_worker *w)
{
	u32 cpu;

	if (w->wait != PVLOCK_PV && w->wait != PVLOCK_HALT) {
		pvlock_unlock(w->lock);
		return false;
	}
	cpu = pvlock_unlock_pv(w->lock);
	if (cpu == PVLOCK_NO_CPU)
		return false;
	w->kick_cpu = cpu;
	w->kicks_sent++;
	return true;
}

static bool finished(const struct pvlock_worker *w)
{
	return w->quota ? w->acquired >= w->quota : rdtsc() >= w->deadline;
}

/* CPL3: acquire, count, release until done or CPL0 is needed. */
static u64 work(void *arg)
{
	struct pvlock_worker *w = arg;

	if (!w->started) {
		w->started = true;
		w->start = rdtsc();
		w->deadline = w->start + w->window;
	}
	for (;;) {
		if (!w->waiting) {
			if (finished(w)) {
				w->end = rdtsc();
				return STEP_DONE;
			}
			w->ticket = pvlock_take_ticket(w->lock, smp_id());
			w->waiting = true;
		}
		if (!wait_turn(w))
			return STEP_HALT;
		w->waiting = false;
		critical_section(w);
		if (release(w))
			return STEP_KICK;
	}
}

/* CPL0, IF=0: publish that we sleep, re-check, and halt until our ticket is served. */
static void halt_for_turn(struct pvlock_worker *w)
{
	struct pvlock *l = w->lock;
	u64 *on = &l->sleeper[smp_id()].on;

	atomic_xchg(on, PVLOCK_SLEEPING | w->ticket);
	while (load_acquire(&l->owner) != w->ticket) {
		safe_halt();	/* a kick sent after the check is pending and ends it */
		irq_disable();
		w->halts++;
	}
	WRITE_ONCE(*on, 0);
}

void pvlock_run(struct pvlock_worker *w)
{
	bool irqs_were_on = read_rflags() & X86_EFLAGS_IF;

	irq_disable();
	for (;;) {
		u64 step = run_user(work, w, RUN_USER_IRQS_OFF);

		if (step == STEP_DONE)
			break;
		if (step == STEP_KICK)
			apic_send_ipi(percpu[w->kick_cpu].apic_id, PVLOCK_KICK_VECTOR);
		else
			halt_for_turn(w);
	}
	if (irqs_were_on)
		irq_enable();
}
