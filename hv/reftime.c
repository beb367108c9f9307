// SPDX-License-Identifier: MIT
/*
 * Partition reference time, in 100 ns units since the partition began:
 * TIME_REF_COUNT (an MSR, one exit a read) and the reference TSC page, from
 * which a guest computes the same time from its TSC without any exit, and
 * which Linux prefers to a TSC it was not told is invariant.
 *
 * The page is only as good as the TSC. Where the host keeps every vCPU's
 * TSC in step with its clock (ops->tsc_stable), enabling the page installs
 * the scale for the TSC rate and an offset that continues the time read so
 * far, and from then on TIME_REF_COUNT uses the same formula on the reading
 * vCPU's TSC, so an MSR value always lies between two page readings taken
 * around it. Elsewhere (an unstable host TSC, which KVM resets at each
 * vcpu_load, as a nested host has it) the page says sequence 0, "use the
 * MSR", and TIME_REF_COUNT follows the host's monotonic clock: KVM's own
 * Hyper-V makes the same choice. The choice is made when the guest enables
 * the page, and minivmm's TSC rate never changes afterwards.
 */
#include "hv/internal.h"

/* REFERENCE_TSC bits 11:1 are RsvdP: kept as written. */
#define HV_REF_TSC_GPA_MASK	(~HV_PAGE_OFFSET_MASK)
#define HV_NS_PER_REF_TICK	100u

/* 2^64 * 10^7 / tsc_hz: TSC ticks to 100 ns units in 0.64 fixed point. */
static uint64_t hv_ref_scale(uint64_t tsc_hz)
{
	if (tsc_hz <= HV_REF_TIME_HZ)
		return 0;	/* no rate, or one the 64-bit scale cannot hold */
	return (uint64_t)(((unsigned __int128)HV_REF_TIME_HZ << 64) / tsc_hz);
}

/* The page's formula without the offset: TSC ticks in 100 ns units. */
static uint64_t hv_ref_ticks(uint64_t tsc, uint64_t scale)
{
	return (uint64_t)(((unsigned __int128)tsc * scale) >> 64);
}

/* Under msr_lock: enabled, with a non-zero scale (sequence 0 leaves it 0). */
static bool hv_ref_page_valid(const struct hv *hv)
{
	return (hv->ref_tsc & HV_REFERENCE_TSC_ENABLE) && hv->ref_scale;
}

/* A new sequence for each valid page: never 0 (invalid) or all ones. */
static uint32_t hv_ref_next_seq(struct hv *hv)
{
	do
		hv->ref_seq++;
	while (hv->ref_seq == 0 || hv->ref_seq == UINT32_MAX);
	return hv->ref_seq;
}

/*
 * Under msr_lock. The whole page, as the overlay a Hyper-V guest expects.
 * tsc/ns: one read_clock sample of the enabling vCPU.
 */
static int hv_ref_page_install(struct hv *hv, uint64_t gpa, bool valid, uint64_t tsc,
			       uint64_t ns)
{
	uint8_t page[HV_PAGE_SIZE] = { 0 };
	struct hv_ref_tsc_page head = { 0 };
	uint64_t scale = valid ? hv_ref_scale(hv->cfg.tsc_hz) : 0;

	if (scale) {
		uint64_t now = ns / HV_NS_PER_REF_TICK;

		head.scale = scale;
		head.offset = (int64_t)(now - hv_ref_ticks(tsc, scale));
		head.sequence = hv_ref_next_seq(hv);
	}
	memcpy(page, &head, sizeof(head));
	if (hv->ops.write_gpa(hv->opaque, gpa, page, sizeof(page)))
		return -1;
	hv->ref_scale = head.scale;
	hv->ref_offset = head.offset;
	return 0;
}

static enum hv_msr_result hv_ref_count_read(struct hv *hv, unsigned int vcpu, uint64_t *val)
{
	uint64_t tsc, ns;

	if (hv->ops.read_clock(hv->opaque, vcpu, &tsc, &ns))
		return HV_MSR_GP;
	pthread_mutex_lock(&hv->msr_lock);
	*val = hv_ref_page_valid(hv) ? hv_ref_ticks(tsc, hv->ref_scale) + (uint64_t)hv->ref_offset :
				       ns / HV_NS_PER_REF_TICK;
	pthread_mutex_unlock(&hv->msr_lock);
	return HV_MSR_OK;
}

/*
 * A page outside RAM keeps the old state and raises #GP, like HYPERCALL.
 * Disabling leaves the page's bytes alone and sends TIME_REF_COUNT back to
 * the host clock, which the TSC formula followed.
 */
static enum hv_msr_result hv_ref_tsc_write(struct hv *hv, unsigned int vcpu, uint64_t val)
{
	enum hv_msr_result ret = HV_MSR_OK;
	bool enable = val & HV_REFERENCE_TSC_ENABLE, valid = false;
	uint64_t tsc = 0, ns = 0;

	if (enable) {
		if (hv->ops.read_clock(hv->opaque, vcpu, &tsc, &ns))
			return HV_MSR_GP;
		valid = hv->ops.tsc_stable(hv->opaque);
	}
	pthread_mutex_lock(&hv->msr_lock);
	if (enable && hv_ref_page_install(hv, val & HV_REF_TSC_GPA_MASK, valid, tsc, ns))
		ret = HV_MSR_GP;
	else
		hv->ref_tsc = val;
	pthread_mutex_unlock(&hv->msr_lock);
	return ret;
}

enum hv_msr_result hv_reftime_msr_read(struct hv *hv, unsigned int vcpu, uint32_t msr,
				       uint64_t *val)
{
	if (!hv->cfg.ref_time)
		return HV_MSR_GP;
	if (msr == HV_X64_MSR_TIME_REF_COUNT)
		return hv_ref_count_read(hv, vcpu, val);
	pthread_mutex_lock(&hv->msr_lock);
	*val = hv->ref_tsc;
	pthread_mutex_unlock(&hv->msr_lock);
	return HV_MSR_OK;
}

/* TIME_REF_COUNT is read-only. */
enum hv_msr_result hv_reftime_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr,
					uint64_t val)
{
	if (!hv->cfg.ref_time || msr != HV_X64_MSR_REFERENCE_TSC)
		return HV_MSR_GP;
	return hv_ref_tsc_write(hv, vcpu, val);
}
