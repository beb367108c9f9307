// SPDX-License-Identifier: MIT
/*
 * HvCallSendSyntheticClusterIpi{,Ex}: a fixed interrupt to a set of VPs.
 * Both inputs start with the same qword, in memory and in RDX alike:
 * bits 31:0 vector, 39:32 HV_INPUT_VTL, 63:40 must be zero.
 */
#include "hv/internal.h"

#define HV_IPI_HEAD_OFF		0u	/* vector, HV_INPUT_VTL, padding */
#define HV_IPI_TARGETS_OFF	8u	/* processor mask or HV_VP_SET */

/*
 * The ReservedZ bits of HV_INPUT_VTL, and bytes 5..7. The TLFS page of
 * both calls names those bytes "Padding", which it says elsewhere is
 * ignored; KVM rejects them in the fast form, and no guest we know sets
 * them, so minivmm rejects them in every form (docs/hyperv.md).
 */
static uint16_t hv_ipi_check_reserved(uint64_t head)
{
	if (head & HV_IPI_HEAD_RSVD_MASK)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	return HV_STATUS_SUCCESS;
}

/*
 * minivmm partitions have VTL 0 only (no VSM is advertised), so a target
 * VTL other than 0 names something that does not exist. Without
 * UseTargetVtl the TLFS says the field is not honoured, so it is ignored.
 */
static uint16_t hv_ipi_check_vtl(uint8_t vtl)
{
	if ((vtl & HV_VTL_USE_TARGET) && (vtl & HV_VTL_TARGET_MASK))
		return HV_STATUS_INVALID_PARAMETER;
	return HV_STATUS_SUCCESS;
}

static uint16_t hv_ipi_check_vector(uint32_t vector)
{
	if (vector < HV_IPI_VECTOR_MIN || vector > HV_IPI_VECTOR_MAX)
		return HV_STATUS_INVALID_PARAMETER;
	return HV_STATUS_SUCCESS;
}

static uint16_t hv_ipi_targets(const struct hv *hv, const struct hv_call *call,
			       struct hv_vpmask *set)
{
	uint64_t mask;

	if (call->code == HVCALL_SEND_IPI_EX)
		return hv_vpset_parse(hv, call, HV_IPI_TARGETS_OFF, set);
	if (hv_in_u64(call, HV_IPI_TARGETS_OFF, &mask))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	return hv_vpmask_from_u64(hv, mask, set);
}

uint16_t hv_call_send_ipi(struct hv *hv, unsigned int vcpu, const struct hv_call *call)
{
	struct hv_vpmask set;
	uint32_t vector;
	uint64_t head;
	uint16_t status;

	(void)vcpu;
	if (call->code == HVCALL_SEND_IPI_EX) {
		status = hv_vpset_check_banks(call, HV_IPI_TARGETS_OFF);
		if (status != HV_STATUS_SUCCESS)
			return status;
	}
	if (hv_in_u64(call, HV_IPI_HEAD_OFF, &head))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	status = hv_ipi_check_reserved(head);
	if (status != HV_STATUS_SUCCESS)
		return status;
	status = hv_ipi_check_vtl((uint8_t)(head >> 32));	/* byte 4 */
	if (status != HV_STATUS_SUCCESS)
		return status;
	vector = (uint32_t)head;
	status = hv_ipi_check_vector(vector);
	if (status != HV_STATUS_SUCCESS)
		return status;
	status = hv_ipi_targets(hv, call, &set);
	if (status != HV_STATUS_SUCCESS)
		return status;
	if (hv_vpmask_empty(&set))
		return HV_STATUS_SUCCESS;
	if (hv->ops.send_ipi(hv->opaque, &set, vector))
		return HV_STATUS_NO_RESOURCES;
	return HV_STATUS_SUCCESS;
}
