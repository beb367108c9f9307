/* SPDX-License-Identifier: MIT */
/* vCPU threads: the KVM_RUN loop, exit dispatch, kicks and requests. */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"

int vcpu_create(struct vm *vm, struct vcpu *v, unsigned int index, char *err, size_t errlen);
int vcpu_start(struct vcpu *v, char *err, size_t errlen);
void vcpu_destroy(struct vcpu *v);

/* Post a request and, if the vCPU is inside KVM_RUN, kick it out. */
void vcpu_request(struct vcpu *v, unsigned int req);
/* Make the vCPU flush its guest TLB before it runs guest code again; wait if needed. */
void vcpu_flush_tlb_begin(struct vcpu *v, unsigned int *ticket, bool *must_wait);
void vcpu_flush_tlb_wait(struct vcpu *v, unsigned int ticket);
/*
 * From v's own thread, before it blocks in a handler on another vCPU: do a
 * flush asked of v while it ran (its requester may be what we wait for).
 */
void vcpu_flush_pending(struct vcpu *v);

/* Hold v out of guest mode for `us` microseconds; returns once the hold began. */
int vcpu_pause(struct vcpu *v, unsigned int us);
/*
 * The hold itself, on v's own thread: sleeps `us` microseconds without
 * waking in between, and returns early once a stop is requested.
 */
void vcpu_hold_out(struct vcpu *v, unsigned int us);

/* Print a crash report for this vCPU (from its own thread) and stop the VM with 3. */
void vcpu_fail(struct vcpu *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One-line or full register dump to stderr. */
void vcpu_dump(struct vcpu *v, bool full);

/*
 * Finish the pending exit (an OUT's skip, an IN's or MMIO read's data) with
 * one KVM_RUN under immediate_exit: KVM returns before running guest code.
 * The KVM API promises consistent registers only after this. 0, or -1 with
 * errno.
 */
int vcpu_complete_exit(struct vcpu *v);

/* Inject an exception (vector, optional error code) before the next entry. */
int vcpu_inject_exception(struct vcpu *v, unsigned int vector);

static inline uint64_t vcpu_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

#endif
