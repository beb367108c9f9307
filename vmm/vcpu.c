// SPDX-License-Identifier: MIT
/*
 * One thread per vCPU. The kick signal (VCPU_KICK_SIGNAL, SIGUSR1) is
 * blocked in the thread except while it is inside KVM_RUN
 * (KVM_SET_SIGNAL_MASK), so a kick either interrupts the run or stays
 * pending and makes the next KVM_RUN return at once: never lost.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm/cpuid.h"
#include "vmm/exits.h"
#include "vmm/exitstatus.h"
#include "vmm/sandbox.h"
#include "vmm/tsc.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"
#include "vmm/x86.h"

static int set_kvm_sigmask(struct vcpu *v)
{
	/* Bytes, not a u64: KVM reads the mask right after `len`, at offset 4. */
	struct {
		struct kvm_signal_mask hdr;
		uint8_t set[8];
	} m;
	sigset_t cur;

	_Static_assert(offsetof(__typeof__(m), set) == offsetof(struct kvm_signal_mask, sigset),
		       "the sigset must follow len with no padding");
	/* KVM_RUN runs with the thread's mask minus the kick signal. */
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	sigdelset(&cur, VCPU_KICK_SIGNAL);
	m.hdr.len = sizeof(m.set);
	memcpy(m.set, &cur, sizeof(m.set));
	return ioctl(v->fd, KVM_SET_SIGNAL_MASK, &m);
}

int vcpu_create(struct vm *vm, struct vcpu *v, unsigned int index, char *err, size_t errlen)
{
	v->vm = vm;
	v->index = index;
	v->fd = ioctl(vm->fd, KVM_CREATE_VCPU, (unsigned long)index);
	if (v->fd < 0) {
		snprintf(err, errlen, "KVM_CREATE_VCPU %u: %s", index, strerror(errno));
		return -1;
	}
	v->run = mmap(NULL, vm->kvm.vcpu_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		snprintf(err, errlen, "vCPU %u: mmap of kvm_run: %s", index, strerror(errno));
		return -1;
	}
	if (kvm_hv_vcpu_pre_cpuid(vm, v, err, errlen))
		return -1;
	if (cpuid_set(v->fd, vm->cpuid, index)) {
		snprintf(err, errlen, "vCPU %u: KVM_SET_CPUID2: %s", index, strerror(errno));
		return -1;
	}
	if (kvm_hv_vcpu_post_cpuid(vm, v, err, errlen))
		return -1;
	/* The others wait in their reset state for the kernel's INIT/SIPI. */
	if ((index == 0 || vm->image.entry.all_vcpus) &&
	    x86_init_vcpu(v->fd, &vm->image.entry, index, err, errlen))
		return -1;
	/* Registers travel with every exit: no ioctl to read RCX/RDX/R8/RIP. */
	v->run->kvm_valid_regs = vm->sync_regs;
	return 0;
}

static void pin_thread(struct vcpu *v)
{
	cpu_set_t set;
	int cpu = options_pin_cpu(&v->vm->cfg, v->index);

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		fprintf(stderr, "minivmm: vCPU %u: cannot pin to host CPU %d\n", v->index, cpu);
}

static void do_pause(struct vcpu *v)
{
	unsigned int us = atomic_load(&v->pause_us);
	bool publish = !atomic_load(&v->pause_hidden);

	if (publish)
		pvtime_hold_begin(v);
	vcpu_req_pause_begun(v);
	vcpu_hold_out(v, us);
	if (publish)
		pvtime_hold_end(v);
}

/* Runs outside KVM_RUN (in_run clear). Returns true when the thread must leave. */
static bool handle_requests(struct vcpu *v)
{
	unsigned int req = atomic_exchange(&v->requests, 0);

	/* Flushes first: a waiter may be blocked on us even while we stop. */
	if (req & VCPU_REQ_FLUSH)
		vcpu_flush_pending(v);
	if (req & VCPU_REQ_DUMP)
		vcpu_dump(v, v->vm->cfg.nr_vcpus <= VCPU_DUMP_FULL_MAX);
	if (req & VCPU_REQ_PAUSE)
		do_pause(v);
	return (req & VCPU_REQ_STOP) || atomic_load(&v->vm->stopping);
}

static void drain_kick(void)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };

	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	while (sigtimedwait(&set, NULL, &zero) > 0)
		;
}

static bool bare_exit(const struct kvm_run *run)
{
	return run->exit_reason == KVM_EXIT_IO && run->io.port == MVM_PORT_NULL_BARE;
}

/*
 * KVM_RUN, re-entered at once on the bare null port: the floor a VMM's exit
 * path is measured against (vmexit's "bare" rows). No statistics, no
 * requests: in_run stays set, so a kick or a flush request still ends
 * KVM_RUN with EINTR and is handled by the caller.
 */
static int run_until_exit(struct vcpu *v)
{
	int r;

	do
		r = ioctl(v->fd, KVM_RUN, 0);
	while (!r && bare_exit(v->run));
	return r;
}

static void run_loop(struct vcpu *v)
{
	for (;;) {
		uint64_t t0;
		int r;

		if (handle_requests(v))
			break;
		/* After in_run is visible, a pending flush is ours to do now. */
		atomic_store(&v->in_run, true);
		vcpu_flush_pending(v);
		r = run_until_exit(v);
		atomic_store(&v->in_run, false);
		t0 = host_rdtsc();
		if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
			drain_kick();
			v->stats.exits[KVM_EXIT_INTR]++;
			lat_record(&v->stats.kind[STATS_INTR], host_rdtsc() - t0);
			continue;
		}
		if (r < 0) {
			vcpu_fail(v, "KVM_RUN failed: %s", strerror(errno));
			break;
		}
		if (exits_handle(v, t0))
			break;
	}
	atomic_store(&v->in_run, false);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	char err[160];

	/* Before the first KVM_RUN: whoever sees in_run may then kick us. */
	v->self = pthread_self();
	atomic_store_explicit(&v->kickable, true, memory_order_release);
	pin_thread(v);
	if (set_kvm_sigmask(v)) {
		vcpu_fail(v, "KVM_SET_SIGNAL_MASK: %s", strerror(errno));
		return NULL;
	}
	if (sandbox_vcpu(v, err, sizeof(err))) {
		pthread_mutex_lock(&v->vm->out_lock);
		fprintf(stderr, "minivmm: vCPU %u: %s\n", v->index, err);
		pthread_mutex_unlock(&v->vm->out_lock);
		vm_request_stop(v->vm, EXITSTATUS_HOST_ERROR);
		return NULL;
	}
	run_loop(v);
	/* Anyone still waiting for our flush or pause must not wait for ever. */
	vcpu_req_release(v);
	return NULL;
}

int vcpu_start(struct vcpu *v, char *err, size_t errlen)
{
	int r = pthread_create(&v->join_id, NULL, vcpu_thread, v);

	if (r) {
		snprintf(err, errlen, "vCPU %u: cannot start thread: %s", v->index, strerror(r));
		return -1;
	}
	v->joinable = true;
	return 0;
}

void vcpu_destroy(struct vcpu *v)
{
	if (v->run)
		munmap(v->run, v->vm->kvm.vcpu_mmap_size);
	if (v->fd >= 0)
		close(v->fd);
	free(v->flush_waits);
	v->flush_waits = NULL;
	v->flush_waits_cap = 0;
	v->run = NULL;
	v->fd = -1;
}
