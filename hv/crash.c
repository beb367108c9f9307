// SPDX-License-Identifier: MIT
/*
 * The guest crash MSRs: P0..P4 hold whatever the guest writes (partition-
 * wide, under msr_lock), CRASH_CTL reads CRASH_NOTIFY as the one supported
 * action, and a CRASH_CTL write with CRASH_NOTIFY hands P0..P4 to the host
 * (ops->guest_crash). Linux's hyperv_report_panic() writes P0 = the die or
 * panic notifier's event code (0 from panic(), DIE_OOPS from an oops),
 * P1 = its guest OS ID, P2/P3/P4 = RIP/RAX/RSP of the reported registers,
 * then CRASH_CTL = CRASH_NOTIFY. Without crash_msrs all six raise #GP.
 */
#include "hv/internal.h"

enum hv_msr_result hv_crash_msr_read(struct hv *hv, uint32_t msr, uint64_t *val)
{
	if (!hv->cfg.crash_msrs)
		return HV_MSR_GP;
	if (msr == HV_X64_MSR_CRASH_CTL) {
		/* No CRASH_NOTIFY_MSG: P3/P4 are never a message page. */
		*val = HV_CRASH_CTL_CRASH_NOTIFY;
		return HV_MSR_OK;
	}
	if (msr < HV_X64_MSR_CRASH_P0 || msr > HV_X64_MSR_CRASH_P4)
		return HV_MSR_GP;
	pthread_mutex_lock(&hv->msr_lock);
	*val = hv->crash_p[msr - HV_X64_MSR_CRASH_P0];
	pthread_mutex_unlock(&hv->msr_lock);
	return HV_MSR_OK;
}

/*
 * Any CRASH_CTL value is accepted (as KVM does); only CRASH_NOTIFY acts,
 * and only the first notification reaches the host, so a guest looping on
 * the MSR cannot flood it. The op runs outside msr_lock.
 */
static void hv_crash_notify(struct hv *hv, unsigned int vcpu, uint64_t ctl)
{
	uint64_t p[HV_CRASH_PARAMS];
	bool first;

	if (!(ctl & HV_CRASH_CTL_CRASH_NOTIFY))
		return;
	pthread_mutex_lock(&hv->msr_lock);
	first = !hv->crash_reported;
	hv->crash_reported = true;
	memcpy(p, hv->crash_p, sizeof(p));
	pthread_mutex_unlock(&hv->msr_lock);
	if (first)
		hv->ops.guest_crash(hv->opaque, vcpu, p);
}

enum hv_msr_result hv_crash_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr,
				      uint64_t val)
{
	if (!hv->cfg.crash_msrs)
		return HV_MSR_GP;
	if (msr == HV_X64_MSR_CRASH_CTL) {
		hv_crash_notify(hv, vcpu, val);
		return HV_MSR_OK;
	}
	if (msr < HV_X64_MSR_CRASH_P0 || msr > HV_X64_MSR_CRASH_P4)
		return HV_MSR_GP;
	pthread_mutex_lock(&hv->msr_lock);
	hv->crash_p[msr - HV_X64_MSR_CRASH_P0] = val;
	pthread_mutex_unlock(&hv->msr_lock);
	return HV_MSR_OK;
}
