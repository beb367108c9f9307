/* SPDX-License-Identifier: MIT */
/*
 * --hv-impl kvm: KVM's in-kernel Hyper-V serves the guest instead of hv/.
 * minivmm only shapes what the guest is shown and reports what KVM hands
 * back (a crash, a hypercall KVM leaves to user space).
 */
#ifndef VMM_KVM_HV_H
#define VMM_KVM_HV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hv/hv.h"

struct kvm_host;
struct vm;
struct vcpu;

#define KVM_HV_LEAVES	(HV_CPUID_MAX_LEAF - HV_CPUID_VENDOR_AND_MAX + 1)

struct kvm_hv {
	bool on;			/* --hv-impl kvm, and KVM has all it needs (enforce_cpuid too) */
	struct hv_cpuid_leaf leaves[KVM_HV_LEAVES];	/* what the guest is shown */
	/* Bits minivmm's layer would show that KVM does not support. */
	uint32_t lacks_features_eax, lacks_features_ebx, lacks_features_edx;
	uint32_t lacks_hints_eax;
};

/*
 * Check KVM's capabilities and build the leaves: minivmm's own for this
 * guest (hvhost_config), each feature and hint bit kept only where
 * KVM_GET_SUPPORTED_HV_CPUID has it too. 0, or -1 with `err` (exit 2).
 */
int kvm_hv_open(struct vm *vm, char *err, size_t errlen);
/* Whether `kvm` has all that --hv-impl kvm --hv-synic needs (minivmm-qemu asks). */
bool kvm_hv_synic_usable(const struct kvm_host *kvm);

/*
 * Pure part of kvm_hv_open: mask `want` (minivmm's leaves) by `kvm`
 * (KVM's supported leaves, any order, `nkvm` of them), recording what
 * was dropped.
 */
void kvm_hv_mask_leaves(struct kvm_hv *h, const struct hv_cpuid_leaf *want, size_t nwant,
			const struct hv_cpuid_leaf *kvm, size_t nkvm);

/*
 * --hv-synic: add the SynIC, synthetic-timer and direct-mode bits (and the
 * reference counter the timers count in) to `want`'s feature leaf, before
 * kvm_hv_mask_leaves keeps what KVM supports. Pure.
 */
void kvm_hv_add_synic(struct hv_cpuid_leaf *want, size_t nwant);

/* Before KVM_SET_CPUID2: KVM_CAP_HYPERV_ENFORCE_CPUID, and KVM_CAP_HYPERV_SYNIC2 for --hv-synic. */
int kvm_hv_vcpu_pre_cpuid(struct vm *vm, struct vcpu *v, char *err, size_t errlen);
/* After it: the VP index (--hv-vp-base + the vCPU's index) through VP_INDEX. */
int kvm_hv_vcpu_post_cpuid(struct vm *vm, struct vcpu *v, char *err, size_t errlen);

/* KVM_EXIT_SYSTEM_EVENT of type KVM_SYSTEM_EVENT_CRASH: report P0..P4 as hv/ would. */
void kvm_hv_crash(struct vcpu *v);
/*
 * KVM_EXIT_HYPERV: a hypercall KVM leaves to user space, a SynIC control
 * write (--hv-synic; nothing of minivmm's depends on it), or an unexpected kind.
 */
void kvm_hv_exit(struct vcpu *v);
/* The status for a hypercall KVM leaves to user space (pure; see kvm_hv.c). */
uint16_t kvm_hv_user_hcall_status(bool synic, uint16_t code);

/* "0x40000003.EAX 0x8000" ...: the bits KVM lacks, or "" when none. */
void kvm_hv_describe_lacks(const struct kvm_hv *h, char *out, size_t outlen);

#endif
