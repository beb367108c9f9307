// SPDX-License-Identifier: MIT
/*
 * What lets a guest keep time without an exit per read: the frequency MSRs
 * (so Linux neither calibrates the TSC against the PIT nor the LAPIC timer
 * against the TSC) and TSC_INVARIANT_CONTROL (so Linux trusts the TSC as
 * its clocksource instead of marking it unstable). Each exists only when
 * its hv_config switch is on; otherwise it raises #GP like any MSR
 * minivmm does not offer.
 */
#include "hv/internal.h"

static enum hv_msr_result hv_read_invariant_ctl(struct hv *hv, uint64_t *val)
{
	pthread_mutex_lock(&hv->msr_lock);
	*val = hv->tsc_invariant_ctl;
	pthread_mutex_unlock(&hv->msr_lock);
	return HV_MSR_OK;
}

/*
 * Bit 0 only (the other bits are reserved), and once set it stays set:
 * the guest has already told its scheduler the TSC is reliable. KVM
 * refuses the same two writes with #GP.
 */
static enum hv_msr_result hv_write_invariant_ctl(struct hv *hv, uint64_t val)
{
	enum hv_msr_result ret = HV_MSR_OK;

	if (val & ~HV_EXPOSE_INVARIANT_TSC)
		return HV_MSR_GP;
	pthread_mutex_lock(&hv->msr_lock);
	if (hv->tsc_invariant_ctl && !val)
		ret = HV_MSR_GP;
	else
		hv->tsc_invariant_ctl = val;
	pthread_mutex_unlock(&hv->msr_lock);
	return ret;
}

enum hv_msr_result hv_clock_msr_read(struct hv *hv, uint32_t msr, uint64_t *val)
{
	switch (msr) {
	case HV_X64_MSR_TSC_FREQUENCY:
		/* No rate known (hv_set_tsc_hz never called): not a made-up one. */
		if (!hv->cfg.freq_msrs || !hv->cfg.tsc_hz)
			return HV_MSR_GP;
		*val = hv->cfg.tsc_hz;
		return HV_MSR_OK;
	case HV_X64_MSR_APIC_FREQUENCY:
		if (!hv->cfg.freq_msrs)
			return HV_MSR_GP;
		*val = hv->cfg.apic_hz;
		return HV_MSR_OK;
	case HV_X64_MSR_TSC_INVARIANT_CONTROL:
		if (!hv->cfg.tsc_invariant)
			return HV_MSR_GP;
		return hv_read_invariant_ctl(hv, val);
	default:
		return HV_MSR_GP;
	}
}

/* The frequencies are read-only. */
enum hv_msr_result hv_clock_msr_write(struct hv *hv, uint32_t msr, uint64_t val)
{
	if (msr != HV_X64_MSR_TSC_INVARIANT_CONTROL || !hv->cfg.tsc_invariant)
		return HV_MSR_GP;
	return hv_write_invariant_ctl(hv, val);
}

void hv_set_tsc_hz(struct hv *hv, uint64_t hz)
{
	hv->cfg.tsc_hz = hz;
}
