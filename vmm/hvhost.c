// SPDX-License-Identifier: MIT
/*
 * What the Hyper-V layer may ask of the VM (struct hv_host_ops), and the
 * hypercall trap port that feeds it. hv/ never sees KVM; this file does.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hv/hv.h"
#include "vmm/cpuid.h"
#include "vmm/exitstatus.h"
#include "vmm/hvhost.h"
#include "vmm/pio_out.h"
#include "vmm/tsc.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"
#include "vmm/x86.h"

#define X86_UD_VECTOR		6
#define HCALL_SPILL_BYTES	(HV_HCALL_XMM_COUNT * 16)

static int host_read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	struct vm *vm = opaque;

	return mem_read(&vm->mem, gpa, dst, len);
}

static int host_write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	struct vm *vm = opaque;

	return mem_write(&vm->mem, gpa, src, len);
}

static int host_read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	struct vm *vm = opaque;
	struct vcpu *v = &vm->vcpus[vcpu];
	struct kvm_fpu fpu;

	if (vm->cfg.xmm_path == XMM_PATH_SPILL) {
		const struct kvm_sync_regs *s = &v->run->s.regs;

		/* The page stored XMM0..5 at RSP..RSP+95 just before trapping. */
		return x86_read_gva(&vm->mem, s->sregs.cr3, s->regs.rsp, &xmm[0][0],
				    HCALL_SPILL_BYTES);
	}
	if (ioctl(v->fd, KVM_GET_FPU, &fpu))
		return -1;
	memcpy(xmm, fpu.xmm, HCALL_SPILL_BYTES);
	return 0;
}

/* A target the caller asked to flush and must wait for. */
struct flush_wait {
	unsigned int vcpu;
	unsigned int ticket;
};

/* Room for one more waiter: grown by doubling, so a caller holds what its largest flush needed. */
static int flush_waits_reserve(struct vcpu *self, unsigned int need)
{
	unsigned int cap = self->flush_waits_cap ? self->flush_waits_cap : 16;
	struct flush_wait *w;

	if (need <= self->flush_waits_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	w = realloc(self->flush_waits, (size_t)cap * sizeof(*w));
	if (!w)
		return -1;
	self->flush_waits = w;
	self->flush_waits_cap = cap;
	return 0;
}

/*
 * Targets ahead of the one being asked whose flush words are prefetched:
 * a struct vcpu is tens of KiB, so each target is a cache (and TLB) miss
 * of its own; fetched in advance, the misses of a wide set overlap.
 */
#define FLUSH_PREFETCH_AHEAD	8

int hvhost_flush_vcpus(struct vm *vm, unsigned int caller, const struct hv_vpmask *set)
{
#ifdef MVM_FAULT_NO_FLUSH
	/*
	 * build/minivmm-noflush only (never installed): the flush is skipped,
	 * so that a test can show its stale-read check fails without it
	 * (tests/integration/cases.d/linux_work.inc).
	 */
	(void)vm;
	(void)caller;
	(void)set;
	return 0;
#endif
	struct vcpu *self = &vm->vcpus[caller];
	unsigned int n = vm->cfg.nr_vcpus, nr_wait = 0, ahead = hv_vpmask_next(set, 0, n);

	for (unsigned int k = 0; k < FLUSH_PREFETCH_AHEAD && ahead < n; k++) {
		__builtin_prefetch(&vm->vcpus[ahead].flush_seq, 1);
		ahead = hv_vpmask_next(set, ahead + 1, n);
	}
	/* Ask everyone first, then wait: the targets flush in parallel. */
	for (unsigned int i = hv_vpmask_next(set, 0, n); i < n; i = hv_vpmask_next(set, i + 1, n)) {
		unsigned int ticket;
		bool must_wait;

		if (ahead < n) {
			__builtin_prefetch(&vm->vcpus[ahead].flush_seq, 1);
			ahead = hv_vpmask_next(set, ahead + 1, n);
		}
		vcpu_flush_tlb_begin(&vm->vcpus[i], &ticket, &must_wait);
		if (!must_wait)
			continue;
		if (flush_waits_reserve(self, nr_wait + 1)) {
			/* No room to remember it: wait for this one now. */
			vcpu_flush_tlb_wait(&vm->vcpus[i], ticket);
			continue;
		}
		self->flush_waits[nr_wait].vcpu = i;
		self->flush_waits[nr_wait].ticket = ticket;
		nr_wait++;
	}
	/* Blocked in user space: publish "preempted" for the waiting caller. */
	pvtime_hold_begin(self);
	for (unsigned int k = 0; k < nr_wait; k++)
		vcpu_flush_tlb_wait(&vm->vcpus[self->flush_waits[k].vcpu], self->flush_waits[k].ticket);
	pvtime_hold_end(self);
	return 0;
}

static int host_flush_vcpus(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	return hvhost_flush_vcpus(opaque, caller, set);
}

/*
 * Fixed delivery, physical destination = APIC ID = vCPU index. With
 * KVM_CAP_X2APIC_API's 32-bit IDs, address_hi bits 31:8 carry destination
 * bits 31:8 (its bits 7:0 must be zero); without it there are at most 255
 * vCPUs (kvm_check_vcpus) and address_hi stays 0.
 */
static void msi_for(const struct vm *vm, unsigned int apic_id, uint32_t vector,
		    struct kvm_msi *msi)
{
	memset(msi, 0, sizeof(*msi));
	msi->address_lo = 0xfee00000u | ((apic_id & 0xffu) << 12);
	msi->address_hi = vm->x2apic_msi ? apic_id & ~0xffu : 0;
	msi->data = vector & 0xff;
}

static int host_send_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	struct vm *vm = opaque;
	int ret = 0;

	for (unsigned int i = hv_vpmask_next(set, 0, vm->cfg.nr_vcpus); i < vm->cfg.nr_vcpus;
	     i = hv_vpmask_next(set, i + 1, vm->cfg.nr_vcpus)) {
		struct kvm_msi msi;

		msi_for(vm, i, vector, &msi);
		if (ioctl(vm->fd, KVM_SIGNAL_MSI, &msi) < 0)
			ret = -1;
	}
	return ret;
}

/*
 * The guest's own crash report (hv/crash.c; at most one per run). From
 * Linux, P0 is the die/panic event code, P1 its guest OS ID and P2/P3/P4
 * RIP/RAX/RSP of the registers it reported; the panic message itself went
 * to the console. Status 3, as for any guest failure.
 */
static void host_guest_crash(void *opaque, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS])
{
	hvhost_report_crash(opaque, vcpu, p);
}

void hvhost_report_crash(struct vm *vm, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS])
{
	pthread_mutex_lock(&vm->out_lock);
	fprintf(stderr, "minivmm: vCPU %u: the guest reported a crash through the Hyper-V crash "
		"MSRs: P0=0x%" PRIx64 " P1=0x%" PRIx64 " P2=0x%" PRIx64 " P3=0x%" PRIx64
		" P4=0x%" PRIx64 "\n", vcpu, p[0], p[1], p[2], p[3], p[4]);
	pthread_mutex_unlock(&vm->out_lock);
	vm_request_stop(vm, EXITSTATUS_GUEST_CRASH);
}

#define MSR_IA32_TSC	0x10

/* Reference time's sample, on the vCPU's own thread (its MSR exit). */
static int host_read_clock(void *opaque, unsigned int vcpu, uint64_t *tsc, uint64_t *ns)
{
	struct vm *vm = opaque;

	if (vcpu_get_msr(&vm->vcpus[vcpu], MSR_IA32_TSC, tsc))
		return -1;
	*ns = host_monotonic_ns() - vm->hv_epoch_ns;
	return 0;
}

/*
 * KVM's own answer: KVM_CLOCK_TSC_STABLE while it runs its master clock
 * (a host TSC it trusts, every vCPU's TSC matched). Without it KVM resets
 * a vCPU's TSC offset whenever the vCPU thread changes CPU, so guest TSC
 * time is lost across exits and a page computed from it would run behind
 * the MSR (seen in nested SVM: kvm-unit-tests' hyperv_clock drift check).
 */
static bool host_tsc_stable(void *opaque)
{
	struct vm *vm = opaque;
	struct kvm_clock_data c = { 0 };
	bool stable = !ioctl(vm->fd, KVM_GET_CLOCK, &c) && (c.flags & KVM_CLOCK_TSC_STABLE);
	int was = atomic_exchange(&vm->ref_tsc_page,
				  stable ? VM_REF_TSC_VALID : VM_REF_TSC_INVALID);

	if (!stable && was != VM_REF_TSC_INVALID) {
		pthread_mutex_lock(&vm->out_lock);
		fprintf(stderr, "minivmm: the guest's reference TSC page is marked invalid "
			"(sequence 0): KVM does not report a stable TSC on this host "
			"(KVM_CLOCK_TSC_STABLE clear), so the guest reads TIME_REF_COUNT, an "
			"exit per read, from the host clock\n");
		pthread_mutex_unlock(&vm->out_lock);
	}
	return stable;
}

static const struct hv_host_ops host_ops = {
	.read_gpa = host_read_gpa,
	.write_gpa = host_write_gpa,
	.read_xmm = host_read_xmm,
	.flush_vcpus = host_flush_vcpus,
	.send_ipi = host_send_ipi,
	.guest_crash = host_guest_crash,
	.read_clock = host_read_clock,
	.tsc_stable = host_tsc_stable,
};

/* TLFS: hypercalls are for CPL 0 in long mode; the 32-bit form is not offered. */
static bool caller_may_hypercall(const struct kvm_sregs *s)
{
	return (s->cr0 & X86_CR0_PE) && (s->efer & X86_EFER_LMA) && s->cs.l && s->ss.dpl == 0;
}

/*
 * Fault on the trap instruction itself, as a refused VMCALL would. Whether
 * KVM left RIP on the OUT or already past it depends on the backend and the
 * form (vmm/insn_out.c); pio_out_complete() finishes the exit and finds the
 * OUT either way. Then restore the registers of the exit with RIP on the
 * instruction and queue the #UD. String forms keep RSI (and RCX for `rep`)
 * as KVM stepped them for the element already sent.
 */
static void raise_ud(struct vcpu *v, unsigned int size)
{
	struct kvm_run *run = v->run;
	struct kvm_regs at_exit;
	uint64_t insn_rip;

	switch (pio_out_complete(v, &at_exit, &insn_rip)) {
	case PIO_OUT_FAILED:
		vcpu_fail(v, "completing the trap before #UD: %s", strerror(errno));
		return;
	case PIO_OUT_UNKNOWN:
		vcpu_fail(v, "cannot place #UD: no OUT to port 0x%x (%u bytes) is on or ends at "
			  "RIP 0x%llx", MVM_PORT_HCALL, size, (unsigned long long)at_exit.rip);
		return;
	case PIO_OUT_FOUND:
		break;
	}
	run->s.regs.regs = at_exit;
	run->s.regs.regs.rip = insn_rip;
	run->kvm_dirty_regs |= KVM_SYNC_X86_REGS;
	if (vcpu_inject_exception(v, X86_UD_VECTOR))
		vcpu_fail(v, "cannot inject #UD: %s", strerror(errno));
}

static void record(struct vcpu *v, const struct hv_hcall_out *out, uint64_t cycles)
{
	struct hcall_stats *hs = &v->stats.hcall[stats_hcall_slot(out->code)][out->enc];
	unsigned int status = out->rax & 0xffff;

	lat_record(&hs->lat, cycles);
	if (out->inject_ud)
		hs->ud++;
	else
		hs->status[stats_hcall_status_bucket(status)]++;
}

static void hcall_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		     unsigned int size, void *state)
{
	struct kvm_sync_regs *s = &v->run->s.regs;
	struct hv_hcall_in in = { s->regs.rcx, s->regs.rdx, s->regs.r8 };
	struct hv_hcall_out out = { 0 };
	uint64_t t0 = host_rdtsc();

	(void)offset;
	(void)write;	/* write-only: the bus answers reads */
	(void)data;
	(void)state;
	if (!caller_may_hypercall(&s->sregs)) {
		raise_ud(v, size);
		return;
	}
	hv_hypercall(v->vm->hv, v->index, &in, &out);
	if (out.inject_ud) {
		raise_ud(v, size);
	} else {
		s->regs.rax = out.rax;
		v->run->kvm_dirty_regs |= KVM_SYNC_X86_REGS;
	}
	record(v, &out, host_rdtsc() - t0);
}

static const struct bus_desc hcall_desc = {
	.name = "hypercall", .kind = STATS_HCALL, .flags = BUS_F_WRITE_ONLY, .io = hcall_io,
};

/*
 * Partition reference time for kernels (Linux, kvm-unit-tests'
 * hyperv_clock.flat), not for the payload, whose MSR sweeps expect
 * 0x40000020 to be absent. Linux takes the reference TSC page for its
 * clocksource and sched_clock alike, so a page KVM's TSC cannot back
 * (sequence 0) turns every sched_clock call into a TIME_REF_COUNT exit:
 * measured on nested SVM (host clocksource hpet), 12-28 thousand a boot
 * (/init later too, though TCG timings are no result). So
 * Linux is offered it only where the host's clocksource lets KVM keep the
 * TSC stable; whether KVM then does is checked when the page is enabled.
 */
static bool hvhost_offers_ref_time(struct vm *vm)
{
	bool offered = vm->image.kind != IMAGE_ELF64 &&
		       (vm->image.kind != IMAGE_LINUX ||
			kvm_clocksource_is_tsc(vm->kvm.clocksource));

	if (!offered && vm->image.kind == IMAGE_LINUX)
		atomic_store(&vm->ref_tsc_page, VM_REF_TSC_NOT_OFFERED);
	return offered;
}

void hvhost_config(struct vm *vm, struct hv_config *cfg)
{
	bool is_linux = vm->image.kind == IMAGE_LINUX;

	*cfg = (struct hv_config){
		.nr_vcpus = vm->cfg.nr_vcpus,
		.xmm_input = vm->cfg.hv_xmm,
		.xmm_spill = vm->cfg.xmm_path == XMM_PATH_SPILL,
		.flush_hint = vm->cfg.hv_hints & VMM_HV_HINT_FLUSH,
		.ipi_hint = vm->cfg.hv_hints & VMM_HV_HINT_IPI,
		.ex_hint = vm->cfg.hv_hints & VMM_HV_HINT_EX,
		.vp_base = vm->cfg.hv_vp_base,
		/*
		 * What Linux needs to boot cleanly (docs/hyperv.md, "Linux
		 * guests"); the TSC rate follows once vCPU 0 exists
		 * (hvhost_set_tsc_khz). The LAPIC timer: KVM's APIC bus runs
		 * at 1 GHz (1 ns a cycle) unless KVM_CAP_X86_APIC_BUS_CYCLES_NS
		 * changes it, which minivmm never does.
		 */
		.endbr_page = is_linux,
		.vp_assist = is_linux,
		.crash_msrs = is_linux,
		.freq_msrs = is_linux,
		.apic_hz = is_linux ? HVHOST_KVM_APIC_HZ : 0,
		/* Only where KVM says the TSC it gives guests never changes rate. */
		.tsc_invariant = is_linux && cpuid_kvm_tsc_invariant(vm->kvm.fd),
		.ref_time = hvhost_offers_ref_time(vm),
	};
}

int hvhost_create(struct vm *vm, char *err, size_t errlen)
{
	struct hv_config cfg;

	hvhost_config(vm, &cfg);
#ifdef MVM_FAULT_NO_FLUSH
	fprintf(stderr, "minivmm: TEST BUILD (minivmm-noflush): Hyper-V flush hypercalls flush nothing\n");
#endif
	vm->hv_epoch_ns = host_monotonic_ns();
	vm->hv = hv_create(&cfg, &host_ops, vm);
	if (!vm->hv) {
		snprintf(err, errlen, "cannot create the Hyper-V layer (out of memory)");
		return -1;
	}
	if (bus_register(&vm->bus, BUS_PIO, MVM_PORT_HCALL, 1, &hcall_desc, NULL)) {
		snprintf(err, errlen, "hypercall port 0x%x is taken", MVM_PORT_HCALL);
		return -1;
	}
	return 0;
}

void hvhost_set_tsc_khz(struct vm *vm, uint64_t khz)
{
	if (vm->hv)
		hv_set_tsc_hz(vm->hv, khz * 1000);
}
