/* SPDX-License-Identifier: MIT */
/*
 * Names and numbers from the Hyper-V Top Level Functional Specification
 * that minivmm implements. Shared by hv/ (host) and guest/ (payload).
 */
#ifndef HV_TLFS_H
#define HV_TLFS_H

#include <stdint.h>

/* CPUID leaves */
#define HV_CPUID_VENDOR_AND_MAX		0x40000000u
#define HV_CPUID_INTERFACE		0x40000001u
#define HV_CPUID_VERSION		0x40000002u
#define HV_CPUID_FEATURES		0x40000003u
#define HV_CPUID_ENLIGHTENMENT_INFO	0x40000004u
#define HV_CPUID_IMPLEMENT_LIMITS	0x40000005u
#define HV_CPUID_MAX_LEAF		HV_CPUID_IMPLEMENT_LIMITS
#define HV_CPUID_SIGNATURE_EAX		0x31237648u	/* "Hv#1" */

/* 0x40000003.EAX: partition privileges (low half) */
#define HV_MSR_TIME_REF_COUNT_AVAILABLE	(1u << 1)	/* AccessPartitionReferenceCounter */
#define HV_MSR_SYNIC_AVAILABLE		(1u << 2)	/* AccessSynicRegs (KVM's, --hv-synic) */
#define HV_MSR_SYNTIMER_AVAILABLE	(1u << 3)	/* AccessSyntheticTimerRegs (likewise) */
#define HV_MSR_HYPERCALL_AVAILABLE	(1u << 5)
#define HV_MSR_VP_INDEX_AVAILABLE	(1u << 6)
#define HV_MSR_REFERENCE_TSC_AVAILABLE	(1u << 9)	/* AccessPartitionReferenceTsc */
#define HV_ACCESS_FREQUENCY_MSRS	(1u << 11)	/* AccessFrequencyRegs */
#define HV_ACCESS_TSC_INVARIANT		(1u << 15)	/* AccessTscInvariantControls */
/* 0x40000003.EDX */
#define HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE	(1u << 4)
#define HV_FEATURE_FREQUENCY_MSRS_AVAILABLE	(1u << 8)
#define HV_FEATURE_GUEST_CRASH_MSR_AVAILABLE	(1u << 10)
#define HV_STIMER_DIRECT_MODE_AVAILABLE		(1u << 19)	/* KVM's, --hv-synic */
/* 0x40000004.EAX: recommendations */
#define HV_X64_REMOTE_TLB_FLUSH_RECOMMENDED	(1u << 2)
#define HV_X64_CLUSTER_IPI_RECOMMENDED		(1u << 10)
#define HV_X64_EX_PROCESSOR_MASKS_RECOMMENDED	(1u << 11)

/* MSRs */
#define HV_X64_MSR_GUEST_OS_ID		0x40000000u
#define HV_X64_MSR_HYPERCALL		0x40000001u
#define HV_X64_MSR_VP_INDEX		0x40000002u
#define HV_X64_MSR_TIME_REF_COUNT	0x40000020u	/* 100 ns units, read-only */
#define HV_X64_MSR_REFERENCE_TSC	0x40000021u	/* GPA of the reference TSC page | enable */
#define HV_X64_MSR_TSC_FREQUENCY	0x40000022u	/* Hz, read-only */
#define HV_X64_MSR_APIC_FREQUENCY	0x40000023u	/* Hz, read-only */
#define HV_X64_MSR_VP_ASSIST_PAGE	0x40000073u
#define HV_X64_MSR_CRASH_P0		0x40000100u
#define HV_X64_MSR_CRASH_P4		0x40000104u
#define HV_X64_MSR_CRASH_CTL		0x40000105u
#define HV_X64_MSR_TSC_INVARIANT_CONTROL 0x40000118u
/* The TLFS's first block of synthetic MSRs (guest.elf sweeps it). */
#define HV_X64_MSR_FIRST		0x40000000u
#define HV_X64_MSR_LAST			0x400000ffu
/* The range minivmm takes from KVM: that block and the crash/TSC MSRs above it. */
#define HV_X64_MSR_CLAIM_FIRST		HV_X64_MSR_FIRST
#define HV_X64_MSR_CLAIM_LAST		0x400001ffu

#define HV_CRASH_PARAMS			5	/* P0..P4 */
#define HV_CRASH_CTL_CRASH_NOTIFY_MSG	(1ull << 62)	/* P3/P4 = message GPA/size */
#define HV_CRASH_CTL_CRASH_NOTIFY	(1ull << 63)
#define HV_EXPOSE_INVARIANT_TSC		(1ull << 0)	/* TSC_INVARIANT_CONTROL bit 0 */

/*
 * The reference TSC page: partition reference time, in 100 ns units, is
 * ((TSC * scale) >> 64) + offset while `sequence` is neither 0 (use
 * TIME_REF_COUNT instead) nor changes across the read.
 */
#define HV_REFERENCE_TSC_ENABLE		(1ull << 0)
#define HV_REF_TIME_HZ			10000000ull
struct hv_ref_tsc_page {
	uint32_t sequence;
	uint32_t reserved;
	uint64_t scale;
	int64_t offset;
};

#define HV_HYPERCALL_ENABLE		(1ull << 0)
#define HV_HYPERCALL_LOCKED		(1ull << 1)
#define HV_HYPERCALL_PFN_SHIFT		12

/* Hypercall input value (RCX) */
#define HV_HCALL_CODE_MASK		0xffffull
#define HV_HCALL_FAST_BIT		(1ull << 16)
#define HV_HCALL_VARHEAD_SHIFT		17
#define HV_HCALL_VARHEAD_MASK		(0x3ffull << HV_HCALL_VARHEAD_SHIFT)
#define HV_HCALL_NESTED_BIT		(1ull << 31)
#define HV_HCALL_REP_COUNT_SHIFT	32
#define HV_HCALL_REP_COUNT_MASK		(0xfffull << HV_HCALL_REP_COUNT_SHIFT)
#define HV_HCALL_REP_START_SHIFT	48
#define HV_HCALL_REP_START_MASK		(0xfffull << HV_HCALL_REP_START_SHIFT)
/* bits 30:27, 31 (nested: not supported), 47:44, 63:60 */
#define HV_HCALL_RSVD_MASK		((0xfull << 27) | HV_HCALL_NESTED_BIT | \
					 (0xfull << 44) | (0xfull << 60))

/* Hypercall result value (RAX) */
#define HV_HCALL_RESULT_REPS_SHIFT	32

/* Call codes */
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE	0x0002
/* Not offered by minivmm (0x40000004.EBX says never); KVM knows it. */
#define HVCALL_NOTIFY_LONG_SPIN_WAIT		0x0008
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST	0x0003
#define HVCALL_SEND_IPI				0x000b
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX	0x0013
#define HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX	0x0014
#define HVCALL_SEND_IPI_EX			0x0015
#define HVCALL_POST_MESSAGE			0x005c	/* SynIC: KVM hands these to user space */
#define HVCALL_SIGNAL_EVENT			0x005d

/* Status codes */
#define HV_STATUS_SUCCESS			0x0
#define HV_STATUS_INVALID_HYPERCALL_CODE	0x2
#define HV_STATUS_INVALID_HYPERCALL_INPUT	0x3
#define HV_STATUS_INVALID_ALIGNMENT		0x4
#define HV_STATUS_INVALID_PARAMETER		0x5
#define HV_STATUS_ACCESS_DENIED			0x6
#define HV_STATUS_INVALID_VP_INDEX		0xe
#define HV_STATUS_INVALID_CONNECTION_ID		0x12

/* Flush flags */
#define HV_FLUSH_ALL_PROCESSORS			(1ull << 0)
#define HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES	(1ull << 1)
#define HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY	(1ull << 2)
#define HV_FLUSH_USE_EXTENDED_RANGE_FORMAT	(1ull << 3)

/* A GVA list entry: bits 63:12 page number, 11:0 additional pages. */
#define HV_GVA_PAGE_MASK		(~0xfffull)
#define HV_GVA_COUNT_MASK		0xfffull

/* HV_VP_SET */
#define HV_GENERIC_SET_SPARSE_4K	0
#define HV_GENERIC_SET_ALL		1
#define HV_VP_SET_BANK_COUNT_MAX	64
#define HV_MAX_VP_INDEX			(HV_VP_SET_BANK_COUNT_MAX * 64)

/* The XMM-fast input area: RDX, R8, then XMM0..XMM5. */
#define HV_HCALL_XMM_COUNT		6
#define HV_HCALL_FAST_INPUT_MAX		(16 + HV_HCALL_XMM_COUNT * 16)

/* Fixed input headers, little-endian, 8-byte aligned in memory. */
struct hv_flush_va {			/* Space and List */
	uint64_t address_space;
	uint64_t flags;
	uint64_t processor_mask;
};

struct hv_flush_va_ex {			/* SpaceEx and ListEx, then VP set banks */
	uint64_t address_space;
	uint64_t flags;
	uint64_t vp_set_format;
	uint64_t vp_set_valid_banks;
};

struct hv_send_ipi {
	uint32_t vector;
	uint8_t target_vtl;
	uint8_t pad[3];
	uint64_t cpu_mask;
};

struct hv_send_ipi_ex {			/* then VP set banks */
	uint32_t vector;
	uint8_t target_vtl;
	uint8_t pad[3];
	uint64_t vp_set_format;
	uint64_t vp_set_valid_banks;
};

#define HV_IPI_VECTOR_MIN	0x10
#define HV_IPI_VECTOR_MAX	0xff

#endif /* HV_TLFS_H */
