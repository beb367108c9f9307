// SPDX-License-Identifier: MIT
/*
 * The synthetic MSRs: GUEST_OS_ID and HYPERCALL (partition-wide, under
 * msr_lock), VP_INDEX (per vCPU, read-only) and, with cfg.vp_assist,
 * VP_ASSIST_PAGE (per vCPU). The clock, reference-time and crash MSRs
 * live in clock.c, reftime.c and crash.c. Every other MSR of the range
 * minivmm claims raises #GP.
 */
#include "hv/internal.h"

/*
 * Writers hold msr_lock; hv_hypercall_enabled() reads without it, so the
 * store is atomic.
 */
static void hv_set_hypercall(struct hv *hv, uint64_t val)
{
	__atomic_store_n(&hv->hypercall, val, __ATOMIC_RELEASE);
}

bool hv_hypercall_enabled(struct hv *hv)
{
	return __atomic_load_n(&hv->hypercall, __ATOMIC_ACQUIRE) & HV_HYPERCALL_ENABLE;
}

static int hv_install_page(struct hv *hv, uint64_t gpa)
{
	uint8_t page[HV_PAGE_SIZE];

	hv_page_fill(&hv->cfg, page);
	return hv->ops.write_gpa(hv->opaque, gpa, page, sizeof(page));
}

/*
 * Bits 11:2 are RsvdP: kept as written and read back, no #GP. A locked MSR
 * is immutable until reset, so later writes are dropped without a fault.
 */
static enum hv_msr_result hv_write_hypercall(struct hv *hv, uint64_t val)
{
	if (hv->hypercall & HV_HYPERCALL_LOCKED)
		return HV_MSR_OK;
	/* TLFS: without a guest OS identity the enable bit stays zero. */
	if (!hv->guest_os_id)
		val &= ~HV_HYPERCALL_ENABLE;
	if ((val & HV_HYPERCALL_ENABLE) &&
	    hv_install_page(hv, val & ~HV_PAGE_OFFSET_MASK))
		return HV_MSR_GP;	/* the page is not in RAM; keep the old value */
	hv_set_hypercall(hv, val);
	return HV_MSR_OK;
}

static void hv_write_guest_os_id(struct hv *hv, uint64_t val)
{
	hv->guest_os_id = val;
	/* Clearing the identity disables the page, unless the MSR is locked. */
	if (!val && !(hv->hypercall & HV_HYPERCALL_LOCKED))
		hv_set_hypercall(hv, hv->hypercall & ~HV_HYPERCALL_ENABLE);
}

/*
 * minivmm offers no VP-assist feature (no APIC EOI assist, no enlightened
 * VMCS, no nested flush), so the page is never read or written: the MSR
 * only holds the value its vCPU wrote, enable bit and RsvdP bits included,
 * because Linux writes it on every CPU whatever CPUID says.
 */
static enum hv_msr_result hv_vp_assist_read(struct hv *hv, unsigned int vcpu, uint64_t *val)
{
	if (!hv->vp_assist || vcpu >= hv->cfg.nr_vcpus)
		return HV_MSR_GP;
	*val = __atomic_load_n(&hv->vp_assist[vcpu], __ATOMIC_RELAXED);
	return HV_MSR_OK;
}

static enum hv_msr_result hv_vp_assist_write(struct hv *hv, unsigned int vcpu, uint64_t val)
{
	if (!hv->vp_assist || vcpu >= hv->cfg.nr_vcpus)
		return HV_MSR_GP;
	__atomic_store_n(&hv->vp_assist[vcpu], val, __ATOMIC_RELAXED);
	return HV_MSR_OK;
}

enum hv_msr_result hv_msr_read(struct hv *hv, unsigned int vcpu, uint32_t msr, uint64_t *val)
{
	switch (msr) {
	case HV_X64_MSR_GUEST_OS_ID:
		pthread_mutex_lock(&hv->msr_lock);
		*val = hv->guest_os_id;
		pthread_mutex_unlock(&hv->msr_lock);
		return HV_MSR_OK;
	case HV_X64_MSR_HYPERCALL:
		pthread_mutex_lock(&hv->msr_lock);
		*val = hv->hypercall;
		pthread_mutex_unlock(&hv->msr_lock);
		return HV_MSR_OK;
	case HV_X64_MSR_VP_INDEX:
		/* vp_base + the minivmm vCPU index, fixed for the VM's life. */
		*val = (uint64_t)hv->cfg.vp_base + vcpu;
		return HV_MSR_OK;
	case HV_X64_MSR_VP_ASSIST_PAGE:
		return hv_vp_assist_read(hv, vcpu, val);
	case HV_X64_MSR_TIME_REF_COUNT:
	case HV_X64_MSR_REFERENCE_TSC:
		return hv_reftime_msr_read(hv, vcpu, msr, val);
	case HV_X64_MSR_TSC_FREQUENCY:
	case HV_X64_MSR_APIC_FREQUENCY:
	case HV_X64_MSR_TSC_INVARIANT_CONTROL:
		return hv_clock_msr_read(hv, msr, val);
	case HV_X64_MSR_CRASH_P0 ... HV_X64_MSR_CRASH_CTL:
		return hv_crash_msr_read(hv, msr, val);
	default:
		return HV_MSR_GP;
	}
}

enum hv_msr_result hv_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr, uint64_t val)
{
	enum hv_msr_result ret = HV_MSR_OK;

	switch (msr) {
	case HV_X64_MSR_GUEST_OS_ID:
		pthread_mutex_lock(&hv->msr_lock);
		hv_write_guest_os_id(hv, val);
		pthread_mutex_unlock(&hv->msr_lock);
		return HV_MSR_OK;
	case HV_X64_MSR_HYPERCALL:
		pthread_mutex_lock(&hv->msr_lock);
		ret = hv_write_hypercall(hv, val);
		pthread_mutex_unlock(&hv->msr_lock);
		return ret;
	case HV_X64_MSR_VP_ASSIST_PAGE:
		return hv_vp_assist_write(hv, vcpu, val);
	case HV_X64_MSR_TIME_REF_COUNT:
	case HV_X64_MSR_REFERENCE_TSC:
		return hv_reftime_msr_write(hv, vcpu, msr, val);
	case HV_X64_MSR_TSC_FREQUENCY:
	case HV_X64_MSR_APIC_FREQUENCY:
	case HV_X64_MSR_TSC_INVARIANT_CONTROL:
		return hv_clock_msr_write(hv, msr, val);
	case HV_X64_MSR_CRASH_P0 ... HV_X64_MSR_CRASH_CTL:
		return hv_crash_msr_write(hv, vcpu, msr, val);
	default:
		/* VP_INDEX is read-only for the guest; the rest do not exist. */
		return HV_MSR_GP;
	}
}
