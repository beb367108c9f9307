// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/kvm.h>
#include <asm/kvm_para.h>
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hv/hv.h"
#include "vmm/cpuid.h"

/*
 * Paravirt features that need no in-kernel hypercall (PV_UNHALT,
 * PV_SEND_IPI, PV_SCHED_YIELD hang on some hosts). MSI_EXT_DEST_ID lets a
 * Linux guest route interrupts to APIC IDs past 255 (KVM offers it only
 * where it implements it). ASYNC_PF and ASYNC_PF_INT are MSRs KVM serves
 * itself, as QEMU's default CPU models offer them: a guest whose memory
 * the host swaps out gets "page not present" and "page ready" events
 * instead of a stalled vCPU.
 */
#define KVM_PV_FEATURES_OFFERED ((1u << KVM_FEATURE_CLOCKSOURCE) | \
				 (1u << KVM_FEATURE_NOP_IO_DELAY) | \
				 (1u << KVM_FEATURE_CLOCKSOURCE2) | \
				 (1u << KVM_FEATURE_ASYNC_PF) | \
				 (1u << KVM_FEATURE_ASYNC_PF_INT) | \
				 (1u << KVM_FEATURE_STEAL_TIME) | \
				 (1u << KVM_FEATURE_PV_EOI) | \
				 (1u << KVM_FEATURE_PV_TLB_FLUSH) | \
				 (1u << KVM_FEATURE_MSI_EXT_DEST_ID) | \
				 (1u << KVM_FEATURE_CLOCKSOURCE_STABLE_BIT))
#define CPUID_HYPERVISOR_BIT	(1u << 31)	/* leaf 1 ECX */
#define CPUID_TSC_DEADLINE_BIT	(1u << 24)	/* leaf 1 ECX */
#define CPUID_INVARIANT_TSC	(1u << 8)	/* leaf 0x80000007 EDX */

static struct kvm_cpuid2 *get_supported(int kvm_fd, unsigned int *cap, char *err, size_t errlen)
{
	for (unsigned int n = 128; n <= 4096; n *= 2) {
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) +
					      (n + CPUID_SPARE_ENTRIES) * sizeof(c->entries[0]));

		if (!c)
			break;
		c->nent = n;
		if (!ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c)) {
			*cap = c->nent + CPUID_SPARE_ENTRIES;
			return c;
		}
		free(c);
		if (errno != E2BIG) {
			snprintf(err, errlen, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
			return NULL;
		}
	}
	snprintf(err, errlen, "KVM_GET_SUPPORTED_CPUID: table too large or out of memory");
	return NULL;
}

static bool is_kvm_leaf(uint32_t fn)
{
	return fn == KVM_CPUID_SIGNATURE || fn == KVM_CPUID_FEATURES;
}

/* KVM's two leaves at `base`, offering only the safe PV features; or gone (base 0). */
static void place_kvm_leaves(struct kvm_cpuid2 *c, uint32_t base)
{
	unsigned int out = 0;

	for (unsigned int i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 e = c->entries[i];

		if (is_kvm_leaf(e.function) && !base)
			continue;
		if (e.function == KVM_CPUID_SIGNATURE) {
			e.function = base;
			e.eax = base + 1;
		} else if (e.function == KVM_CPUID_FEATURES) {
			e.function = base + 1;
			e.eax &= KVM_PV_FEATURES_OFFERED;
		}
		c->entries[out++] = e;
	}
	c->nent = out;
}

static uint32_t kvm_base(enum pv_personality pv)
{
	switch (pv) {
	case PV_HYPERV_KVM: return CPUID_KVM_BASE_WITH_HV;
	case PV_KVM: return CPUID_KVM_BASE;
	default: return 0;
	}
}

/* Where leaf FUNCTION (subleaf 0) is in C, or -1. */
static int cpuid_slot(const struct kvm_cpuid2 *c, uint32_t function)
{
	for (unsigned int i = 0; i < c->nent; i++)
		if (c->entries[i].function == function && !c->entries[i].index)
			return (int)i;
	return -1;
}

int cpuid_host_l1_cache(struct kvm_cpuid2 *c, unsigned int cap, const uint32_t host[4])
{
	const struct kvm_cpuid_entry2 *ext = cpuid_find(c, 0x80000000);
	int slot = cpuid_slot(c, CPUID_L1_CACHE_LEAF);
	struct kvm_cpuid_entry2 *e = slot < 0 ? NULL : &c->entries[slot];

	if (!ext || ext->eax < CPUID_L1_CACHE_LEAF || !(host[0] | host[1] | host[2] | host[3]))
		return 0;
	if (e && (e->eax | e->ebx | e->ecx | e->edx))
		return 0;
	if (!e) {
		if (c->nent >= cap)
			return -1;
		e = &c->entries[c->nent++];
		memset(e, 0, sizeof(*e));
		e->function = CPUID_L1_CACHE_LEAF;
	}
	e->eax = host[0];
	e->ebx = host[1];
	e->ecx = host[2];
	e->edx = host[3];
	return 1;
}

/* CPUID 0x80000005 as this host's CPU reports it; zeros past its extended range. */
static void host_l1_cache(uint32_t out[4])
{
	uint32_t max = 0, b, c, d;

	memset(out, 0, 4 * sizeof(out[0]));
	__cpuid(0x80000000, max, b, c, d);
	if (max >= CPUID_L1_CACHE_LEAF)
		__cpuid(CPUID_L1_CACHE_LEAF, out[0], out[1], out[2], out[3]);
}

bool cpuid_tsc_deadline(struct kvm_cpuid2 *c)
{
	int slot = cpuid_slot(c, 1);
	struct kvm_cpuid_entry2 *e = slot < 0 ? NULL : &c->entries[slot];
	bool was;

	if (!e)
		return false;
	was = e->ecx & CPUID_TSC_DEADLINE_BIT;
	e->ecx |= CPUID_TSC_DEADLINE_BIT;
	return !was;
}

int cpuid_shape(struct kvm_cpuid2 *c, unsigned int cap, enum pv_personality pv,
		const struct hv_cpuid_leaf *hl, size_t nhl)
{
	for (unsigned int i = 0; i < c->nent; i++)
		if (c->entries[i].function == 1)
			c->entries[i].ecx |= CPUID_HYPERVISOR_BIT;
	place_kvm_leaves(c, kvm_base(pv));
	if (c->nent + nhl > cap)
		return -1;
	for (size_t i = 0; i < nhl; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[c->nent++];

		memset(e, 0, sizeof(*e));
		e->function = hl[i].function;
		e->eax = hl[i].eax;
		e->ebx = hl[i].ebx;
		e->ecx = hl[i].ecx;
		e->edx = hl[i].edx;
	}
	return 0;
}

struct kvm_cpuid2 *cpuid_build(int kvm_fd, enum pv_personality pv,
			       const struct hv_cpuid_leaf *hl, size_t nhl,
			       char *err, size_t errlen)
{
	unsigned int cap;
	struct kvm_cpuid2 *c = get_supported(kvm_fd, &cap, err, errlen);

	uint32_t host[4];

	if (!c)
		return NULL;
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_TSC_DEADLINE_TIMER) > 0)
		(void)cpuid_tsc_deadline(c);
	host_l1_cache(host);
	if (cpuid_host_l1_cache(c, cap, host) < 0) {
		snprintf(err, errlen, "CPUID: no room for leaf 0x80000005 (a bug in minivmm)");
		free(c);
		return NULL;
	}
	if (pv != PV_HYPERV && pv != PV_HYPERV_KVM)
		nhl = 0;
	if (cpuid_shape(c, cap, pv, hl, nhl)) {
		snprintf(err, errlen, "CPUID: no room for %zu hypervisor leaves (a bug in minivmm)", nhl);
		free(c);
		return NULL;
	}
	return c;
}

int cpuid_set(int vcpu_fd, const struct kvm_cpuid2 *tmpl, unsigned int apic_id)
{
	size_t sz = sizeof(*tmpl) + tmpl->nent * sizeof(tmpl->entries[0]);
	struct kvm_cpuid2 *c = malloc(sz);
	int r;

	if (!c)
		return -1;
	memcpy(c, tmpl, sz);
	for (unsigned int i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function == 1)
			e->ebx = (e->ebx & 0x00ffffff) | (apic_id << 24);
		else if (e->function == 0xb || e->function == 0x1f)
			e->edx = apic_id;
	}
	r = ioctl(vcpu_fd, KVM_SET_CPUID2, c);
	free(c);
	return r;
}

const void *cpuid_find(const struct kvm_cpuid2 *c, uint32_t function)
{
	int i = cpuid_slot(c, function);

	return i < 0 ? NULL : &c->entries[i];
}

uint32_t cpuid_kvm_features(const struct kvm_cpuid2 *c, enum pv_personality pv)
{
	const struct kvm_cpuid_entry2 *e;

	if (!kvm_base(pv))
		return 0;
	e = cpuid_find(c, kvm_base(pv) + 1);
	return e ? e->eax : 0;
}

bool cpuid_tsc_invariant(const struct kvm_cpuid2 *c)
{
	const struct kvm_cpuid_entry2 *e = cpuid_find(c, 0x80000007);

	return e && (e->edx & CPUID_INVARIANT_TSC);
}

bool cpuid_kvm_tsc_invariant(int kvm_fd)
{
	unsigned int cap;
	char err[128];
	struct kvm_cpuid2 *c = get_supported(kvm_fd, &cap, err, sizeof(err));
	bool r = c && cpuid_tsc_invariant(c);

	free(c);
	return r;
}
