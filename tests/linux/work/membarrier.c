// SPDX-License-Identifier: MIT
/*
 * membarrier: what an IPI to k other CPUs costs a Linux user program.
 *
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes the kernel run a
 * barrier on every other CPU currently running this mm, through
 * smp_call_function_many: one IPI each (Hyper-V's SendSyntheticClusterIpi,
 * or x2APIC ICR writes natively), then it waits for all of them. For k = 0
 * .. CPUs-1, k spinner threads pinned to CPUs 1..k keep this mm running
 * there while the main thread, pinned to CPU 0, times OPS calls. k = 0
 * sends no IPI at all: the syscall's own floor.
 *
 * Usage: membarrier [-n OPS] [-v VARIANT] [-N]   (-N: print, do not submit
 * records; exit 0 passed, 1 a call failed, 2 bad usage)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mvm_user.h"

#define OPS_DEFAULT	500
#define OPS_MAX		1000000
#define SPINNERS_MAX	1023

struct spinner {
	pthread_t tid;
	unsigned int cpu;
	atomic_bool *stop;
	atomic_uint *ready;
};

static int membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static void *spin_main(void *arg)
{
	struct spinner *sp = arg;

	if (mvm_pin(sp->cpu))
		MVM_SAY("membarrier: spinner could not pin to CPU %u: %s", sp->cpu, strerror(errno));
	atomic_fetch_add(sp->ready, 1);
	while (!atomic_load_explicit(sp->stop, memory_order_relaxed))
		__asm__ volatile("pause");
	return NULL;
}

/* Time `ops` calls with `k` spinners on CPUs 1..k; 0, or -1 if a call failed. */
static int time_with(unsigned int k, uint64_t ops, struct mvm_samples *s)
{
	static struct spinner sp[SPINNERS_MAX];
	atomic_bool stop = false;
	atomic_uint ready = 0;
	int ret = 0;

	for (unsigned int i = 0; i < k; i++) {
		sp[i] = (struct spinner){ .cpu = i + 1, .stop = &stop, .ready = &ready };
		if (pthread_create(&sp[i].tid, NULL, spin_main, &sp[i])) {
			k = i;
			ret = -1;
			break;
		}
	}
	while (!ret && atomic_load(&ready) < k)
		sched_yield();
	for (uint64_t i = 0; !ret && i < ops; i++) {
		uint64_t t0 = mvm_rdtsc();

		if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			ret = -1;
		mvm_samples_add(s, mvm_rdtsc() - t0);
	}
	if (ret)
		MVM_FAIL("membarrier: with %u spinners: %s", k, strerror(errno));
	atomic_store(&stop, true);
	for (unsigned int i = 0; i < k; i++)
		pthread_join(sp[i].tid, NULL);
	return ret;
}

int main(int argc, char **argv)
{
	struct mvm_args a = { .prog = "membarrier", .n_what = "operations", .n = OPS_DEFAULT,
			      .n_max = OPS_MAX, .variant = "", .submit = true };
	unsigned int ncpu = mvm_ncpus();
	uint64_t overhead;
	int bad = 0;

	if (mvm_start(argc, argv, &a))
		return 2;
	if (mvm_pin(0) || membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		MVM_FAIL("membarrier: set-up (pin to CPU 0, register): %s", strerror(errno));
		return 1;
	}
	overhead = mvm_clock_overhead();
	for (unsigned int k = 0; k < ncpu && k <= SPINNERS_MAX && !bad; k++) {
		struct mvm_samples s;
		struct mvm_result r;

		if (mvm_samples_init(&s, a.n))
			return 1;
		bad = time_with(k, a.n, &s) ||
		      mvm_record_fill(&r, &s, "linux-ipi", "membarrier", a.variant, k, overhead) ||
		      mvm_report(&r, a.submit) < 0;
		mvm_samples_free(&s);
	}
	if (!bad)
		MVM_SAY("membarrier: passed: %u CPU%s, %llu calls at each spinner count",
			ncpu, ncpu == 1 ? "" : "s", (unsigned long long)a.n);
	return bad;
}
