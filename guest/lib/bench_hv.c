// SPDX-License-Identifier: MIT
#include <hv/tlfs.h>
#include <minivmm/abi.h>

#include "lib/bench_hv.h"

/* ipi.c and flush.c put these values into MVM_VMM_HCALL_CODE(). */
_Static_assert((int)BENCH_HV_REGULAR == (int)MVM_HV_ENC_REGULAR &&
	       (int)BENCH_HV_FAST == (int)MVM_HV_ENC_FAST &&
	       (int)BENCH_HV_XMM_FAST == (int)MVM_HV_ENC_XMM_FAST, "one numbering of encodings");
#include "lib/boot.h"
#include "lib/hv.h"
#include "lib/hvtest.h"
#include "lib/processor.h"

/* Ex calls: one bank (bank 0); List calls: one GVA entry. */
#define ONE_BANK		(1ull << HV_HCALL_VARHEAD_SHIFT)
#define ONE_REP			(1ull << HV_HCALL_REP_COUNT_SHIFT)


const char *bench_hv_enc_name(enum bench_hv_enc enc)
{
	switch (enc) {
	case BENCH_HV_REGULAR:
		return "regular";
	case BENCH_HV_FAST:
		return "fast";
	default:
		return "xmm-fast";
	}
}

/* Enable the hypercall page once per boot; remember why it failed. */
static const char *hv_ready(void)
{
	static const char *why;
	static bool tried;

	if (!tried) {
		tried = true;
		if (!hv_detect())
			why = "no Hyper-V CPUID leaves (minivmm --no-hyperv?)";
		else if (!hv_enable_hypercalls(&why))
			why = NULL;
	}
	return why;
}

static u32 recommended_bit(u16 code)
{
	switch (code) {
	case HVCALL_SEND_IPI:
		return HV_X64_CLUSTER_IPI_RECOMMENDED;
	case HVCALL_SEND_IPI_EX:
		return HV_X64_CLUSTER_IPI_RECOMMENDED | HV_X64_EX_PROCESSOR_MASKS_RECOMMENDED;
	case HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX:
	case HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX:
		return HV_X64_REMOTE_TLB_FLUSH_RECOMMENDED | HV_X64_EX_PROCESSOR_MASKS_RECOMMENDED;
	default:
		return HV_X64_REMOTE_TLB_FLUSH_RECOMMENDED;
	}
}

const char *bench_hv_unusable(u16 code, enum bench_hv_enc enc)
{
	const char *why = hv_ready();
	u32 want = recommended_bit(code);

	if (why || code == BENCH_HV_UNKNOWN_CODE)
		return why;
	if ((cpuid(HV_CPUID_ENLIGHTENMENT_INFO).eax & want) != want)
		return "call not recommended in CPUID 0x40000004";
	if (enc == BENCH_HV_FAST && code != HVCALL_SEND_IPI)
		return "no fast form: the input does not fit RDX:R8";
	if (enc == BENCH_HV_XMM_FAST && code == HVCALL_SEND_IPI)
		return "fits RDX:R8, so the fast bit means plain fast";
	if (enc == BENCH_HV_XMM_FAST && (!hv_xmm_input_available() ||
					 !(boot_info->features & MVM_F_HV_XMM_INPUT)))
		return "XMM input not advertised (minivmm --no-hv-xmm?)";
	return NULL;
}

/* XMM-fast wrappers by how many XMM registers the input needs (hv.h). */
static u64 (*const xmm_call[])(u64 control, const u64 *in) = {
	NULL, hv_hcall_xmm1, hv_hcall_xmm2, hv_hcall_xmm3, hv_hcall_xmm4, hv_hcall_xmm5,
	hv_hcall_xmm,
};

/* RDX and R8 carry the first 16 bytes; each XMM register 16 more. */
static u32 xmm_regs_for(u32 words)
{
	return words <= 2 ? 1 : (words - 2 + 1) / 2;
}

/* `words`: how many u64s of c->in the call reads (the XMM-fast form loads no more). */
static void ready(struct bench_hv_call *c, u64 control, enum bench_hv_enc enc, u32 words)
{
	c->control = control;
	c->enc = enc;
	c->gpr = enc == BENCH_HV_FAST ? hv_hcall_fast : hv_hcall;
	/* Only an input that fits RDX, R8 and XMM0-5 has a wrapper (bench_hv_vps_unfit). */
	c->xmm = words <= HVT_XMM_QWORDS ? xmm_call[xmm_regs_for(words)] : NULL;
}

void bench_hv_prepare_ipi(struct bench_hv_call *c, bool ex, enum bench_hv_enc enc, u8 vector,
			  u64 mask)
{
	c->in[0] = vector;		/* target VTL 0, padding 0 */
	if (!ex) {
		c->in[1] = mask;
		ready(c, HVCALL_SEND_IPI, enc, 2);
		return;
	}
	c->in[1] = HV_GENERIC_SET_SPARSE_4K;
	c->in[2] = 1;			/* valid banks: bank 0 */
	c->in[3] = mask;
	ready(c, HVCALL_SEND_IPI_EX | ONE_BANK, enc, 4);
}

void bench_hv_prepare_flush(struct bench_hv_call *c, bool ex, bool list, enum bench_hv_enc enc,
			    u64 mask, u64 gva)
{
	u64 control;
	u32 i = 0;

	c->in[i++] = 0;			/* address space: ignored with the flag below */
	c->in[i++] = HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	if (ex) {
		c->in[i++] = HV_GENERIC_SET_SPARSE_4K;
		c->in[i++] = 1;
		control = list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX :
				 HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
		control |= ONE_BANK;
	} else {
		control = list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST :
				 HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE;
	}
	c->in[i++] = mask;
	if (list) {
		c->in[i++] = gva & HV_GVA_PAGE_MASK;	/* no additional pages */
		control |= ONE_REP;
	}
	ready(c, control, enc, i);
}

void bench_hv_prepare_unknown(struct bench_hv_call *c)
{
	c->in[0] = 0;
	c->in[1] = 0;
	ready(c, BENCH_HV_UNKNOWN_CODE, BENCH_HV_FAST, 2);
}

/* Qwords an Ex call with `s` reads: the fixed header, the set, a GVA for List. */
static u32 wide_words(bool ipi, bool list, const struct hvt_vps *s)
{
	return (ipi ? 1 : 2) + 2 + hvt_vps_nr_banks(s) + (list ? 1 : 0);
}

const char *bench_hv_vps_unfit(bool ipi, bool list, enum bench_hv_enc enc,
			       const struct hvt_vps *s)
{
	if (enc == BENCH_HV_FAST)
		return "a VP set past bank 0 does not fit RDX:R8";
	if (enc == BENCH_HV_XMM_FAST && wide_words(ipi, list, s) > HVT_XMM_QWORDS)
		return "the VP set's banks do not fit RDX, R8 and XMM0-5";
	return NULL;
}

/*
 * The sparse set of `s` from c->in[at], scanning only the banks this VM
 * has; returns the qword after it and the bank count.
 */
static u32 put_set(struct bench_hv_call *c, u32 at, const struct hvt_vps *s, u32 *banks)
{
	u32 vm_banks = MIN(hvt_vm_banks(), (u32)HVT_BANKS), n = 0;
	u32 valid_at = at + 1;

	c->in[at++] = HV_GENERIC_SET_SPARSE_4K;
	c->in[valid_at] = 0;
	at++;
	for (u32 b = 0; b < vm_banks; b++)
		if (s->bank[b]) {
			c->in[valid_at] |= 1ull << b;
			c->in[at++] = s->bank[b];
			n++;
		}
	*banks = n;
	return at;
}

void bench_hv_prepare_ipi_vps(struct bench_hv_call *c, enum bench_hv_enc enc, u8 vector,
			      const struct hvt_vps *s)
{
	u32 banks, words;

	c->in[0] = vector;
	words = put_set(c, 1, s, &banks);
	ready(c, HVCALL_SEND_IPI_EX | (u64)banks << HV_HCALL_VARHEAD_SHIFT, enc, words);
}

void bench_hv_prepare_flush_vps(struct bench_hv_call *c, bool list, enum bench_hv_enc enc,
				const struct hvt_vps *s, u64 gva)
{
	u64 control = list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX :
			     HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
	u32 banks, words;

	c->in[0] = 0;
	c->in[1] = HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	words = put_set(c, 2, s, &banks);
	control |= (u64)banks << HV_HCALL_VARHEAD_SHIFT;
	if (list) {
		c->in[words++] = gva & HV_GVA_PAGE_MASK;
		control |= ONE_REP;
	}
	ready(c, control, enc, words);
}
