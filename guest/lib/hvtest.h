/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the hv suites (guest/tests/hv*.c): one entry point for the
 * three encodings, input-block builders, the raw trap for calls that must
 * fault, and a per-vCPU interrupt counter for IPI checks. Hypercalls are
 * made by vCPU 0 at CPL0 only (the memory input page is shared).
 */
#ifndef GUEST_LIB_HVTEST_H
#define GUEST_LIB_HVTEST_H

#include <hv/tlfs.h>
#include <minivmm/abi.h>

#include "lib/layout.h"
#include "lib/types.h"

#define HVT_STATUS(rax)		((u16)((rax) & 0xffff))
#define HVT_REPS(rax)		((u32)(((rax) >> HV_HCALL_RESULT_REPS_SHIFT) & 0xfff))

/* Input qwords the XMM-fast area holds: RDX, R8, XMM0..XMM5. */
#define HVT_XMM_QWORDS		(HV_HCALL_FAST_INPUT_MAX / 8)
#define HVT_IN_MAX		72	/* qwords of an input block we build: 64 banks fit */
#define HVT_BANKS		(GUEST_MAX_VCPUS / 64)	/* banks a guest.elf VP can be in */

/* The vector every hv IPI check uses; hvt_ipi_arm() counts it per vCPU. */
#define HVT_IPI_VECTOR		0x50

enum hvt_enc {
	HVT_MEM = MVM_HV_ENC_REGULAR,	/* regular: RDX = GPA of the block */
	HVT_FAST = MVM_HV_ENC_FAST,	/* RDX, R8 */
	HVT_XMM = MVM_HV_ENC_XMM_FAST,	/* RDX, R8, XMM0..5 */
};

/* An input block under construction: the same layout in every encoding. */
struct hvt_in {
	u64 q[HVT_IN_MAX];
	u32 n;
};

/* A set of VPs (bank b, bit i = VP 64 * b + i), for targets beyond 64. */
struct hvt_vps {
	u64 bank[HVT_BANKS];
};

static inline void hvt_vps_add(struct hvt_vps *s, u32 vp)
{
	if (vp < GUEST_MAX_VCPUS)
		s->bank[vp / 64] |= 1ull << (vp % 64);
}

static inline bool hvt_vps_has(const struct hvt_vps *s, u32 vp)
{
	return vp < GUEST_MAX_VCPUS && (s->bank[vp / 64] >> (vp % 64) & 1);
}

/* Bank 0 only: a non-Ex call's 64-bit mask. */
void hvt_vps_from_mask(struct hvt_vps *s, u64 mask);
/* VPs first..last (inclusive), clipped to the vCPUs that exist. */
void hvt_vps_range(struct hvt_vps *s, u32 first, u32 last);
/* The valid-bank mask of the set: a bit for every non-empty bank. */
u64 hvt_vps_valid_banks(const struct hvt_vps *s);
u32 hvt_vps_count(const struct hvt_vps *s);
/* Non-empty banks of `s`; banks the VM's vCPUs span (bank b = VPs 64b..64b+63). */
u32 hvt_vps_nr_banks(const struct hvt_vps *s);
u32 hvt_vm_banks(void);
/* Keep the first max-1 non-empty banks and the last one: what an XMM block holds. */
void hvt_vps_fit_banks(struct hvt_vps *s, u32 max);

/* "VPs 1, 64, 1023" (the first few, then "... (N VPs)"), for case names. */
void hvt_vps_describe(const struct hvt_vps *s, char *buf, size_t len);

const char *hvt_enc_name(enum hvt_enc enc);

/* RCX for `code`: variable header qwords, rep count and rep start. */
static inline u64 hvt_control(u16 code, u32 var_qwords, u32 rep_count, u32 rep_start)
{
	return code | ((u64)var_qwords << HV_HCALL_VARHEAD_SHIFT) |
	       ((u64)rep_count << HV_HCALL_REP_COUNT_SHIFT) |
	       ((u64)rep_start << HV_HCALL_REP_START_SHIFT);
}

static inline void hvt_put(struct hvt_in *in, u64 v)
{
	if (in->n < HVT_IN_MAX)
		in->q[in->n++] = v;
}

/*
 * Append an HV_VP_SET: `format`, `valid_banks`, then one bank per set bit
 * of `valid_banks` taken in order from `banks`. Returns the bank count
 * (the variable header size of an Ex call).
 */
u32 hvt_put_vpset(struct hvt_in *in, u64 format, u64 valid_banks, const u64 *banks);
/* Append `s` as a sparse HV_VP_SET of its non-empty banks; returns the bank count. */
u32 hvt_put_vps(struct hvt_in *in, const struct hvt_vps *s);

/*
 * Make the call. HVT_MEM copies the block to a page-aligned buffer (the
 * address passed when `gpa` is 0, else `gpa` itself, for alignment tests);
 * HVT_FAST passes q[0], q[1]; HVT_XMM passes up to 14 qwords, zero-padded.
 * Returns RAX.
 */
u64 hvt_call(enum hvt_enc enc, u64 control, const struct hvt_in *in);
u64 hvt_call_at(u64 control, const struct hvt_in *in, u64 gpa);

/* The memory input page, for building GPAs at its edges. */
u64 hvt_in_page_gpa(void);

/*
 * Execute the trap instruction itself (not through the page) with RCX,
 * RDX, R8 and RAX = *rax: for calls that must raise #UD wherever the page
 * is. minivmm's trap is its OUT; KVM's (--hv-impl kvm) is VMCALL on VMX,
 * VMMCALL on SVM. Returns the vector caught or EX_NONE; *rax gets RAX
 * afterwards.
 */
int hvt_trap(u64 control, u64 rdx, u64 r8, u64 *rax);

/* Hyper-V detected and the hypercall page enabled (once); else report and false. */
bool hvt_ready(void);

/* CPUID `leaf` has `sig` in EBX:ECX:EDX. */
bool hvt_cpuid_signature(u32 leaf, const char sig[12]);

/* XMM-fast input offered: boot info and CPUID agree it is. */
bool hvt_xmm_offered(void);

/* report_why() with a formatted name. */
bool hvt_report(bool pass, const char *why, const char *name_fmt, ...) __printf(3, 4);

/* The counting handler for HVT_IPI_VECTOR. */
void hvt_ipi_arm(void);
void hvt_ipi_disarm(void);
void hvt_ipi_clear(void);
u32 hvt_ipi_count(u32 cpu);

/*
 * Wait (bounded) until every vCPU in `targets` has taken HVT_IPI_VECTOR,
 * let strays arrive, then compare every vCPU's count with exactly 1 for a
 * target and 0 otherwise. Interrupts are on at the caller meanwhile, so a
 * set that includes the caller is counted too. Returns false and writes
 * why on the first mismatch.
 */
bool hvt_ipi_check(u64 targets, char *why, size_t len);
/* The same for a set that may reach past VP 63. */
bool hvt_ipi_check_vps(const struct hvt_vps *targets, char *why, size_t len);

/* The parts of the hv suite; `hv` runs them all (guest/tests/hv*.c). */
void hv_features_part(void);
void hv_ipi_part(void);
void hv_flush_part(void);

#endif /* GUEST_LIB_HVTEST_H */
