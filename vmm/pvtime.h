/* SPDX-License-Identifier: MIT */
/*
 * Steal time and the preempted flag. KVM keeps `steal` and `version` in the
 * record the guest registers with MSR_KVM_STEAL_TIME; minivmm sees that write
 * (the MSR is filtered to user space, then forwarded to KVM) so it knows where
 * the record is, and sets KVM_VCPU_PREEMPTED there whenever it holds a vCPU
 * out of guest mode on purpose. KVM clears the byte on the next entry.
 */
#ifndef VMM_PVTIME_H
#define VMM_PVTIME_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct vcpu;

struct pvtime {
	uint64_t msr;		/* the last MSR_KVM_STEAL_TIME value KVM accepted */
	uint64_t episodes;	/* times the VMM published "preempted" */
	uint64_t held_cycles;	/* host TSC cycles spent held out with the flag up */
	/* Holds that ended with KVM_VCPU_FLUSH_TLB set: a guest flush left for KVM, not an IPI. */
	uint64_t flush_deferred;
	uint64_t hold_start;
	bool holding;
	/* Blocked in a pause request until another vCPU's hold begins (ctrl.c). */
	atomic_bool awaiting_hold;
};

/* The guest wrote MSR_KVM_STEAL_TIME: pass it to KVM; false -> #GP. */
bool pvtime_wrmsr(struct vcpu *v, uint64_t val);
/* Publish / withdraw "preempted"; only while the vCPU is outside KVM_RUN. */
void pvtime_hold_begin(struct vcpu *v);
void pvtime_hold_end(struct vcpu *v);
/* The steal time KVM accounted (ns), or -1 when the guest never enabled it. */
int64_t pvtime_steal_ns(const struct vcpu *v);

#endif
