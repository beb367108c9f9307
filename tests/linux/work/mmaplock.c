// SPDX-License-Identifier: MIT
/*
 * mmaplock: the seed-000 shape, many threads contending on one mm's
 * mmap_lock. Each of THREADS threads (default: twice the CPUs, so the
 * lock's owner is often not running) maps an anonymous page, touches it
 * and unmaps it, over and over, for SECONDS. mmap and munmap take the
 * lock for writing; a waiter spins in rwsem_optimistic_spin / osq_lock
 * while the owner runs, and those spins ask vcpu_is_preempted() of the
 * owner's CPU: with KVM's steal time that reads the record's `preempted`
 * byte (kvm_vcpu_is_preempted), which minivmm sets while --preempt holds a
 * vCPU out. Reported: each thread's operations per second (a PER_SEC
 * record, one sample a thread), and the steal time /proc/stat counted.
 *
 * Usage: mmaplock [-n SECONDS] [-t THREADS] [-v VARIANT] [-N]   (-N: print,
 * do not submit; exit 0 passed, 1 a call failed or a record not taken,
 * 2 bad usage)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mvm_user.h"

#define SECONDS_DEFAULT	2
#define SECONDS_MAX	3600
#define THREADS_MAX	1024

struct worker {
	pthread_t tid;
	atomic_bool *stop;
	uint64_t ops;
	int err;
};

static void *work_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
		volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			w->err = errno;
			break;
		}
		p[0] = 1;	/* a fault too: the lock for reading */
		if (munmap((void *)p, 4096)) {
			w->err = errno;
			break;
		}
		w->ops++;
	}
	return NULL;
}

/* Steal ticks (USER_HZ) summed over all CPUs, from /proc/stat's "cpu" line; -1 if unknown. */
static long long steal_ticks(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? (long long)v[7] : -1;
}

/* One PER_SEC record: each thread's rate a sample. */
static int report(const struct mvm_args *o, struct worker *w, double secs)
{
	struct mvm_samples s;
	struct mvm_result r;
	int ret;

	if (mvm_samples_init(&s, o->t))
		return -1;
	for (unsigned long i = 0; i < o->t; i++)
		mvm_samples_add(&s, (uint64_t)((double)w[i].ops / secs));
	ret = mvm_record_fill(&r, &s, "linux-mmap", "mmap+munmap per thread", o->variant,
			      (uint32_t)o->t, 0);
	r.unit = MVM_UNIT_PER_SEC;
	mvm_samples_free(&s);
	return ret || mvm_report(&r, o->submit) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct worker w[THREADS_MAX];
	struct mvm_args o = { .prog = "mmaplock", .n_what = "seconds", .n = SECONDS_DEFAULT,
			      .n_max = SECONDS_MAX, .t = 2 * mvm_ncpus(), .t_max = THREADS_MAX,
			      .variant = "", .submit = true };
	atomic_bool stop = false;
	struct timespec t0, t1;
	long long st0, st1;
	uint64_t total = 0;
	double secs;
	int bad = 0;

	if (mvm_start(argc, argv, &o))
		return 2;
	if (o.t > THREADS_MAX)
		o.t = THREADS_MAX;
	st0 = steal_ticks();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < o.t; i++) {
		w[i].stop = &stop;
		if (pthread_create(&w[i].tid, NULL, work_main, &w[i])) {
			MVM_FAIL("mmaplock: starting thread %lu: %s", i, strerror(errno));
			atomic_store(&stop, true);
			o.t = i;
			bad = 1;
		}
	}
	if (!bad)
		sleep((unsigned int)o.n);
	atomic_store(&stop, true);
	for (unsigned long i = 0; i < o.t; i++) {
		pthread_join(w[i].tid, NULL);
		total += w[i].ops;
		if (w[i].err && !bad) {
			MVM_FAIL("mmaplock: thread %lu: %s", i, strerror(w[i].err));
			bad = 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	st1 = steal_ticks();
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (bad || !o.t || report(&o, w, secs))
		return 1;
	MVM_SAY("mmaplock: passed: %llu threads on %u CPUs, %llu mmap+munmap in %.2f s, steal %lld ticks (/proc/stat, USER_HZ)",
		(unsigned long long)o.t, mvm_ncpus(), (unsigned long long)total, secs,
		st0 < 0 || st1 < 0 ? -1LL : st1 - st0);
	return 0;
}
