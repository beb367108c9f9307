/* SPDX-License-Identifier: MIT */
/*
 * Where the other vCPUs wait while vCPU 0 measures IPIs and flushes aimed
 * at them. By default they are halted with IF=1 in smp_service_loop();
 * bench_targets_spin() makes them spin at CPL3 with IF=1 instead (a running
 * vCPU; on kvm_pvm the cheap state to interrupt besides HLT), and
 * bench_vmm_pause() has the VMM hold one out of guest mode (preempted).
 */
#ifndef GUEST_LIB_BENCH_TARGETS_H
#define GUEST_LIB_BENCH_TARGETS_H

#include "lib/boot.h"
#include "lib/types.h"

/* Every other online vCPU spins at CPL3; false if they did not all start within 5 s. */
bool bench_targets_spin(void);

/*
 * Only vCPUs 0..last other than the caller spin: past 64 vCPUs on a host
 * with a few CPUs, every spinner is a runnable thread the targets queue
 * behind, so a count's table spins its own targets and no more.
 */
bool bench_targets_spin_upto(u32 last);

/*
 * The bench time of a count sweep past 64 vCPUs: a table that took longer
 * than this (from `start_tsc`) is the sweep's last, and the larger counts
 * are reported as SKIP. bench_targets_over() says whether it did.
 */
#define BENCH_SWEEP_TABLE_US	20000000
bool bench_targets_over(u64 start_tsc);

/* Stop the spinners; they go back to halting in smp_service_loop(). */
void bench_targets_halt(void);

/*
 * MVM_CTRL_PAUSE_VCPU: the VMM keeps `cpu` out of guest mode for `us`
 * microseconds and answers once the hold has begun (or, if `cpu` is still
 * held, once that hold has ended and the new one begun). 0, the VMM's
 * negative status (MVM_CTRL_EINVAL), or 1 when no device answered.
 */
int bench_vmm_pause(u32 cpu, u32 us);

/*
 * Target counts past 64 vCPUs: 1, 2, 4 ... then N-1 (N = boot_nr_cpus).
 * Returns the count after k; N or more once k reached N-1.
 */
static inline u32 bench_targets_next(u32 k)
{
	u32 last = boot_nr_cpus - 1;

	return k >= last ? boot_nr_cpus : k * 2 < last ? k * 2 : last;
}

#endif /* GUEST_LIB_BENCH_TARGETS_H */
