// SPDX-License-Identifier: MIT
/*
 * The hypercalls minivmm implements: their kind, input shape, encodings,
 * what CPUID must advertise for them, and their handlers.
 */
#include "hv/internal.h"

static const struct hv_call_desc hv_calls[] = {
	{
		.code = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE,
		.name = "FlushVirtualAddressSpace",
		.fixed_size = sizeof(struct hv_flush_va),
		.needs = HV_NEEDS_FLUSH,
		.fn = hv_call_flush,
	}, {
		.code = HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST,
		.name = "FlushVirtualAddressList",
		.rep = true,
		.fixed_size = sizeof(struct hv_flush_va),
		.needs = HV_NEEDS_FLUSH,
		.fn = hv_call_flush,
	}, {
		/* 16 bytes of input: the only call whose fast form fits RDX:R8. */
		.code = HVCALL_SEND_IPI,
		.name = "SendSyntheticClusterIpi",
		.reg_fast = true,
		.fixed_size = sizeof(struct hv_send_ipi),
		.needs = HV_NEEDS_IPI,
		.fn = hv_call_send_ipi,
	}, {
		.code = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX,
		.name = "FlushVirtualAddressSpaceEx",
		.ex = true,
		.fixed_size = sizeof(struct hv_flush_va_ex),
		.needs = HV_NEEDS_FLUSH | HV_NEEDS_EX,
		.fn = hv_call_flush,
	}, {
		.code = HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX,
		.name = "FlushVirtualAddressListEx",
		.rep = true,
		.ex = true,
		.fixed_size = sizeof(struct hv_flush_va_ex),
		.needs = HV_NEEDS_FLUSH | HV_NEEDS_EX,
		.fn = hv_call_flush,
	}, {
		.code = HVCALL_SEND_IPI_EX,
		.name = "SendSyntheticClusterIpiEx",
		.ex = true,
		.fixed_size = sizeof(struct hv_send_ipi_ex),
		.needs = HV_NEEDS_IPI | HV_NEEDS_EX,
		.fn = hv_call_send_ipi,
	},
};

_Static_assert(sizeof(hv_calls) / sizeof(hv_calls[0]) == HV_NR_CALLS,
	       "HV_NR_CALLS (hv/hv.h) counts hv_calls[]");

unsigned int hv_call_index(uint16_t code)
{
	unsigned int i;

	for (i = 0; i < HV_NR_CALLS; i++) {
		if (hv_calls[i].code == code)
			return i;
	}
	return HV_NR_CALLS;
}

uint16_t hv_call_code(unsigned int i)
{
	return i < HV_NR_CALLS ? hv_calls[i].code : 0;
}

const struct hv_call_desc *hv_call_lookup(uint16_t code)
{
	unsigned int i = hv_call_index(code);

	return i < HV_NR_CALLS ? &hv_calls[i] : NULL;
}

const char *hv_call_name(uint16_t code)
{
	const struct hv_call_desc *desc = hv_call_lookup(code);

	return desc ? desc->name : NULL;
}
