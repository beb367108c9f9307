/* SPDX-License-Identifier: MIT */
#ifndef VMM_HVHOST_H
#define VMM_HVHOST_H

#include <stddef.h>

struct vm;
struct hv_vpmask;

/* Create vm->hv with minivmm's host ops and claim the hypercall trap port. */
int hvhost_create(struct vm *vm, char *err, size_t errlen);

/*
 * The flush_vcpus host op: ask each target in `set` to flush before it
 * next runs guest code; kick and wait only for those inside KVM_RUN.
 * Exposed for the fan-out benchmark (tests/bench/flush_fanout.c).
 */
int hvhost_flush_vcpus(struct vm *vm, unsigned int caller, const struct hv_vpmask *set);

/* KVM's in-kernel LAPIC timer counts 1 ns a tick (APIC_BUS_CYCLE_NS_DEFAULT). */
#define HVHOST_KVM_APIC_HZ	1000000000ull

/* Tell hv/ the guest's TSC rate (KVM_GET_TSC_KHZ), before any vCPU runs. */
void hvhost_set_tsc_khz(struct vm *vm, uint64_t khz);

#endif
