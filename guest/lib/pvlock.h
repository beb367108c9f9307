/* SPDX-License-Identifier: MIT */
/*
 * A ticket lock for paravirtual-lock experiments under overcommit.
 *
 * Waiters take a ticket and wait for `owner` to reach it. How they wait is
 * the experiment (enum pvlock_wait):
 *  - SPIN:  spin on `owner` (the native lock);
 *  - SPIN_CALL / SPIN_THUNK: spin, and ask vcpu_is_preempted() about the
 *    vCPU being served on every round (plain C call / callee-saved thunk),
 *    only counting the answers: the cost of the PV hook in the slow path;
 *  - PV:    spin while the vCPU being served runs; once it is seen
 *    preempted, stop spinning and halt until our turn (the unlocker kicks
 *    with an IPI). Halting, not pause-loop backoff: backing off keeps the
 *    physical CPU busy, so the preempted holder still waits for it, while a
 *    halted vCPU gives its CPU back to the host scheduler.
 *  - HALT:  halt at once; the unlocker kicks the next waiter.
 * PV and HALT unlock with a locked add and then look for a halted next
 * waiter (Dekker-style against the waiter's xchg): that fence is the price
 * of being able to sleep.
 *
 * A worker (struct pvlock_worker) runs the acquire / critical section /
 * release loop at CPL3 through run_user(), so it is native on kvm_pvm. HLT
 * and the x2APIC ICR write need CPL0: the CPL3 loop returns to pvlock_run()
 * for exactly those (halt until our turn, or send a kick) and is resumed.
 * Kicks are IPIs, never hypercalls (KVM_HC_KICK_CPU hangs on kvm_pvm).
 */
#ifndef GUEST_LIB_PVLOCK_H
#define GUEST_LIB_PVLOCK_H

#include "lib/atomic.h"
#include "lib/layout.h"
#include "lib/types.h"

#define PVLOCK_SLOTS		GUEST_MAX_VCPUS	/* >= tickets outstanding at once */
#define PVLOCK_KICK_VECTOR	0x6b	/* registered for good: a late kick must find it */
#define PVLOCK_NO_CPU		0xffffffffu
/* sleeper.on while halted: PVLOCK_SLEEPING | the ticket waited for */
#define PVLOCK_SLEEPING		(1ull << 32)

struct pvlock_sleeper {
	u64 on;			/* nonzero while halted waiting for that ticket */
} __aligned(64);

struct pvlock {
	u32 next __aligned(64);	/* ticket dispenser */
	u32 owner;		/* ticket being served; only the holder advances it */
	/* Who took ticket t, at t % PVLOCK_SLOTS: the vCPU to ask about or kick. */
	u32 ticket_cpu[PVLOCK_SLOTS] __aligned(64);
	struct pvlock_sleeper sleeper[GUEST_MAX_VCPUS];
};

enum pvlock_wait {
	PVLOCK_SPIN,
	PVLOCK_SPIN_CALL,
	PVLOCK_SPIN_THUNK,
	PVLOCK_PV,
	PVLOCK_HALT,
	PVLOCK_NR_WAITS,
};

/* Register the kick vector's handler (once, any vCPU). */
void pvlock_setup(void);
void pvlock_init(struct pvlock *l);
/* Kicks this vCPU has taken (the handler counts them). */
u64 pvlock_kicks_received(u32 cpu);
const char *pvlock_wait_name(enum pvlock_wait w);

static inline u32 pvlock_take_ticket(struct pvlock *l, u32 cpu)
{
	u32 t = __atomic_fetch_add(&l->next, 1, __ATOMIC_SEQ_CST);

	WRITE_ONCE(l->ticket_cpu[t % PVLOCK_SLOTS], cpu);
	return t;
}

/* Uncontended-path primitives, for the cost cases. */
static inline void pvlock_lock(struct pvlock *l, u32 cpu)
{
	u32 t = pvlock_take_ticket(l, cpu);

	while (load_acquire(&l->owner) != t)
		cpu_relax();
}

static inline void pvlock_unlock(struct pvlock *l)
{
	store_release(&l->owner, l->owner + 1);
}

/* Release, then return the halted vCPU waiting for the next ticket, if any. */
u32 pvlock_unlock_pv(struct pvlock *l);

/* One vCPU's share of a lock run. */
struct pvlock_worker {
	/* Set by the caller. */
	struct pvlock *lock;
	enum pvlock_wait wait;
	u64 *counter;		/* incremented non-atomically inside the lock */
	u32 cs_work;		/* empty loop rounds between the counter's load and store */
	u64 quota;		/* stop after this many acquisitions; 0: after `window` */
	u64 window;		/* TSC cycles from the first acquisition attempt */
	u64 *episodes;		/* optional: cycles per wait round, one per contended wait */
	u32 max_episodes;
	/* Results. */
	u32 nr_episodes;
	u64 acquired;
	u64 start, end;		/* TSC at the first attempt and after the last release */
	u64 contended;		/* acquisitions that had to wait */
	u64 rounds;		/* wait-loop rounds, summed */
	u64 wait_cycles;	/* TSC cycles spent in the wait loops, summed */
	u64 preempted_seen;	/* rounds that found the served vCPU preempted */
	u64 halts;		/* HLTs executed while waiting */
	u64 kicks_sent;
	/* Resume state of the CPL3 loop. */
	u64 deadline;
	u32 ticket;
	u32 kick_cpu;
	bool waiting;
	bool started;
} __aligned(64);

/*
 * Run the worker to completion on this vCPU. Call at CPL0 (smp_call or the
 * suite itself); the interrupt flag is restored on return.
 */
void pvlock_run(struct pvlock_worker *w);

#endif /* GUEST_LIB_PVLOCK_H */
