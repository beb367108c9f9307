// SPDX-License-Identifier: MIT
/*
 * One hypercall from the trap on MVM_PORT_HCALL: decode the input value,
 * gather the input block from memory or registers, run the call, and build
 * the result value. Runs concurrently on every vCPU thread, so all of it
 * works on the caller's stack; only the callbacks reach shared state.
 */
#include "hv/internal.h"

/* Everything the TLFS allows at most: a block may not cross a page. */
#define HV_INPUT_MAX		HV_PAGE_SIZE
#define HV_REG_FAST_SIZE	16u	/* RDX, R8 */
#define HV_GPA_ALIGN		8u

static enum hv_encoding hv_pick_encoding(const struct hv_call_desc *desc, uint64_t rcx)
{
	if (!(rcx & HV_HCALL_FAST_BIT))
		return HV_ENC_REGULAR;
	if (!desc || desc->reg_fast)
		return HV_ENC_FAST;
	return HV_ENC_XMM_FAST;
}

static bool hv_call_advertised(const struct hv_config *cfg, unsigned int needs)
{
	if ((needs & HV_NEEDS_FLUSH) && !cfg->flush_hint)
		return false;
	if ((needs & HV_NEEDS_IPI) && !cfg->ipi_hint)
		return false;
	if ((needs & HV_NEEDS_EX) && !cfg->ex_hint)
		return false;
	return true;
}

/* Rep count and start, and the variable header, against the call's kind. */
static uint16_t hv_check_shape(const struct hv_call_desc *desc, const struct hv_call *call)
{
	if (desc->rep) {
		if (call->rep_count == 0 || call->rep_start >= call->rep_count)
			return HV_STATUS_INVALID_HYPERCALL_INPUT;
	} else if (call->rep_count || call->rep_start) {
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	}
	/* A 64-bit valid-bank mask can describe at most 64 banks. */
	if (desc->ex ? call->var_qwords > HV_VP_SET_BANK_COUNT_MAX : call->var_qwords)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	return HV_STATUS_SUCCESS;
}

/*
 * Decode the input value. Order: unknown code, then calls not advertised
 * (ACCESS_DENIED outranks the rest, as the TLFS asks), then reserved bits,
 * then XMM input the guest was not offered (#UD), then rep/header shape.
 */
static uint16_t hv_decode_input(const struct hv *hv, const struct hv_call_desc *desc,
				uint64_t rcx, struct hv_call *call, bool *inject_ud)
{
	if (!desc)
		return HV_STATUS_INVALID_HYPERCALL_CODE;
	if (!hv_call_advertised(&hv->cfg, desc->needs))
		return HV_STATUS_ACCESS_DENIED;
	if (rcx & HV_HCALL_RSVD_MASK)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;

	call->code = desc->code;
	call->enc = hv_pick_encoding(desc, rcx);
	call->var_qwords = (rcx & HV_HCALL_VARHEAD_MASK) >> HV_HCALL_VARHEAD_SHIFT;
	call->rep_count = (rcx & HV_HCALL_REP_COUNT_MASK) >> HV_HCALL_REP_COUNT_SHIFT;
	call->rep_start = (rcx & HV_HCALL_REP_START_MASK) >> HV_HCALL_REP_START_SHIFT;

	if (call->enc == HV_ENC_XMM_FAST && !hv->cfg.xmm_input) {
		*inject_ud = true;
		return HV_STATUS_SUCCESS;
	}
	return hv_check_shape(desc, call);
}

/* Fixed header, variable header and the whole rep list, as one block. */
static size_t hv_input_size(const struct hv_call_desc *desc, const struct hv_call *call)
{
	size_t size = desc->fixed_size + (size_t)call->var_qwords * 8;

	if (desc->rep)
		size += (size_t)call->rep_count * HV_REP_ELEM_SIZE;
	return size;
}

/*
 * TLFS: the GPA must be 8-byte aligned, the block must not cross a page,
 * and a GPA outside the partition's memory is INVALID_ALIGNMENT as well.
 */
static uint16_t hv_load_memory(struct hv *hv, uint64_t gpa, uint8_t *buf, size_t size)
{
	if (gpa % HV_GPA_ALIGN)
		return HV_STATUS_INVALID_ALIGNMENT;
	if ((gpa & HV_PAGE_OFFSET_MASK) + size > HV_PAGE_SIZE)
		return HV_STATUS_INVALID_ALIGNMENT;
	if (hv->ops.read_gpa(hv->opaque, gpa, buf, size))
		return HV_STATUS_INVALID_ALIGNMENT;
	return HV_STATUS_SUCCESS;
}

/* RDX, R8, then XMM0..XMM5 with the low qword of each first. */
static uint16_t hv_load_registers(struct hv *hv, unsigned int vcpu, const struct hv_hcall_in *in,
				  enum hv_encoding enc, uint8_t *buf, size_t size)
{
	size_t area = enc == HV_ENC_XMM_FAST ? HV_HCALL_FAST_INPUT_MAX : HV_REG_FAST_SIZE;
	uint8_t xmm[HV_HCALL_XMM_COUNT][16];

	if (size > area)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	memcpy(buf, &in->rdx, 8);
	memcpy(buf + 8, &in->r8, 8);
	if (size <= HV_REG_FAST_SIZE)
		return HV_STATUS_SUCCESS;
	if (hv->ops.read_xmm(hv->opaque, vcpu, xmm))
		return HV_STATUS_NO_RESOURCES;
	memcpy(buf + HV_REG_FAST_SIZE, xmm, sizeof(xmm));
	return HV_STATUS_SUCCESS;
}

static uint16_t hv_load_input(struct hv *hv, unsigned int vcpu, const struct hv_call_desc *desc,
			      const struct hv_hcall_in *in, struct hv_call *call, uint8_t *buf)
{
	size_t size = hv_input_size(desc, call);
	uint16_t status;

	if (call->enc == HV_ENC_REGULAR)
		status = hv_load_memory(hv, in->rdx, buf, size);
	else
		status = hv_load_registers(hv, vcpu, in, call->enc, buf, size);
	call->in = buf;
	call->in_len = size;
	return status;
}

/* Reps completed are absolute and, on success, all of them. */
static uint64_t hv_result(const struct hv_call_desc *desc, const struct hv_call *call,
			  uint16_t status)
{
	uint64_t rax = status;

	if (status == HV_STATUS_SUCCESS && desc->rep)
		rax |= (uint64_t)call->rep_count << HV_HCALL_RESULT_REPS_SHIFT;
	return rax;
}

void hv_hypercall(struct hv *hv, unsigned int vcpu, const struct hv_hcall_in *in,
		  struct hv_hcall_out *out)
{
	uint8_t buf[HV_INPUT_MAX] __attribute__((aligned(8)));
	const struct hv_call_desc *desc;
	struct hv_call call = { 0 };
	uint16_t status;

	desc = hv_call_lookup(in->rcx & HV_HCALL_CODE_MASK);
	*out = (struct hv_hcall_out){
		.code = in->rcx & HV_HCALL_CODE_MASK,
		.enc = hv_pick_encoding(desc, in->rcx),
	};
	/* No hypercall interface until the guest has enabled the page. */
	if (!hv_hypercall_enabled(hv)) {
		out->inject_ud = true;
		return;
	}
	status = hv_decode_input(hv, desc, in->rcx, &call, &out->inject_ud);
	if (out->inject_ud)
		return;
	if (status == HV_STATUS_SUCCESS)
		status = hv_load_input(hv, vcpu, desc, in, &call, buf);
	if (status == HV_STATUS_SUCCESS)
		status = desc->fn(hv, vcpu, &call);
	out->rax = desc ? hv_result(desc, &call, status) : status;
}
