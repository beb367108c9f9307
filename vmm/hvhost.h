/* SPDX-License-Identifier: MIT */
#ifndef VMM_HVHOST_H
#define VMM_HVHOST_H

#include <stddef.h>
#include <stdint.h>

#include "hv/tlfs.h"

struct vm;
struct hv_config;
struct hv_vpmask;

/*
 * The Hyper-V configuration this guest gets (its kind, the options, the
 * host's clock): one answer for minivmm's layer and for what KVM's own
 * Hyper-V is asked to show (vmm/kvm_hv.c).
 */
void hvhost_config(struct vm *vm, struct hv_config *cfg);

/* Create vm->hv with minivmm's host ops and claim the hypercall trap port. */
int hvhost_create(struct vm *vm, char *err, size_t errlen);

/*
 * The flush_vcpus host op: ask each target in `set` to flush before it
 * next runs guest code; kick and wait only for those inside KVM_RUN.
 * Exposed for the fan-out benchmark (tests/bench/flush_fanout.c).
 */
int hvhost_flush_vcpus(struct vm *vm, unsigned int caller, const struct hv_vpmask *set);

/*
 * A guest's report through the Hyper-V crash MSRs (P0..P4, HV_CRASH_PARAMS
 * of them), whoever served them: one line on stderr, the VM stops with
 * status 3.
 */
void hvhost_report_crash(struct vm *vm, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS]);

/* KVM's in-kernel LAPIC timer counts 1 ns a tick (APIC_BUS_CYCLE_NS_DEFAULT). */
#define HVHOST_KVM_APIC_HZ	1000000000ull

/* Tell hv/ the guest's TSC rate (KVM_GET_TSC_KHZ), before any vCPU runs. */
void hvhost_set_tsc_khz(struct vm *vm, uint64_t khz);

#endif
