/* SPDX-License-Identifier: MIT */
/*
 * --preempt: hold chosen vCPUs out of guest mode on a schedule, with
 * KVM_VCPU_PREEMPTED published in each one's steal-time record where the
 * guest registered one, so a guest's vcpu_is_preempted() and PV TLB flush
 * can be studied without loading the host (docs/linux-work.md). The
 * holds are the control port's (vcpu_pause); the main thread starts them.
 */
#ifndef VMM_PREEMPT_H
#define VMM_PREEMPT_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/options.h"

struct vm;

/* The first due time after `now`, on the grid `due + k * every`: late ticks are skipped, not queued. */
uint64_t preempt_next_due(uint64_t due, uint64_t now, uint64_t every_ns);
/* "vCPUs 1,2,3 held 500 us every 5000 us" for the banner. */
void preempt_describe(const struct preempt_spec *p, char *out, size_t len);
/* Every vCPU the spec names exists: 0, or -1 with `err` naming the first that does not. */
int preempt_check(const struct preempt_spec *p, unsigned int nr_vcpus, char *err, size_t errlen);
/*
 * Called by the main thread at `now_ns` (CLOCK_MONOTONIC): if a round is
 * due, start a hold on every vCPU named (each returns once its hold has
 * begun). Returns when the next round is due; UINT64_MAX without --preempt.
 */
uint64_t preempt_tick(struct vm *vm, uint64_t now_ns);

#endif
