/* SPDX-License-Identifier: MIT */
/*
 * struct vcpu, and the life cycle vm.c drives: create, start the thread
 * (vcpu.c: the KVM_RUN loop and kicks), destroy. Handlers and devices never
 * call into vcpu.c: what they may ask of a vCPU is in vmm/vcpu_ops.h and
 * vmm/vcpu_req.h.
 */
#ifndef VMM_VCPU_H
#define VMM_VCPU_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/pvtime.h"
#include "vmm/stats.h"

struct vm;
struct flush_wait;
struct kvm_run;

/* Per-vCPU requests, handled by the vCPU's own thread before re-entry. */
#define VCPU_REQ_STOP	(1u << 0)
#define VCPU_REQ_FLUSH	(1u << 1)
#define VCPU_REQ_DUMP	(1u << 2)
#define VCPU_REQ_PAUSE	(1u << 3)

struct vcpu {
	struct vcpu_stats stats;	/* first: its hot end meets the fields below (stats.h) */
	struct vm *vm;
	unsigned int index;
	int fd;
	struct kvm_run *run;
	bool kvm_hv_hcall_said;		/* kvm_hv_exit() said so once */
	/* Main thread only: pthread_create()'s ID, joinable until joined. */
	pthread_t join_id;
	bool joinable;
	/*
	 * Set by the vCPU thread itself, `self` first and then `kickable`
	 * (release), before its first KVM_RUN; so whoever sees in_run set and
	 * then reads `kickable` (acquire) may signal `self`. Cleared as the
	 * thread ends.
	 */
	pthread_t self;
	atomic_bool kickable;
	atomic_uint requests;
	atomic_bool in_run;		/* between the request check and KVM_RUN's return */
	atomic_uint flush_seq;		/* flushes asked of this vCPU */
	atomic_uint flush_done;		/* flushes it has done (a futex word) */
	atomic_uint pause_us;		/* how long the next pause holds it out */
	atomic_bool pause_hidden;	/* ... and whether it leaves "preempted" unpublished */
	atomic_uint pause_ack;		/* bumped when a pause begins (a futex word) */
	struct flush_wait *flush_waits;	/* hvhost.c: this caller's pending targets */
	unsigned int flush_waits_cap;
	struct pvtime pv;
};

int vcpu_create(struct vm *vm, struct vcpu *v, unsigned int index, char *err, size_t errlen);
int vcpu_start(struct vcpu *v, char *err, size_t errlen);
void vcpu_destroy(struct vcpu *v);

#endif
