// SPDX-License-Identifier: MIT
/*
 * One thread per vCPU. SIGUSR1 is blocked in the thread except while it is
 * inside KVM_RUN (KVM_SET_SIGNAL_MASK), so a kick either interrupts the run
 * or stays pending and makes the next KVM_RUN return at once: never lost.
 */
#include <errno.h>
#include <linux/futex.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmm/cpuid.h"
#include "vmm/exits.h"
#include "vmm/multiboot.h"
#include "vmm/sandbox.h"
#include "vmm/vcpu.h"
#include "vmm/x86.h"

#define KICK_SIGNAL	SIGUSR1

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
	sigdelset(&cur, KICK_SIGNAL);
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
	if (cpuid_set(v->fd, vm->cpuid, index)) {
		snprintf(err, errlen, "vCPU %u: KVM_SET_CPUID2: %s", index, strerror(errno));
		return -1;
	}
	if (vm->kind == IMAGE_MULTIBOOT || vm->kind == IMAGE_LINUX) {
		uint32_t eax = vm->kind == IMAGE_MULTIBOOT ? MB_BOOT_MAGIC : 0;

		if (index == 0 && x86_init_vcpu_multiboot(v->fd, vm->entry, eax,
							  (uint32_t)vm->boot_ebx, err, errlen))
			return -1;
	} else if (x86_init_vcpu(v->fd, vm->entry, index, err, errlen)) {
		return -1;
	}
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

/* Toggle CR4.PGE: KVM flushes the guest TLB when PGE changes (SDM 4.10.4.1). */
static int flush_guest_tlb(struct vcpu *v)
{
	struct kvm_sregs sr;

	if (ioctl(v->fd, KVM_GET_SREGS, &sr))
		return -1;
	sr.cr4 ^= X86_CR4_PGE;
	if (ioctl(v->fd, KVM_SET_SREGS, &sr))
		return -1;
	sr.cr4 ^= X86_CR4_PGE;
	if (ioctl(v->fd, KVM_SET_SREGS, &sr))
		return -1;
	/* The synced copy is stale now; never write it back this round. */
	v->run->kvm_dirty_regs &= ~KVM_SYNC_X86_SREGS;
	return 0;
}

static void do_flush(struct vcpu *v)
{
	unsigned int want = atomic_load(&v->flush_seq);

	if (want == atomic_load(&v->flush_done))
		return;
	if (flush_guest_tlb(v))
		vcpu_fail(v, "TLB flush by CR4.PGE toggle failed: %s", strerror(errno));
	v->stats.flushes_done++;
	atomic_store(&v->flush_done, want);
	futex_wake(&v->flush_done);
}

void vcpu_flush_pending(struct vcpu *v)
{
	do_flush(v);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Asleep for the whole hold, on the requests word: vcpu_request() wakes it
 * for a stop (the kick signal is blocked outside KVM_RUN). It used to wake
 * every millisecond to look for a stop; with hundreds of vCPUs held on a
 * few host CPUs those wake-ups took the CPU time the measured caller needs.
 */
void vcpu_hold_out(struct vcpu *v, unsigned int us)
{
	uint64_t end_ns = now_ns() + us * 1000ull, t;

	for (;;) {
		unsigned int req = atomic_load(&v->requests);
		struct timespec left;

		t = now_ns();
		if (t >= end_ns || (req & VCPU_REQ_STOP) || atomic_load(&v->vm->stopping))
			return;
		left.tv_sec = (time_t)((end_ns - t) / 1000000000ull);
		left.tv_nsec = (long)((end_ns - t) % 1000000000ull);
		syscall(SYS_futex, &v->requests, FUTEX_WAIT_PRIVATE, req, &left, NULL, 0);
	}
}

static void do_pause(struct vcpu *v)
{
	unsigned int us = atomic_load(&v->pause_us);

	pvtime_hold_begin(v);
	atomic_fetch_add(&v->pause_ack, 1);
	futex_wake(&v->pause_ack);
	vcpu_hold_out(v, us);
	pvtime_hold_end(v);
}

/* Runs outside KVM_RUN (in_run clear). Returns true when the thread must leave. */
static bool handle_requests(struct vcpu *v)
{
	unsigned int req = atomic_exchange(&v->requests, 0);

	/* Flushes first: a waiter may be blocked on us even while we stop. */
	if (req & VCPU_REQ_FLUSH)
		do_flush(v);
	if (req & VCPU_REQ_DUMP)
		vcpu_dump(v, false);
	if (req & VCPU_REQ_PAUSE)
		do_pause(v);
	return (req & VCPU_REQ_STOP) || atomic_load(&v->vm->stopping);
}

static void drain_kick(void)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };

	sigemptyset(&set);
	sigaddset(&set, KICK_SIGNAL);
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
static int kvm_run(struct vcpu *v)
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
		do_flush(v);
		r = kvm_run(v);
		atomic_store(&v->in_run, false);
		t0 = vcpu_rdtsc();
		if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
			drain_kick();
			v->stats.exits[KVM_EXIT_INTR]++;
			lat_record(&v->stats.kind[STATS_INTR], vcpu_rdtsc() - t0);
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

	pin_thread(v);
	if (set_kvm_sigmask(v)) {
		vcpu_fail(v, "KVM_SET_SIGNAL_MASK: %s", strerror(errno));
		return NULL;
	}
	if (sandbox_vcpu(v, err, sizeof(err))) {
		pthread_mutex_lock(&v->vm->out_lock);
		fprintf(stderr, "minivmm: vCPU %u: %s\n", v->index, err);
		pthread_mutex_unlock(&v->vm->out_lock);
		vm_request_stop(v->vm, 2);
		return NULL;
	}
	run_loop(v);
	/* Anyone still waiting for our flush or pause must not wait for ever. */
	atomic_store(&v->flush_done, atomic_load(&v->flush_seq));
	futex_wake(&v->flush_done);
	atomic_fetch_add(&v->pause_ack, 1);
	futex_wake(&v->pause_ack);
	return NULL;
}

int vcpu_start(struct vcpu *v, char *err, size_t errlen)
{
	int r = pthread_create(&v->thread, NULL, vcpu_thread, v);

	if (r) {
		snprintf(err, errlen, "vCPU %u: cannot start thread: %s", v->index, strerror(r));
		return -1;
	}
	v->started = true;
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

void vcpu_request(struct vcpu *v, unsigned int req)
{
	atomic_fetch_or(&v->requests, req);
	/* A held vCPU sleeps on the word (vcpu_hold_out); only a stop ends a hold early. */
	if (req & VCPU_REQ_STOP)
		futex_wake(&v->requests);
	if (v->started)
		pthread_kill(v->thread, KICK_SIGNAL);
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

int vcpu_pause(struct vcpu *v, unsigned int us)
{
	unsigned int seen = atomic_load(&v->pause_ack);

	atomic_store(&v->pause_us, us);
	vcpu_request(v, VCPU_REQ_PAUSE);
	while (atomic_load(&v->pause_ack) == seen && !atomic_load(&v->vm->stopping))
		futex_wait(&v->pause_ack, seen);
	return 0;
}

int vcpu_complete_exit(struct vcpu *v)
{
	int r, err;

	v->run->immediate_exit = 1;
	r = ioctl(v->fd, KVM_RUN, 0);
	err = errno;
	v->run->immediate_exit = 0;
	if (r == 0 || err != EINTR) {
		errno = r == 0 ? EPROTO : err;
		return -1;
	}
	return 0;
}

int vcpu_inject_exception(struct vcpu *v, unsigned int vector)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev))
		return -1;
	ev.exception.injected = 1;
	ev.exception.nr = vector;
	ev.exception.has_error_code = 0;
	ev.exception.error_code = 0;
	ev.flags = 0;
	return ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev);
}

static void dump_seg(FILE *f, const char *name, const struct kvm_segment *s)
{
	fprintf(f, "  %s=%04x dpl=%u base=%llx limit=%x type=%u l=%u\n", name, s->selector,
		s->dpl, (unsigned long long)s->base, s->limit, s->type, s->l);
}

void vcpu_dump(struct vcpu *v, bool full)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	FILE *f = stderr;

	pthread_mutex_lock(&v->vm->out_lock);
	if (ioctl(v->fd, KVM_GET_REGS, &r) || ioctl(v->fd, KVM_GET_SREGS, &s)) {
		fprintf(f, "vCPU %u: registers unavailable: %s\n", v->index, strerror(errno));
		goto out;
	}
	fprintf(f, "vCPU %u: RIP=%016llx RSP=%016llx RFLAGS=%08llx CPL=%u\n", v->index,
		(unsigned long long)r.rip, (unsigned long long)r.rsp,
		(unsigned long long)r.rflags, s.ss.dpl);
	if (!full)
		goto out;
	fprintf(f, "  RAX=%016llx RBX=%016llx RCX=%016llx RDX=%016llx\n"
		"  RSI=%016llx RDI=%016llx RBP=%016llx R8 =%016llx\n"
		"  R9 =%016llx R10=%016llx R11=%016llx R12=%016llx\n"
		"  R13=%016llx R14=%016llx R15=%016llx\n",
		r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8,
		r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15);
	fprintf(f, "  CR0=%llx CR2=%llx CR3=%llx CR4=%llx EFER=%llx\n",
		s.cr0, s.cr2, s.cr3, s.cr4, s.efer);
	dump_seg(f, "CS", &s.cs);
	dump_seg(f, "SS", &s.ss);
	fprintf(f, "  GDT=%llx/%x IDT=%llx/%x\n", (unsigned long long)s.gdt.base, s.gdt.limit,
		(unsigned long long)s.idt.base, s.idt.limit);
out:
	fflush(f);
	pthread_mutex_unlock(&v->vm->out_lock);
}

void vcpu_fail(struct vcpu *v, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&v->vm->out_lock);
	fprintf(stderr, "minivmm: vCPU %u: ", v->index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&v->vm->out_lock);
	vcpu_dump(v, true);
	vm_request_stop(v->vm, 3);
}
