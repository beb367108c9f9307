// SPDX-License-Identifier: MIT
/*
 * --hv-impl kvm: the guest's Hyper-V is KVM's (arch/x86/kvm/hyperv.c).
 * KVM turns it on for a vCPU whose CPUID has "Hv#1" at 0x40000001, then
 * handles the Hyper-V MSRs (the MSR filter lets them through: vmm/msr.c),
 * writes the hypercall page itself (VMCALL or VMMCALL, then RET) and
 * serves the flush and IPI hypercalls without leaving the kernel. The
 * guest is shown minivmm's own leaves for the same guest and options, less
 * any bit KVM does not support, so the two implementations face one guest.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/errmsg.h"
#include "vmm/exitstatus.h"
#include "vmm/hvhost.h"
#include "vmm/kvm_hv.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"

/* KVM 6.1 returns 10 leaves; -E2BIG below that. Room to spare. */
#define KVM_HV_SUPPORTED_MAX	32

static const struct kvm_cap_need kvm_hv_caps[] = {
	{ KVM_CAP_HYPERV, "KVM_CAP_HYPERV", "KVM's in-kernel Hyper-V" },
	{ KVM_CAP_HYPERV_VP_INDEX, "KVM_CAP_HYPERV_VP_INDEX", "setting each vCPU's VP index" },
	{ KVM_CAP_HYPERV_TLBFLUSH, "KVM_CAP_HYPERV_TLBFLUSH", "the remote flush hypercalls" },
	{ KVM_CAP_HYPERV_SEND_IPI, "KVM_CAP_HYPERV_SEND_IPI", "the IPI hypercalls" },
	{ KVM_CAP_SYS_HYPERV_CPUID, "KVM_CAP_SYS_HYPERV_CPUID", "reading what KVM supports (Linux 5.11+)" },
	/* The guest's differential cases expect KVM to hold it to its CPUID. */
	{ KVM_CAP_HYPERV_ENFORCE_CPUID, "KVM_CAP_HYPERV_ENFORCE_CPUID", "KVM keeping the guest to the CPUID it is shown (Linux 5.14+)" },
};

/* --hv-synic: the SynIC (message and event pages, SINTs) and its timers, per vCPU. */
static const struct kvm_cap_need kvm_hv_synic_cap[] = {
	{ KVM_CAP_HYPERV_SYNIC2, "KVM_CAP_HYPERV_SYNIC2", "KVM's SynIC and synthetic timers (Linux 4.14+)" },
};

#define NEEDS(a) (sizeof(a) / sizeof((a)[0]))

/* The first capability --hv-impl kvm (with `synic`, --hv-synic too) lacks, or NULL. */
static const struct kvm_cap_need *first_missing(const struct kvm_host *kvm, bool synic)
{
	const struct kvm_cap_need *m = kvm_first_missing(kvm, kvm_hv_caps, NEEDS(kvm_hv_caps));

	if (!m && synic)
		m = kvm_first_missing(kvm, kvm_hv_synic_cap, NEEDS(kvm_hv_synic_cap));
	return m;
}

bool kvm_hv_synic_usable(const struct kvm_host *kvm)
{
	return !first_missing(kvm, true);
}

static int check_caps(struct vm *vm, char *err, size_t errlen)
{
	const struct kvm_cap_need *m = first_missing(&vm->kvm, vm->cfg.hv_synic);
	bool synic_cap = m >= kvm_hv_synic_cap && m < kvm_hv_synic_cap + NEEDS(kvm_hv_synic_cap);

	if (!m)
		return 0;
	if (synic_cap)
		return errmsg(err, errlen, "--hv-synic: KVM on this host (%s backend) lacks %s (%s)",
			      kvm_backend_name(vm->kvm.backend), m->name, m->why);
	return errmsg(err, errlen, "--hv-impl kvm: KVM on this host (%s backend) lacks %s (%s); use --hv-impl minivmm",
		      kvm_backend_name(vm->kvm.backend), m->name, m->why);
}

/* KVM_GET_SUPPORTED_HV_CPUID on /dev/kvm, as hv_cpuid_leaf records. */
static int kvm_supported(struct vm *vm, struct hv_cpuid_leaf *out, size_t *n,
			 char *err, size_t errlen)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + KVM_HV_SUPPORTED_MAX * sizeof(c->entries[0]));

	if (!c)
		return errmsg(err, errlen, "out of memory");
	c->nent = KVM_HV_SUPPORTED_MAX;
	if (ioctl(vm->kvm.fd, KVM_GET_SUPPORTED_HV_CPUID, c)) {
		errmsg(err, errlen, "--hv-impl kvm: KVM_GET_SUPPORTED_HV_CPUID: %s", strerror(errno));
		free(c);
		return -1;
	}
	*n = c->nent < KVM_HV_SUPPORTED_MAX ? c->nent : KVM_HV_SUPPORTED_MAX;
	for (size_t i = 0; i < *n; i++)
		out[i] = (struct hv_cpuid_leaf){ c->entries[i].function, c->entries[i].eax,
						 c->entries[i].ebx, c->entries[i].ecx,
						 c->entries[i].edx };
	free(c);
	return 0;
}

static const struct hv_cpuid_leaf *find_leaf(const struct hv_cpuid_leaf *l, size_t n,
					     uint32_t function)
{
	for (size_t i = 0; i < n; i++)
		if (l[i].function == function)
			return &l[i];
	return NULL;
}

/* Keep `*bits` where KVM has them; add the rest to `*lacks`. */
static void keep(uint32_t *bits, uint32_t kvm_bits, uint32_t *lacks)
{
	*lacks |= *bits & ~kvm_bits;
	*bits &= kvm_bits;
}

void kvm_hv_mask_leaves(struct kvm_hv *h, const struct hv_cpuid_leaf *want, size_t nwant,
			const struct hv_cpuid_leaf *kvm, size_t nkvm)
{
	static const struct hv_cpuid_leaf none;
	const struct hv_cpuid_leaf *kf = find_leaf(kvm, nkvm, HV_CPUID_FEATURES);
	const struct hv_cpuid_leaf *ke = find_leaf(kvm, nkvm, HV_CPUID_ENLIGHTENMENT_INFO);

	h->lacks_features_eax = h->lacks_features_ebx = h->lacks_features_edx = 0;
	h->lacks_hints_eax = 0;
	kf = kf ? kf : &none;
	ke = ke ? ke : &none;
	for (size_t i = 0; i < nwant && i < KVM_HV_LEAVES; i++) {
		struct hv_cpuid_leaf *l = &h->leaves[i];

		*l = want[i];
		if (l->function == HV_CPUID_FEATURES) {
			keep(&l->eax, kf->eax, &h->lacks_features_eax);
			keep(&l->ebx, kf->ebx, &h->lacks_features_ebx);
			keep(&l->edx, kf->edx, &h->lacks_features_edx);
		} else if (l->function == HV_CPUID_ENLIGHTENMENT_INFO) {
			keep(&l->eax, ke->eax, &h->lacks_hints_eax);
		}
	}
}

void kvm_hv_add_synic(struct hv_cpuid_leaf *want, size_t nwant)
{
	for (size_t i = 0; i < nwant; i++) {
		if (want[i].function != HV_CPUID_FEATURES)
			continue;
		want[i].eax |= HV_MSR_TIME_REF_COUNT_AVAILABLE | HV_MSR_SYNIC_AVAILABLE |
			       HV_MSR_SYNTIMER_AVAILABLE;
		want[i].edx |= HV_STIMER_DIRECT_MODE_AVAILABLE;
	}
}

int kvm_hv_open(struct vm *vm, char *err, size_t errlen)
{
	struct hv_cpuid_leaf kvm[KVM_HV_SUPPORTED_MAX], want[KVM_HV_LEAVES];
	struct hv_config cfg;
	size_t nkvm = 0, nwant;

	if (check_caps(vm, err, errlen) || kvm_supported(vm, kvm, &nkvm, err, errlen))
		return -1;
	hvhost_config(vm, &cfg);
	nwant = hv_config_cpuid_leaves(&cfg, want, KVM_HV_LEAVES);
	if (vm->cfg.hv_synic)
		kvm_hv_add_synic(want, nwant);
	kvm_hv_mask_leaves(&vm->kvm_hv, want, nwant, kvm, nkvm);
	vm->kvm_hv.on = true;
	return 0;
}

int kvm_hv_vcpu_pre_cpuid(struct vm *vm, struct vcpu *v, char *err, size_t errlen)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_HYPERV_ENFORCE_CPUID, .args[0] = 1 };
	struct kvm_enable_cap synic = { .cap = KVM_CAP_HYPERV_SYNIC2 };

	if (!vm->kvm_hv.on)
		return 0;
	if (ioctl(v->fd, KVM_ENABLE_CAP, &cap))
		return errmsg(err, errlen, "vCPU %u: KVM_ENABLE_CAP(KVM_CAP_HYPERV_ENFORCE_CPUID): %s",
			      v->index, strerror(errno));
	if (vm->cfg.hv_synic && ioctl(v->fd, KVM_ENABLE_CAP, &synic))
		return errmsg(err, errlen, "vCPU %u: KVM_ENABLE_CAP(KVM_CAP_HYPERV_SYNIC2): %s",
			      v->index, strerror(errno));
	return 0;
}

int kvm_hv_vcpu_post_cpuid(struct vm *vm, struct vcpu *v, char *err, size_t errlen)
{
	uint64_t vp = (uint64_t)vm->cfg.hv_vp_base + v->index;

	if (!vm->kvm_hv.on)
		return 0;
	if (vcpu_set_msr(v, HV_X64_MSR_VP_INDEX, vp))
		return errmsg(err, errlen, "vCPU %u: KVM refused VP index %" PRIu64 " (KVM takes VP indexes below its KVM_MAX_VCPUS only)",
			      v->index, vp);
	return 0;
}

void kvm_hv_crash(struct vcpu *v)
{
	uint64_t p[HV_CRASH_PARAMS];

	for (unsigned int i = 0; i < HV_CRASH_PARAMS; i++)
		if (vcpu_get_msr(v, HV_X64_MSR_CRASH_P0 + i, &p[i])) {
			vcpu_fail(v, "the guest reported a crash to KVM's Hyper-V, but reading CRASH_P%u failed: %s",
				  i, strerror(errno));
			return;
		}
	hvhost_report_crash(v->vm, v->index, p);
}

/*
 * What minivmm answers a hypercall KVM leaves to user space. With the SynIC
 * on, POST_MESSAGE and SIGNAL_EVENT (no eventfd registered) come up: minivmm
 * has no message or event connections, so every connection ID is unknown.
 * Anything else (SynDBG, never enabled) is a call that does not exist.
 */
uint16_t kvm_hv_user_hcall_status(bool synic, uint16_t code)
{
	if (synic && (code == HVCALL_POST_MESSAGE || code == HVCALL_SIGNAL_EVENT))
		return HV_STATUS_INVALID_CONNECTION_ID;
	return HV_STATUS_INVALID_HYPERCALL_CODE;
}

/*
 * KVM_EXIT_HYPERV_SYNIC tells user space of a SynIC control write (SCONTROL,
 * SIEFP, SIMP) so that a VMM posting messages of its own can follow it;
 * minivmm posts none, and KVM has already done the write. Other kinds
 * (SynDBG) minivmm never enables.
 */
void kvm_hv_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint16_t code, status;

	if (run->hyperv.type == KVM_EXIT_HYPERV_SYNIC && v->vm->cfg.hv_synic) {
		v->stats.kvm_hv_synic_exits++;
		return;
	}
	if (run->hyperv.type != KVM_EXIT_HYPERV_HCALL) {
		vcpu_fail(v, "KVM_EXIT_HYPERV of type %u (SynIC without --hv-synic, or SynDBG), which minivmm never enables",
			  run->hyperv.type);
		return;
	}
	code = (uint16_t)(run->hyperv.u.hcall.input & 0xffff);
	status = kvm_hv_user_hcall_status(v->vm->cfg.hv_synic, code);
	if (!v->kvm_hv_hcall_said) {
		v->kvm_hv_hcall_said = true;
		pthread_mutex_lock(&v->vm->out_lock);
		fprintf(stderr, "minivmm: vCPU %u: KVM passed Hyper-V hypercall 0x%x up to user space; answered %s\n",
			v->index, code, status == HV_STATUS_INVALID_CONNECTION_ID ?
			"HV_STATUS_INVALID_CONNECTION_ID (minivmm has no SynIC connections)" :
			"HV_STATUS_INVALID_HYPERCALL_CODE");
		pthread_mutex_unlock(&v->vm->out_lock);
	}
	run->hyperv.u.hcall.result = status;
}

void kvm_hv_describe_lacks(const struct kvm_hv *h, char *out, size_t outlen)
{
	const struct { uint32_t bits; const char *where; } l[] = {
		{ h->lacks_features_eax, "0x40000003.EAX" },
		{ h->lacks_features_ebx, "0x40000003.EBX" },
		{ h->lacks_features_edx, "0x40000003.EDX" },
		{ h->lacks_hints_eax, "0x40000004.EAX" },
	};
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (l[i].bits && used < outlen)
			used += (size_t)snprintf(out + used, outlen - used, "%s%s 0x%x",
						 used ? ", " : "", l[i].where, l[i].bits);
}
