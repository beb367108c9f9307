// SPDX-License-Identifier: MIT
/*
 * Processor sets: the 64-bit masks of the non-Ex calls and HV_VP_SET of
 * the Ex calls, turned into a struct hv_vpmask of existing VPs. The
 * guest names VPs by VP index, vp_base + vCPU index; vp_base is a
 * multiple of 64, so VP bank b is vCPU bank b - vp_base / 64.
 */
#include "hv/internal.h"

#define HV_BANK_BITS	64u

/* The bits of vCPU bank `bank` that name vCPUs below nr_vcpus. */
static uint64_t hv_bank_valid_bits(const struct hv *hv, unsigned int bank)
{
	unsigned int first = bank * HV_BANK_BITS;
	unsigned int nr = hv->cfg.nr_vcpus;

	if (first >= nr)
		return 0;
	if (nr - first >= HV_BANK_BITS)
		return ~0ull;
	return (1ull << (nr - first)) - 1;
}

/*
 * VP bank `vp_bank` of the guest's set. A VP index below vp_base or at or
 * above CPUID 0x40000005.EAX is not a VP of this partition: the whole
 * call fails, nothing is delivered.
 */
static uint16_t hv_vpmask_set_bank(const struct hv *hv, struct hv_vpmask *set,
				   unsigned int vp_bank, uint64_t bits)
{
	unsigned int base_bank = hv->cfg.vp_base / HV_BANK_BITS;

	if (!bits)
		return HV_STATUS_SUCCESS;
	if (vp_bank < base_bank || bits & ~hv_bank_valid_bits(hv, vp_bank - base_bank))
		return HV_STATUS_INVALID_VP_INDEX;
	set->bits[vp_bank - base_bank] = bits;
	return HV_STATUS_SUCCESS;
}

uint16_t hv_vpmask_from_u64(const struct hv *hv, uint64_t mask, struct hv_vpmask *set)
{
	memset(set, 0, sizeof(*set));
	return hv_vpmask_set_bank(hv, set, 0, mask);
}

void hv_vpmask_fill(const struct hv *hv, struct hv_vpmask *set)
{
	unsigned int bank;

	memset(set, 0, sizeof(*set));
	for (bank = 0; bank * HV_BANK_BITS < hv->cfg.nr_vcpus; bank++)
		set->bits[bank] = hv_bank_valid_bits(hv, bank);
}

bool hv_vpmask_empty(const struct hv_vpmask *set)
{
	size_t i;

	for (i = 0; i < sizeof(set->bits) / sizeof(set->bits[0]); i++) {
		if (set->bits[i])
			return false;
	}
	return true;
}

/*
 * The variable header of an Ex call is exactly the sparse banks, so its
 * size must match the valid-bank mask. This holds for both formats: it is
 * what locates anything that follows the set (the GVA list).
 */
uint16_t hv_vpset_check_banks(const struct hv_call *call, size_t off)
{
	size_t banks_len = (size_t)call->var_qwords * 8;
	uint64_t valid;

	if (off > call->in_len || call->in_len - off < HV_VP_SET_HEADER_SIZE + banks_len)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	if (hv_in_u64(call, off + 8, &valid))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	if ((unsigned int)__builtin_popcountll(valid) != call->var_qwords)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	return HV_STATUS_SUCCESS;
}

static uint16_t hv_vpset_sparse(const struct hv *hv, const struct hv_call *call, size_t off,
				struct hv_vpmask *set)
{
	const uint8_t *banks;
	uint64_t valid, bits;
	uint16_t status;

	memset(set, 0, sizeof(*set));
	if (hv_in_u64(call, off + 8, &valid))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	/* One bound for the whole list: a qword per valid bank. */
	banks = hv_in_span(call, off + HV_VP_SET_HEADER_SIZE,
			   (size_t)__builtin_popcountll(valid) * 8);
	if (!banks)
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	/* Banks are listed in ascending order of their bit in the mask. */
	while (valid) {
		unsigned int bank = (unsigned int)__builtin_ctzll(valid);

		memcpy(&bits, banks, 8);
		status = hv_vpmask_set_bank(hv, set, bank, bits);
		if (status != HV_STATUS_SUCCESS)
			return status;
		banks += 8;
		valid &= valid - 1;
	}
	return HV_STATUS_SUCCESS;
}

/* Parse the HV_VP_SET at `off` of the input block. */
uint16_t hv_vpset_parse(const struct hv *hv, const struct hv_call *call, size_t off,
			struct hv_vpmask *set)
{
	uint16_t status = hv_vpset_check_banks(call, off);
	uint64_t format;

	if (status != HV_STATUS_SUCCESS)
		return status;
	if (hv_in_u64(call, off, &format))
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	switch (format) {
	case HV_GENERIC_SET_SPARSE_4K:
		return hv_vpset_sparse(hv, call, off, set);
	case HV_GENERIC_SET_ALL:
		/* Any banks given with "all" are consumed and ignored. */
		hv_vpmask_fill(hv, set);
		return HV_STATUS_SUCCESS;
	default:
		return HV_STATUS_INVALID_PARAMETER;
	}
}
