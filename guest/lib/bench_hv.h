/* SPDX-License-Identifier: MIT */
/*
 * The Hyper-V calls the measurement suites make, built the way a guest
 * kernel builds them: SendSyntheticClusterIpi{,Ex} and
 * FlushVirtualAddress{Space,List}{,Ex} in each encoding the call allows.
 * The input is written into one page-aligned block per call, so regular
 * (memory) and XMM-fast calls differ only in how the block travels.
 * CPL0 only (hypercalls), vCPU 0 only (one shared input block).
 */
#ifndef GUEST_LIB_BENCH_HV_H
#define GUEST_LIB_BENCH_HV_H

#include "lib/layout.h"
#include "lib/types.h"

enum bench_hv_enc {
	BENCH_HV_REGULAR,	/* input block in memory, RDX = its GPA */
	BENCH_HV_FAST,		/* RDX:R8 (SendSyntheticClusterIpi only) */
	BENCH_HV_XMM_FAST,	/* RDX, R8, XMM0-5 */
};

/* "regular", "fast", "xmm-fast": the VMM's names for the encodings. */
const char *bench_hv_enc_name(enum bench_hv_enc enc);

/*
 * NULL when the call can be made here in this encoding, else why not:
 * no Hyper-V, hypercall page not enabled (done here, once), call not
 * recommended in CPUID 0x40000004, no XMM input, encoding not defined.
 * `code` is one of the six HVCALL_* codes.
 */
const char *bench_hv_unusable(u16 code, enum bench_hv_enc enc);

/*
 * A call made ready outside the timed window: its own input block and the
 * wrapper to use, so that issuing it runs only the wrapper and the page.
 * The block holds the largest input these calls build (a flush header, a
 * VP set with every bank guest.elf can use, one GVA) and is aligned to its
 * own size, so it never crosses a page (TLFS).
 */
#define BENCH_HV_IN_QWORDS	32
_Static_assert(2 + 2 + GUEST_MAX_VCPUS / 64 + 1 <= BENCH_HV_IN_QWORDS, "a full set fits");
struct bench_hv_call {
	u64 in[BENCH_HV_IN_QWORDS] __aligned(BENCH_HV_IN_QWORDS * 8);
	u64 control;
	enum bench_hv_enc enc;
	u64 (*gpr)(u64 control, u64 rdx, u64 r8);	/* regular and fast */
	u64 (*xmm)(u64 control, const u64 *in);		/* XMM-fast: loads what it needs */
};

void bench_hv_prepare_ipi(struct bench_hv_call *c, bool ex, enum bench_hv_enc enc, u8 vector,
			  u64 mask);
void bench_hv_prepare_flush(struct bench_hv_call *c, bool ex, bool list, enum bench_hv_enc enc,
			    u64 mask, u64 gva);
void bench_hv_prepare_unknown(struct bench_hv_call *c);

/* Make the call; returns the status. */
static inline u16 bench_hv_issue(const struct bench_hv_call *c)
{
	u64 rax;

	if (c->enc == BENCH_HV_XMM_FAST)
		rax = c->xmm(c->control, c->in);
	else if (c->enc == BENCH_HV_FAST)
		rax = c->gpr(c->control, c->in[0], c->in[1]);
	else
		rax = c->gpr(c->control, (uintptr_t)c->in, 0);
	return (u16)rax;
}

/*
 * The same two calls for targets past VP 63 (ipi and flush beyond 64
 * vCPUs): an Ex call with one bank per non-empty bank of `s`, in the
 * regular or XMM-fast encoding, prepared like the others (the set is
 * built here, outside the timed window; bench_hv_issue() makes the call).
 * bench_hv_vps_unfit() says, before preparing, why a set cannot go in an
 * encoding (NULL: it can).
 */
struct hvt_vps;
const char *bench_hv_vps_unfit(bool ipi, bool list, enum bench_hv_enc enc,
			       const struct hvt_vps *s);
void bench_hv_prepare_ipi_vps(struct bench_hv_call *c, enum bench_hv_enc enc, u8 vector,
			      const struct hvt_vps *s);
void bench_hv_prepare_flush_vps(struct bench_hv_call *c, bool list, enum bench_hv_enc enc,
				const struct hvt_vps *s, u64 gva);

/* A call code nobody implements (0x1), fast form: INVALID_HYPERCALL_CODE. */
#define BENCH_HV_UNKNOWN_CODE	0x0001

#endif /* GUEST_LIB_BENCH_HV_H */
