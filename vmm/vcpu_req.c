// SPDX-License-Identifier: MIT
/*
 * Cross-vCPU requests. A request is a bit in the target's `requests` word
 * plus, while the target is inside KVM_RUN, a kick signal; the target's own
 * thread acts on it before it next enters (vmm/vcpu.c). Waiters sleep on
 * futex words the target bumps.
 */
#include <linux/futex.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmm/exitstatus.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"
#include "vmm/tsc.h"

/* Bounded, so a waiter re-checks vm->stopping even if nobody wakes it. */
static void futex_wait(atomic_uint *addr, unsigned int val)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake(atomic_uint *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

void vcpu_request(struct vcpu *v, unsigned int req)
{
	atomic_fetch_or(&v->requests, req);
	/* A held vCPU sleeps on the word (vcpu_hold_out); only a stop ends a hold early. */
	if (req & VCPU_REQ_STOP)
		futex_wake(&v->requests);
	/* Acquire: pairs with the thread's release, so `self` is its ID. */
	if (atomic_load_explicit(&v->kickable, memory_order_acquire))
		pthread_kill(v->self, VCPU_KICK_SIGNAL);
}

void vm_request_stop(struct vm *vm, int status)
{
	bool expected = false;

	/*
	 * Claim, store the status, then publish: a thread that sees stopping
	 * (seq_cst) also sees the status, never the 0 before it.
	 */
	if (!atomic_compare_exchange_strong(&vm->stop_claimed, &expected, true))
		return;
	atomic_store(&vm->exit_status, status);
	atomic_store(&vm->stopping, true);
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++)
		vcpu_request(&vm->vcpus[i], VCPU_REQ_STOP);
	pthread_kill(vm->main_thread, VM_WAKE_SIGNAL);
}

void vm_request_reset(struct vm *vm)
{
	vm_request_stop(vm, atomic_load(&vm->guest_panicked) ? EXITSTATUS_GUEST_CRASH :
							       EXITSTATUS_GUEST_RESET);
}

void vm_guest_panicked(struct vm *vm, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (atomic_exchange(&vm->guest_panicked, true))
		return;
	pthread_mutex_lock(&vm->out_lock);
	fprintf(stderr, "minivmm: the guest panicked: %.*s\n", (int)len, line);
	fflush(stderr);
	pthread_mutex_unlock(&vm->out_lock);
}

/*
 * Ask for a flush. The seq_cst pair (flush_seq here, in_run in the loop)
 * means either the target sees our request before it enters, or we see it
 * inside KVM_RUN and must kick and wait. A target outside KVM_RUN flushes
 * before it next runs guest code, so nobody waits for it.
 */
void vcpu_flush_tlb_begin(struct vcpu *v, unsigned int *ticket, bool *must_wait)
{
	*ticket = atomic_fetch_add(&v->flush_seq, 1) + 1;
	*must_wait = atomic_load(&v->in_run) && !atomic_load(&v->vm->stopping);
	if (*must_wait) {
		/* Counted on the target, by whichever callers flush it: atomically. */
		__atomic_fetch_add(&v->stats.kicks_sent, 1, __ATOMIC_RELAXED);
		vcpu_request(v, VCPU_REQ_FLUSH);
	}
}

void vcpu_flush_tlb_wait(struct vcpu *v, unsigned int ticket)
{
	for (;;) {
		unsigned int done = atomic_load(&v->flush_done);

		if ((int)(done - ticket) >= 0 || atomic_load(&v->vm->stopping))
			return;
		futex_wait(&v->flush_done, done);
	}
}

void vcpu_req_flush_done(struct vcpu *v, unsigned int seq)
{
	atomic_store(&v->flush_done, seq);
	futex_wake(&v->flush_done);
}

int vcpu_pause(struct vcpu *v, unsigned int us, bool hidden)
{
	unsigned int seen = atomic_load(&v->pause_ack);

	atomic_store(&v->pause_us, us);
	atomic_store(&v->pause_hidden, hidden);
	vcpu_request(v, VCPU_REQ_PAUSE);
	while (atomic_load(&v->pause_ack) == seen && !atomic_load(&v->vm->stopping))
		futex_wait(&v->pause_ack, seen);
	return 0;
}

void vcpu_req_pause_begun(struct vcpu *v)
{
	atomic_fetch_add(&v->pause_ack, 1);
	futex_wake(&v->pause_ack);
}

/*
 * Asleep for the whole hold, on the requests word: vcpu_request() wakes it
 * for a stop (the kick signal is blocked outside KVM_RUN). It used to wake
 * every millisecond to look for a stop; with hundreds of vCPUs held on a
 * few host CPUs those wake-ups took the CPU time the measured caller needs.
 */
void vcpu_hold_out(struct vcpu *v, unsigned int us)
{
	uint64_t end_ns = host_monotonic_ns() + us * 1000ull, t;

	for (;;) {
		unsigned int req = atomic_load(&v->requests);
		struct timespec left;

		t = host_monotonic_ns();
		if (t >= end_ns || (req & VCPU_REQ_STOP) || atomic_load(&v->vm->stopping))
			return;
		left.tv_sec = (time_t)((end_ns - t) / 1000000000ull);
		left.tv_nsec = (long)((end_ns - t) % 1000000000ull);
		syscall(SYS_futex, &v->requests, FUTEX_WAIT_PRIVATE, req, &left, NULL, 0);
	}
}

void vcpu_req_release(struct vcpu *v)
{
	atomic_store_explicit(&v->kickable, false, memory_order_release);
	vcpu_req_flush_done(v, atomic_load(&v->flush_seq));
	vcpu_req_pause_begun(v);
}
