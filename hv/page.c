// SPDX-License-Identifier: MIT
/*
 * The hypercall page. KVM on our hosts has no Hyper-V support and keeps
 * VMCALL/VMMCALL to itself, so the page traps to user space with a port
 * write on MVM_PORT_HCALL instead. `out %al, imm8` reads only AL, which
 * sits in RAX, the result register, so no hypercall input is disturbed.
 */
#include "hv/internal.h"
#include "minivmm/abi.h"

#define X86_INT3	0xcc

_Static_assert(MVM_PORT_HCALL <= 0xff, "out imm8 reaches only ports 0..0xff");

/* Plain page: the VMM reads XMM0-5 itself when it needs them. */
static const uint8_t hv_page_plain[] = {
	0xe6, MVM_PORT_HCALL,			/* out    %al,$MVM_PORT_HCALL */
	0xc3,					/* ret */
};

/*
 * Spill page: for XMM-fast calls, store XMM0-5 at the trapping RSP so the
 * VMM reads them from guest memory instead of fetching the FPU state. RSP
 * is lowered first so that an interrupt arriving between the stores and
 * the trap pushes its frame below the spill, not over it. Only movdqu:
 * other SSE store forms fail instruction emulation on one of our hosts.
 * The 16-byte fast SendSyntheticClusterIpi (the one fast call hv/ never
 * reads XMM for) skips the spill: where CPL0 is emulated, every
 * instruction saved counts. `test`/`cmp` clobber flags, which a hypercall
 * may do.
 */
static const uint8_t hv_page_spill[] = {
	0xf7, 0xc1, 0x00, 0x00, 0x01, 0x00,	/* 00: test   $0x10000,%ecx */
	0x74, 0x06,				/* 06: je     0e (not fast) */
	0x66, 0x83, 0xf9, HVCALL_SEND_IPI,	/* 08: cmp    $0xb,%cx */
	0x75, 0x03,				/* 0c: jne    11 (spill) */
	0xe6, MVM_PORT_HCALL,			/* 0e: out    %al,$MVM_PORT_HCALL */
	0xc3,					/* 10: ret */
	0x48, 0x8d, 0x64, 0x24, 0x80,		/* 11: lea    -0x80(%rsp),%rsp */
	0xf3, 0x0f, 0x7f, 0x04, 0x24,		/* 16: movdqu %xmm0,(%rsp) */
	0xf3, 0x0f, 0x7f, 0x4c, 0x24, 0x10,	/* 1b: movdqu %xmm1,0x10(%rsp) */
	0xf3, 0x0f, 0x7f, 0x54, 0x24, 0x20,	/* 21: movdqu %xmm2,0x20(%rsp) */
	0xf3, 0x0f, 0x7f, 0x5c, 0x24, 0x30,	/* 27: movdqu %xmm3,0x30(%rsp) */
	0xf3, 0x0f, 0x7f, 0x64, 0x24, 0x40,	/* 2d: movdqu %xmm4,0x40(%rsp) */
	0xf3, 0x0f, 0x7f, 0x6c, 0x24, 0x50,	/* 33: movdqu %xmm5,0x50(%rsp) */
	0xe6, MVM_PORT_HCALL,			/* 39: out    %al,$MVM_PORT_HCALL */
	0x48, 0x8d, 0xa4, 0x24,			/* 3b: lea    0x80(%rsp),%rsp */
	0x80, 0x00, 0x00, 0x00,
	0xc3,					/* 43: ret */
};

/* Offsets in hv_page_spill of the spill-only instructions (see the listing). */
#define SPILL_STORES_START	0x11
#define SPILL_STORES_END	0x39
#define SPILL_RESTORE_START	0x3b
#define SPILL_RESTORE_END	0x43

size_t hv_page_spill_insns(uint8_t *buf, size_t max)
{
	size_t a = SPILL_STORES_END - SPILL_STORES_START;
	size_t b = SPILL_RESTORE_END - SPILL_RESTORE_START;

	_Static_assert(SPILL_RESTORE_END + 1 == sizeof(hv_page_spill), "listing offsets moved");
	if (max < a + b)
		return 0;
	memcpy(buf, hv_page_spill + SPILL_STORES_START, a);
	memcpy(buf + a, hv_page_spill + SPILL_RESTORE_START, b);
	return a + b;
}

/*
 * With cfg->endbr_page both forms start with ENDBR64: the guest reaches the
 * page by an indirect call, which a kernel with IBT on (Linux 6.12) faults
 * on unless the target is an ENDBR; Linux checks the first four bytes and
 * turns IBT off when they are anything else. On a CPU without CET it is a
 * NOP. Both forms only jump relative to themselves, so they run unchanged
 * four bytes further on, and hv_page_spill_insns() (which the ENDBR is not
 * part of: both forms run it) is the same either way.
 */
static const uint8_t hv_page_endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

/*
 * Fill a whole page: the code at offset 0, then INT3 so that a stray jump
 * into the rest of the page traps instead of running old RAM contents.
 */
size_t hv_page_fill(const struct hv_config *cfg, uint8_t page[HV_PAGE_SIZE])
{
	const uint8_t *code = cfg->xmm_spill ? hv_page_spill : hv_page_plain;
	size_t len = cfg->xmm_spill ? sizeof(hv_page_spill) : sizeof(hv_page_plain);
	size_t at = cfg->endbr_page ? sizeof(hv_page_endbr64) : 0;

	memset(page, X86_INT3, HV_PAGE_SIZE);
	memcpy(page, hv_page_endbr64, at);
	memcpy(page + at, code, len);
	return at + len;
}
