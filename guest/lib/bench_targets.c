// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/bench_targets.h"
#include "lib/boot.h"
#include "lib/io.h"
#include "lib/smp.h"
#include "lib/timing.h"
#include "lib/user.h"

#define SPIN_START_US	5000000

static bool stop;
static u32 spinning;

static u64 spin_user(void *arg)
{
	(void)arg;
	atomic_inc(&spinning);
	while (!READ_ONCE(stop))
		cpu_relax();
	return 0;
}

/* On the target, at CPL0 with IF=0 (a mailbox item): hand over to CPL3, IF=1. */
static void spin_fn(void *arg)
{
	run_user(spin_user, arg, RUN_USER_IRQS_ON);
}

bool bench_targets_spin(void)
{
	return bench_targets_spin_upto(boot_nr_cpus - 1);
}

bool bench_targets_spin_upto(u32 last)
{
	u32 want = 0;

	WRITE_ONCE(stop, false);
	WRITE_ONCE(spinning, 0);
	for (u32 cpu = 0; cpu <= last && cpu < boot_nr_cpus; cpu++)
		if (cpu != smp_id() && !smp_call(cpu, spin_fn, NULL, false))
			want++;
	return wait_until(READ_ONCE(spinning) == want, SPIN_START_US);
}

void bench_targets_halt(void)
{
	WRITE_ONCE(stop, true);
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		smp_wait(cpu);
}

int bench_vmm_pause(u32 cpu, u32 us)
{
	static struct mvm_ctrl req;

	/* status 1: what is left when no VMM device answered. */
	req = (struct mvm_ctrl){ .op = MVM_CTRL_PAUSE_VCPU, .status = 1, .arg0 = cpu, .arg1 = us };
	/* The VMM reads the request and writes status during this exit. */
	barrier();
	outl(MVM_PORT_CTRL, (u32)(uintptr_t)&req);
	barrier();
	return READ_ONCE(req.status);
}

bool bench_targets_over(u64 start_tsc)
{
	return rdtsc() - start_tsc > us_to_cycles(BENCH_SWEEP_TABLE_US);
}
