// SPDX-License-Identifier: MIT
/*
 * HvCallFlushVirtualAddress{Space,List}{,Ex}. minivmm flushes every TLB
 * entry of each target VP whatever the address space, flags and GVA list
 * say: a full flush is a correct superset of any of these flushes, and the
 * host (KVM) offers nothing finer to user space anyway.
 */
#include "hv/internal.h"

#define HV_FLUSH_FLAGS_SPACE	(HV_FLUSH_ALL_PROCESSORS | \
				 HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES | \
				 HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY)
/* TLFS: NON_GLOBAL_MAPPINGS_ONLY makes no sense for a list flush. */
#define HV_FLUSH_FLAGS_LIST	(HV_FLUSH_ALL_PROCESSORS | \
				 HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES)

/* Offsets shared by both layouts (struct hv_flush_va{,_ex}). */
#define HV_FLUSH_FLAGS_OFF	8u
#define HV_FLUSH_TARGETS_OFF	16u	/* processor mask or HV_VP_SET */

static bool hv_flush_is_list(uint16_t code)
{
	return code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST ||
	       code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
}

static bool hv_flush_is_ex(uint16_t code)
{
	return code == HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX ||
	       code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
}

/*
 * A reserved flag is malformed input, like any other ReservedZ bit. A
 * defined flag this call cannot honour (USE_EXTENDED_RANGE_FORMAT, which
 * minivmm neither implements nor advertises, or NON_GLOBAL_MAPPINGS_ONLY
 * on a List call) is a valid encoding with an invalid value.
 */
static uint16_t hv_flush_check_flags(uint16_t code, uint64_t flags)
{
	uint64_t allowed = hv_flush_is_list(code) ? HV_FLUSH_FLAGS_LIST : HV_FLUSH_FLAGS_SPACE;

	if (flags & HV_FLUSH_FLAGS_RSVD)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	if (flags & ~allowed)
		return HV_STATUS_INVALID_PARAMETER;
	return HV_STATUS_SUCCESS;
}

/* ALL_PROCESSORS overrides the mask or set; an empty one flushes nothing. */
static uint16_t hv_flush_targets(const struct hv *hv, const struct hv_call *call,
				 uint64_t flags, struct hv_vpmask *set)
{
	uint64_t mask;

	if (flags & HV_FLUSH_ALL_PROCESSORS) {
		hv_vpmask_fill(hv, set);
		return HV_STATUS_SUCCESS;
	}
	if (hv_flush_is_ex(call->code))
		return hv_vpset_parse(hv, call, HV_FLUSH_TARGETS_OFF, set);
	if (hv_in_u64(call, HV_FLUSH_TARGETS_OFF, &mask))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	return hv_vpmask_from_u64(hv, mask, set);
}

uint16_t hv_call_flush(struct hv *hv, unsigned int vcpu, const struct hv_call *call)
{
	struct hv_vpmask set;
	uint64_t flags;
	uint16_t status;

	/* Even an ignored set must be well formed: the GVA list follows it. */
	if (hv_flush_is_ex(call->code)) {
		status = hv_vpset_check_banks(call, HV_FLUSH_TARGETS_OFF);
		if (status != HV_STATUS_SUCCESS)
			return status;
	}
	if (hv_in_u64(call, HV_FLUSH_FLAGS_OFF, &flags))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	status = hv_flush_check_flags(call->code, flags);
	if (status != HV_STATUS_SUCCESS)
		return status;
	status = hv_flush_targets(hv, call, flags, &set);
	if (status != HV_STATUS_SUCCESS)
		return status;
	/*
	 * The GVA entries were read with the input block; invalid GVAs are
	 * ignored per TLFS and the full flush covers every valid one.
	 */
	if (hv_vpmask_empty(&set))
		return HV_STATUS_SUCCESS;
	if (hv->ops.flush_vcpus(hv->opaque, vcpu, &set))
		return HV_STATUS_NO_RESOURCES;
	return HV_STATUS_SUCCESS;
}
