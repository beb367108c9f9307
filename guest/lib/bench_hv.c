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
#include "lib/processor.h"

#define STATUS_MASK		0xffffull
/* Ex calls: one bank (bank 0); List calls: one GVA entry. */
#define ONE_BANK		(1ull << HV_HCALL_VARHEAD_SHIFT)
#define ONE_REP			(1ull << HV_HCALL_REP_COUNT_SHIFT)

/* One block, reused by every call: inside one page, 8-byte aligned (TLFS). */
static u64 input[HV_HCALL_FAST_INPUT_MAX / 8] __aligned(4096);

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

/* `words`: how many u64s of input[] the call reads (the XMM-fast form loads no more). */
static u16 call(u64 control, enum bench_hv_enc enc, u32 words)
{
	u64 rax;

	switch (enc) {
	case BENCH_HV_REGULAR:
		rax = hv_hcall(control, (uintptr_t)input, 0);
		break;
	case BENCH_HV_FAST:
		rax = hv_hcall_fast(control, input[0], input[1]);
		break;
	default:
		rax = xmm_call[xmm_regs_for(words)](control, input);
		break;
	}
	return (u16)(rax & STATUS_MASK);
}

u16 bench_hv_send_ipi(bool ex, enum bench_hv_enc enc, u8 vector, u64 mask)
{
	input[0] = vector;		/* target VTL 0, padding 0 */
	if (!ex) {
		input[1] = mask;
		return call(HVCALL_SEND_IPI, enc, 2);
	}
	input[1] = HV_GENERIC_SET_SPARSE_4K;
	input[2] = 1;			/* valid banks: bank 0 */
	input[3] = mask;
	return call(HVCALL_SEND_IPI_EX | ONE_BANK, enc, 4);
}

u16 bench_hv_flush(bool ex, bool list, enum bench_hv_enc enc, u64 mask, u64 gva)
{
	u64 control;
	u32 i = 0;

	input[i++] = 0;			/* address space: ignored with the flag below */
	input[i++] = HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	if (ex) {
		input[i++] = HV_GENERIC_SET_SPARSE_4K;
		input[i++] = 1;
		control = list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX :
				 HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
		control |= ONE_BANK;
	} else {
		control = list ? HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST :
				 HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE;
	}
	input[i++] = mask;
	if (list) {
		input[i++] = gva & HV_GVA_PAGE_MASK;	/* no additional pages */
		control |= ONE_REP;
	}
	return call(control, enc, i);
}

u16 bench_hv_unknown_fast(void)
{
	input[0] = 0;
	input[1] = 0;
	return call(BENCH_HV_UNKNOWN_CODE, BENCH_HV_FAST, 2);
}
