/* SPDX-License-Identifier: MIT */
/*
 * The stress suite's shared state (docs/robustness.md). Every vCPU is a
 * sender and a receiver. Sender s sends with vector STRESS_VEC_BASE +
 * s % 64 only, to its peers: the vCPUs t with key(t) == key(s), where
 * key(x) = (x / 64 + x % 64) % nr_banks. Two senders with one vector share
 * no peer (their banks would have to agree modulo nr_banks), so a receiver
 * hears on each vector from one sender alone. Up to 64 vCPUs that is
 * everyone to everyone with one vector per sender; past that each sender
 * has at most 64 peers spread over every bank. A sender sends to a peer
 * again only after it has counted the previous one (recv == sent): an
 * interrupt can then never be merged with a pending one, so every send
 * must show up as exactly one delivery.
 */
#ifndef GUEST_TESTS_STRESS_H
#define GUEST_TESTS_STRESS_H

#include "lib/apic.h"	/* the x2APIC timer registers */
#include "lib/types.h"

#define STRESS_VEC_BASE		0x40	/* ..0x7f: sender s uses STRESS_VEC_BASE + s % 64 */
#define STRESS_MAX_PEERS	64
/*
 * Above SMP_CALL_VECTOR on purpose: one pending when an smp_call() IPI
 * arrives is taken first, so a synchronous smp_call() to a vCPU proves it
 * has no wake-up or timer interrupt left in flight.
 */
#define STRESS_WAKE_VEC		0xf1
#define STRESS_TIMER_VEC	0xf2

enum stress_op {
	OP_IPI, OP_IPI_FAST, OP_IPI_EX, OP_IPI_EX_XMM,
	OP_SPACE, OP_SPACE_XMM, OP_LIST, OP_LIST_XMM,
	OP_SPACE_EX, OP_SPACE_EX_XMM, OP_LIST_EX, OP_LIST_EX_XMM,
	NR_STRESS_OPS,
};
#define NR_IPI_OPS	4	/* the first four */

/* One vCPU's counters; other vCPUs only read them. */
struct stress_cpu {
	u32 sent[STRESS_MAX_PEERS];	/* by this sender, per peer k */
	u32 recv[STRESS_MAX_PEERS];	/* by this receiver, per sender vector (handler) */
	u16 peer[STRESS_MAX_PEERS];	/* this sender's peers, ascending */
	u32 nr_peers;
	u64 sent_at[STRESS_MAX_PEERS];	/* TSC of the send still unanswered */
	u64 ops[NR_STRESS_OPS];		/* calls that returned as expected */
	u64 bad_calls;			/* calls that did not */
	u64 bad_op, bad_rax, bad_want;	/* the first of them */
	u64 heartbeat;			/* TSC of the last loop round */
	u64 rate;			/* calls/s over the whole run */
	u64 rng;
	u32 ipi_turn, flush_turn;
	u32 sleeping;			/* in nap(): wake me when you ack or finish */
	bool midrun_record;
	bool done;
} __aligned(64);

struct stress_ctl {
	u32 nr;				/* vCPUs taking part: all */
	u32 nr_banks;			/* (nr + 63) / 64 */
	bool xmm;			/* XMM-fast input offered */
	u64 run_cycles, stall_cycles;
	u64 start, end;			/* TSC */
	u32 arrived;
	u32 go;
	u32 stop;			/* a stall was seen: everyone stops */
	u32 vcpu0_reported;		/* vCPU 0 got to the verdicts */
	u32 stall_reporter;		/* 1 + the vCPU that reported the stall */
};

/* stress_ctl.nr entries, taken from boot memory on the suite's first run. */
extern struct stress_cpu *stress_cpus;
extern struct stress_ctl stress_ctl;

static inline u32 stress_key(u32 x)
{
	return (x / 64 + x % 64) % stress_ctl.nr_banks;
}

/* Who sends to t on vector STRESS_VEC_BASE + q: the one sender of t with s % 64 == q. */
static inline u32 stress_sender(u32 t, u32 q)
{
	u32 nb = stress_ctl.nr_banks;

	return 64 * ((stress_key(t) + nb - q % nb) % nb) + q;
}

/* Fill stress_cpus[s].peer: the vCPUs with s's key, in ascending order. */
void stress_peers_init(u32 s);

/* stress_ops.c: the per-vCPU input blocks, once (boot memory). */
void stress_ops_init(u32 nr);
/*
 * stress_ops.c: the peers (a mask over k) among `ready` that one call of
 * `op` can name: a 64-bit mask reaches VPs 0..63 only, an XMM-fast block
 * 11 banks. Then issue that call and return RAX; *want is the right RAX.
 */
u64 stress_ipi_peers(u32 me, enum stress_op op, u64 ready);
u64 stress_ipi(u32 me, enum stress_op op, u64 peers, u64 *want);
u64 stress_flush(u32 me, enum stress_op op, u64 *want);
const char *stress_op_name(enum stress_op op);
bool stress_op_available(enum stress_op op);

/* stress_worker.c: the loop every vCPU runs (through smp_call on the others). */
void stress_worker(void *arg);
void stress_handlers(bool on);

#endif /* GUEST_TESTS_STRESS_H */
