// SPDX-License-Identifier: MIT
/*
 * make bench: the VMM's own part of a flush of k preempted targets, the
 * one piece of the hypercall that must grow with k: hvhost_flush_vcpus()
 * walking the set and asking each target (a flush_seq increment and an
 * in_run check on its struct vcpu; a target outside KVM_RUN is neither
 * kicked nor waited for). A 1024-vCPU VM whose vCPUs are never started, so
 * every target is outside KVM_RUN, as a held one is. Batches of calls timed
 * with CLOCK_MONOTONIC; the median batch, per call ("warm": the targets'
 * struct vcpu lines stay cached). Then single calls after the caches were
 * filled with other data ("cold", as a real call finds the lines of
 * threads that ran elsewhere); the median of COLD_CALLS. One line per count:
 * fanout targets=K median_ns=X min_ns=Y max_ns=Z cold_median_ns=C.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hv/hv.h"
#include "vmm/hvhost.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"
#include "tests/bench/timing.h"

#define VCPUS		1024u
#define BATCH		2000
#define BATCHES		31
#define COLD_CALLS	101
#define EVICT_BYTES	(64u << 20)	/* more than any last-level cache here */

static unsigned char *evict;

/* Targets 1..k, as the flush suite names them. */
static void measure(struct vm *vm, unsigned int k)
{
	struct hv_vpmask set;
	double t[BATCHES], cold[COLD_CALLS];

	memset(&set, 0, sizeof(set));
	for (unsigned int vp = 1; vp <= k; vp++)
		hv_vpmask_set(&set, vp);
	for (unsigned int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (unsigned int i = 0; i < BATCH; i++)
			hvhost_flush_vcpus(vm, 0, &set);
		t[b] = (now_ns() - t0) / BATCH;
	}
	qsort(t, BATCHES, sizeof(t[0]), cmp_double);
	for (unsigned int c = 0; c < COLD_CALLS; c++) {
		double t0;

		memset(evict, (int)c, EVICT_BYTES);
		t0 = now_ns();
		hvhost_flush_vcpus(vm, 0, &set);
		cold[c] = now_ns() - t0;
	}
	qsort(cold, COLD_CALLS, sizeof(cold[0]), cmp_double);
	printf("fanout targets=%u median_ns=%.1f min_ns=%.1f max_ns=%.1f cold_median_ns=%.1f\n", k,
	       t[BATCHES / 2], t[0], t[BATCHES - 1], cold[COLD_CALLS / 2]);
}

/* 1, 2, 4 ... then VCPUS - 1; VCPUS once that was measured. */
static unsigned int next_count(unsigned int k)
{
	if (k == VCPUS - 1)
		return VCPUS;
	return k * 2 < VCPUS - 1 ? k * 2 : VCPUS - 1;
}

int main(void)
{
	struct vm *vm = calloc(1, sizeof(*vm));

	evict = malloc(EVICT_BYTES);
	if (!evict || !vm || !(vm->vcpus = calloc(VCPUS, sizeof(*vm->vcpus)))) {
		fprintf(stderr, "bench-fanout: out of memory\n");
		return 1;
	}
	vm->cfg.nr_vcpus = VCPUS;
	for (unsigned int i = 0; i < VCPUS; i++)
		vm->vcpus[i].vm = vm;
	/* 1, 2, 4 ... 512, then 1023: every vCPU but the caller (vCPU 0). */
	for (unsigned int k = 1; k < VCPUS; k = next_count(k))
		measure(vm, k);
	return 0;
}
