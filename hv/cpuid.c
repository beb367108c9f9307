// SPDX-License-Identifier: MIT
/*
 * The hypervisor CPUID leaves 0x40000000..0x40000005 that make a guest
 * recognise a Hyper-V compatible interface and find its features.
 */
#include "hv/internal.h"

/* "Microsoft Hv" as EBX:ECX:EDX; Linux accepts exactly this vendor. */
#define HV_VENDOR_EBX	0x7263694du	/* "Micr" */
#define HV_VENDOR_ECX	0x666f736fu	/* "osof" */
#define HV_VENDOR_EDX	0x76482074u	/* "t Hv" */

/* 0x40000004.EBX: spinlock retries before notifying; all ones = never. */
#define HV_SPINLOCK_NEVER_NOTIFY	0xffffffffu

static uint32_t hv_cpuid_hints(const struct hv_config *cfg)
{
	uint32_t eax = 0;

	if (cfg->flush_hint)
		eax |= HV_X64_REMOTE_TLB_FLUSH_RECOMMENDED;
	if (cfg->ipi_hint)
		eax |= HV_X64_CLUSTER_IPI_RECOMMENDED;
	if (cfg->ex_hint)
		eax |= HV_X64_EX_PROCESSOR_MASKS_RECOMMENDED;
	return eax;
}

/* 0x40000003.EAX: the MSRs (and MSR groups) the partition may access. */
static uint32_t hv_cpuid_privileges(const struct hv_config *cfg)
{
	uint32_t eax = HV_MSR_HYPERCALL_AVAILABLE | HV_MSR_VP_INDEX_AVAILABLE;

	if (cfg->freq_msrs)
		eax |= HV_ACCESS_FREQUENCY_MSRS;
	if (cfg->tsc_invariant)
		eax |= HV_ACCESS_TSC_INVARIANT;
	if (cfg->ref_time)
		eax |= HV_MSR_TIME_REF_COUNT_AVAILABLE | HV_MSR_REFERENCE_TSC_AVAILABLE;
	return eax;
}

/*
 * 0x40000003.EDX. VP_ASSIST_PAGE has no bit of its own: KVM ties it to the
 * APIC-access privilege (EAX bit 4), which minivmm never offers (every EOI
 * would exit), and Linux writes it whatever CPUID says.
 */
static uint32_t hv_cpuid_misc(const struct hv_config *cfg)
{
	uint32_t edx = 0;

	if (cfg->xmm_input)
		edx |= HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE;
	if (cfg->freq_msrs)
		edx |= HV_FEATURE_FREQUENCY_MSRS_AVAILABLE;
	if (cfg->crash_msrs)
		edx |= HV_FEATURE_GUEST_CRASH_MSR_AVAILABLE;
	return edx;
}

static void hv_cpuid_leaf(const struct hv_config *cfg, uint32_t function,
			  struct hv_cpuid_leaf *leaf)
{
	*leaf = (struct hv_cpuid_leaf){ .function = function };

	switch (function) {
	case HV_CPUID_VENDOR_AND_MAX:
		leaf->eax = HV_CPUID_MAX_LEAF;
		leaf->ebx = HV_VENDOR_EBX;
		leaf->ecx = HV_VENDOR_ECX;
		leaf->edx = HV_VENDOR_EDX;
		break;
	case HV_CPUID_INTERFACE:
		leaf->eax = HV_CPUID_SIGNATURE_EAX;
		break;
	case HV_CPUID_VERSION:
		/* No Hyper-V build to claim; zeros are a valid version. */
		break;
	case HV_CPUID_FEATURES:
		leaf->eax = hv_cpuid_privileges(cfg);
		leaf->edx = hv_cpuid_misc(cfg);
		break;
	case HV_CPUID_ENLIGHTENMENT_INFO:
		leaf->eax = hv_cpuid_hints(cfg);
		/* minivmm offers no HvCallNotifyLongSpinWait: never ask for it. */
		leaf->ebx = HV_SPINLOCK_NEVER_NOTIFY;
		break;
	case HV_CPUID_IMPLEMENT_LIMITS:
		/* Every VP index is below this (hv/vpset.c). */
		leaf->eax = cfg->vp_base + cfg->nr_vcpus;
		break;
	}
}

size_t hv_config_cpuid_leaves(const struct hv_config *cfg, struct hv_cpuid_leaf *out,
			      size_t max)
{
	size_t nr = HV_CPUID_MAX_LEAF - HV_CPUID_VENDOR_AND_MAX + 1;
	size_t i;

	if (nr > max)
		nr = max;
	for (i = 0; i < nr; i++)
		hv_cpuid_leaf(cfg, HV_CPUID_VENDOR_AND_MAX + (uint32_t)i, &out[i]);
	return nr;
}

size_t hv_cpuid_leaves(const struct hv *hv, struct hv_cpuid_leaf *out, size_t max)
{
	return hv_config_cpuid_leaves(&hv->cfg, out, max);
}
