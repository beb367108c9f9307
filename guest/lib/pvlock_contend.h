/* SPDX-License-Identifier: MIT */
/*
 * Every online vCPU against one pvlock: the shared driver of the locks and
 * preempt-call suites. vCPU 0 calls pvlock_contend_run(); each vCPU meets
 * the others at a barrier (CPL3), then runs its pvlock_worker until its
 * quota or its time window is used up. All numbers are guest TSC readings.
 */
#ifndef GUEST_LIB_PVLOCK_CONTEND_H
#define GUEST_LIB_PVLOCK_CONTEND_H

#include "lib/pvlock.h"

#define PVLOCK_EPISODES_MAX	65536u	/* wait-round samples kept, all vCPUs together */

struct pvlock_contend {
	/* Set by the caller. */
	enum pvlock_wait wait;
	u64 quota;		/* acquisitions per vCPU; 0: run for window_us */
	u32 cs_work;		/* loop rounds inside the critical section */
	u64 window_us;
	bool keep_episodes;	/* collect cycles-per-wait-round samples */
	/* Results. */
	u32 nr_cpus;
	u64 counter;		/* the non-atomic counter: must equal total */
	u64 total;		/* acquisitions, all vCPUs */
	u64 elapsed;		/* cycles from the first start to the last end */
	u64 min_share, max_share;	/* fewest / most acquisitions of one vCPU */
	u64 contended, rounds, preempted_seen, halts, kicks;
	u64 *episodes;		/* nr_episodes samples (cycles per wait round) */
	u32 nr_episodes;
	struct pvlock_worker w[GUEST_MAX_VCPUS];
};

void pvlock_contend_run(struct pvlock_contend *c);

/* Acquisitions per second over the whole run, and for vCPU `cpu`. */
u64 pvlock_contend_rate(const struct pvlock_contend *c);
u64 pvlock_contend_cpu_rate(const struct pvlock_contend *c, u32 cpu);

#endif /* GUEST_LIB_PVLOCK_CONTEND_H */
