/* SPDX-License-Identifier: MIT */
/*
 * The CPUID table each vCPU gets: KVM's supported leaves, the hypervisor
 * bit, and the hypervisor leaves of the run's personality (--pv): Hyper-V's
 * from hv/, KVM's where the personality puts them, or none.
 */
#ifndef VMM_CPUID_H
#define VMM_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/options.h"

struct kvm_cpuid2;
struct hv;
struct hv_cpuid_leaf;

#define CPUID_KVM_BASE		0x40000000u	/* KVM's leaves alone (--pv kvm) */
#define CPUID_KVM_BASE_WITH_HV	0x40000100u	/* behind Hyper-V's, where QEMU puts them */
/* Room a template keeps for the leaves cpuid_shape() adds. */
#define CPUID_SPARE_ENTRIES	16

/*
 * KVM_GET_SUPPORTED_CPUID shaped for `pv`, with the `nhl` Hyper-V leaves
 * `hl` (none where the guest is shown no Hyper-V).
 */
struct kvm_cpuid2 *cpuid_build(int kvm_fd, enum pv_personality pv,
			       const struct hv_cpuid_leaf *hl, size_t nhl,
			       char *err, size_t errlen);
/*
 * The pure part: set the hypervisor bit, move or drop KVM's leaves and add
 * `nhl` Hyper-V leaves. `cap` is how many entries `c` has room for. 0, or
 * -1 when they do not fit.
 */
int cpuid_shape(struct kvm_cpuid2 *c, unsigned int cap, enum pv_personality pv,
		const struct hv_cpuid_leaf *hl, size_t nhl);
/*
 * CPUID 0x80000005, AMD's L1 cache and TLB identifiers: KVM 6.1 reports it as
 * zeros (KVM_GET_SUPPORTED_CPUID did not pass it through then), and
 * Linux on an AMD family 15h CPU divides by the L1 instruction cache's
 * associativity from it (bsp_init_amd): a divide error before its console
 * is up. Where KVM's leaf is zeros or missing but its extended range reaches
 * 0x80000005, take `host` (that leaf on this host, EAX..EDX), as newer KVM
 * does. 1 when the leaf was filled, 0 when left alone, -1 when an entry was
 * needed and `c` (room for `cap`) has none.
 */
#define CPUID_L1_CACHE_LEAF	0x80000005u
int cpuid_host_l1_cache(struct kvm_cpuid2 *c, unsigned int cap, const uint32_t host[4]);
/*
 * CPUID 0x1 ECX bit 24, the TSC-deadline timer. KVM's in-kernel LAPIC
 * emulates it wherever KVM_CAP_TSC_DEADLINE_TIMER says so, but
 * KVM_GET_SUPPORTED_CPUID left the bit out until late 2024 (KVM commit
 * 9be4ec35d668; api.rst's "Known KVM API problems" has the VMM set it from
 * the capability, as QEMU does). Sets the bit in leaf 1; true when it was
 * clear.
 */
bool cpuid_tsc_deadline(struct kvm_cpuid2 *c);
/* Install the template on a vCPU with its own APIC ID patched in. */
int cpuid_set(int vcpu_fd, const struct kvm_cpuid2 *tmpl, unsigned int apic_id);
/* KVM's paravirt feature bits as offered in the template (0 if none). */
uint32_t cpuid_kvm_features(const struct kvm_cpuid2 *c, enum pv_personality pv);
/* One leaf of the template (subleaf 0), or NULL. */
const void *cpuid_find(const struct kvm_cpuid2 *c, uint32_t function);
/* CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every state. */
bool cpuid_tsc_invariant(const struct kvm_cpuid2 *c);
/* The same for what KVM supports here (false if it cannot say). */
bool cpuid_kvm_tsc_invariant(int kvm_fd);

#endif
