/* SPDX-License-Identifier: MIT */
/*
 * Requests across vCPUs: post a request and kick, the TLB-flush handshake,
 * holding a vCPU out of guest mode, stopping the VM, and the futex words
 * they wait on. Callable from any vCPU's handlers (and the main thread);
 * calls nothing above it (vmm/vcpu.c, exits, devices).
 */
#ifndef VMM_VCPU_REQ_H
#define VMM_VCPU_REQ_H

#include <signal.h>
#include <stdbool.h>

struct vcpu;
struct vm;

/* Blocked in vCPU threads except inside KVM_RUN: interrupts a run, never lost. */
#define VCPU_KICK_SIGNAL	SIGUSR1
/* Wakes the main thread's wait for a stop (vm.c). */
#define VM_WAKE_SIGNAL		SIGUSR2

/* Post a request and, if the vCPU is inside KVM_RUN, kick it out. */
void vcpu_request(struct vcpu *v, unsigned int req);
/* Ask every vCPU to stop; the first status given wins. Safe from any thread. */
void vm_request_stop(struct vm *vm, int status);
/*
 * The guest reset itself (i8042 0xFE): exit EXITSTATUS_GUEST_RESET, or
 * EXITSTATUS_GUEST_CRASH once vm_guest_panicked() was called (Linux with
 * panic=-1 resets right after its panic).
 */
void vm_request_reset(struct vm *vm);
/* The guest's console showed its panic line; say it on stderr (once). */
void vm_guest_panicked(struct vm *vm, const char *line, size_t len);

/* Make the vCPU flush its guest TLB before it runs guest code again; wait if needed. */
void vcpu_flush_tlb_begin(struct vcpu *v, unsigned int *ticket, bool *must_wait);
void vcpu_flush_tlb_wait(struct vcpu *v, unsigned int ticket);
/* On v's own thread: flushes up to `seq` are done; wake whoever waits for them. */
void vcpu_req_flush_done(struct vcpu *v, unsigned int seq);

/*
 * Hold v out of guest mode for `us` microseconds, with "preempted" published
 * unless `hidden`; returns once the hold began.
 */
int vcpu_pause(struct vcpu *v, unsigned int us, bool hidden);
/* On v's own thread: the pause it was asked for has begun (wakes vcpu_pause()). */
void vcpu_req_pause_begun(struct vcpu *v);
/*
 * The hold itself, on v's own thread: sleeps `us` microseconds without
 * waking in between, and returns early once a stop is requested.
 */
void vcpu_hold_out(struct vcpu *v, unsigned int us);

/* On v's own thread as it ends: no one may wait for its flush or pause, or kick it, again. */
void vcpu_req_release(struct vcpu *v);

#endif
