/* SPDX-License-Identifier: MIT */
/*
 * The contract between minivmm (host) and its payload (guest.elf).
 * Compiled by both sides: no host or libc headers beyond <stdint.h>.
 * Documented in docs/abi.md. Bump MVM_ABI_VERSION on any change.
 */
#ifndef MINIVMM_ABI_H
#define MINIVMM_ABI_H

#include <stdint.h>

#define MVM_ABI_VERSION		6
#define MVM_BOOTINFO_MAGIC	0x4f4f42564d4d494dULL	/* "MIMMVBOO" */

/*
 * Guest-physical layout. RAM starts at GPA 0. The first MiB belongs to the
 * VMM (boot info, boot GDT, page tables); PT_LOAD segments must lie at or
 * above MVM_LOAD_MIN and inside RAM. RAM must end at or below MVM_RAM_MAX,
 * where the MMIO window starts.
 */
#define MVM_PAGE_SIZE		0x1000ULL
#define MVM_BOOTINFO_GPA	0x1000ULL
#define MVM_GDT_GPA		0x2000ULL
#define MVM_PML4_GPA		0x3000ULL	/* then PDPT, PT0, 4 PDs */
#define MVM_RESERVED_END	0x100000ULL
#define MVM_LOAD_MIN		MVM_RESERVED_END
#define MVM_RAM_MIN		(4ULL << 20)
#define MVM_RAM_MAX		0xc0000000ULL
#define MVM_IDMAP_END		(4ULL << 30)	/* identity map covers 0..4 GiB */

/* Boot GDT selectors (the payload may load its own GDT). */
#define MVM_BOOT_CS		0x08
#define MVM_BOOT_DS		0x10

/*
 * Ports. All are 8/32-bit `out`s; the VMM ignores `in`s on write-only
 * ports (reads return all ones like any unclaimed port would).
 */
#define MVM_PORT_COM1		0x3f8	/* 16550 THR; LSR at +5 says "empty" */
#define MVM_PORT_RESULTS	0xf0	/* outl: GPA (< 4 GiB) of a struct mvm_result (0xf0-0xf3) */
#define MVM_PORT_EXIT		0xf4	/* outl: exit status; minivmm exits with it (0xf4-0xf7) */
#define MVM_PORT_NULL		0xf8	/* in/out: user-space no-op, for exit costs */
#define MVM_PORT_HCALL		0xf9	/* hypercall trap used by the hypercall page */
#define MVM_PORT_NULL_BARE	0xef	/* in/out: re-entered at once, nothing done (reads junk) */
#define MVM_PORT_CTRL		0xfc	/* outl: GPA of a struct mvm_ctrl request (0xfc-0xff) */

/* MMIO: an address no device backs but the VMM answers (reads 0). */
#define MVM_MMIO_NULL		0xc0000000ULL

/* Which KVM implementation serves /dev/kvm on the host. */
enum mvm_backend {
	MVM_BACKEND_UNKNOWN = 0,
	MVM_BACKEND_VMX = 1,
	MVM_BACKEND_SVM = 2,
	MVM_BACKEND_PVM = 3,	/* kvm_pvm: CPL0 emulated, CPL3 native */
};

/* bootinfo.features */
#define MVM_F_HYPERV		(1ULL << 0)	/* Hyper-V layer on (CPUID 0x40000000) */
#define MVM_F_HV_XMM_INPUT	(1ULL << 1)	/* XMM-fast hypercall input advertised */
#define MVM_F_HV_XMM_SPILL	(1ULL << 2)	/* hypercall page spills XMM0-5 */
#define MVM_F_PVTIME		(1ULL << 3)	/* KVM PV leaves + steal time offered */
#define MVM_F_OVERCOMMIT	(1ULL << 4)	/* more vCPUs than host CPUs */
#define MVM_F_HV_KVM		(1ULL << 5)	/* KVM's in-kernel Hyper-V serves (--hv-impl kvm) */

#define MVM_CMDLINE_MAX		1024

struct mvm_bootinfo {
	uint64_t magic;
	uint32_t abi_version;
	uint32_t size;			/* sizeof(struct mvm_bootinfo) */
	uint32_t nr_vcpus;
	uint32_t backend;		/* enum mvm_backend */
	uint64_t ram_size;		/* bytes, RAM is [0, ram_size) */
	uint64_t tsc_khz;		/* from KVM_GET_TSC_KHZ */
	uint64_t features;		/* MVM_F_* */
	uint64_t free_gpa;		/* first page-aligned GPA above the image */
	uint32_t host_cpus;		/* online host CPUs when the VM started */
	uint32_t iters;			/* --iters, 0 = suite default */
	uint32_t cmdline_len;		/* bytes in cmdline, without the NUL */
	uint32_t reserved;
	char cmdline[MVM_CMDLINE_MAX];	/* payload args, space-separated, NUL-terminated */
};

/*
 * A measurement record. The guest fills one and `outl`s its GPA to
 * MVM_PORT_RESULTS; the VMM copies it at once, so the buffer may be reused,
 * and writes the record's `id` back before the `outl` returns: the VMM alone
 * numbers records (accepted ones 1, 2, ...; 0 = rejected), and `baseline_id`
 * names one of those numbers, so a rejected record cannot shift the others.
 * Times are TSC cycles per iteration of the timed loop, the loop's own cost
 * included (`overhead` says what that is). Ratios are fixed point, in
 * 1/MVM_RATIO_ONE, measured by the guest: the VMM only prints them.
 */
#define MVM_RESULT_NAME_MAX	48
#define MVM_RESULT_ROUNDS_MAX	32		/* per-round values a record carries */
#define MVM_RATIO_ONE		10000u
#define MVM_RATIO_INF		UINT32_MAX	/* baseline not above the loop in that block */

enum mvm_result_unit {
	MVM_UNIT_CYCLES = 0,		/* per iteration, TSC cycles */
	MVM_UNIT_PER_SEC = 1,		/* a rate: "min" etc. hold events/s */
};

/* mvm_result.flags */
#define MVM_RESULT_BODY		(1u << 0)	/* `body` is above the loop's noise */
#define MVM_RESULT_IN_NOISE	(1u << 1)	/* measured, but not above the loop's noise */
#define MVM_RESULT_RATIO	(1u << 2)	/* ratio, ratio_lo, ratio_hi are valid */
#define MVM_RESULT_FLAGS	(MVM_RESULT_BODY | MVM_RESULT_IN_NOISE | MVM_RESULT_RATIO)

struct mvm_result {
	uint32_t abi_version;
	uint32_t size;			/* sizeof(struct mvm_result) */
	char suite[16];
	char name[MVM_RESULT_NAME_MAX];	/* the case, e.g. "cpuid" */
	char variant[24];		/* encoding / send path, e.g. "xmm-fast" */
	/* Version 6: the targets' state while timed, e.g. "halted"; "" where none. */
	char state[16];
	uint32_t cpl;			/* CPL the timed loop ran at */
	uint32_t nr_vcpus;
	uint32_t targets;		/* target vCPUs, where it applies */
	uint32_t unit;			/* enum mvm_result_unit */
	uint32_t vmm_kind;		/* enum mvm_vmm_kind: VMM-side split, 0 = none */
	uint32_t vmm_code;		/* MVM_VMM_HCALL: MVM_VMM_HCALL_CODE(code, enc) */
	uint64_t iters;
	uint64_t min, median, p90, p99, max, mean;	/* loop included */
	uint64_t overhead;		/* the empty loop's median, same CPL, same rounds */
	uint64_t baseline_id;		/* nonzero: the `id` of the earlier row this is compared to */
	uint64_t body;			/* MVM_RESULT_BODY: median over rounds of row - loop */
	uint32_t flags;			/* MVM_RESULT_* */
	uint32_t rounds;		/* interleaved block rounds the ratios come from */
	uint32_t ratio;			/* vs baseline: median over rounds, 1/MVM_RATIO_ONE */
	uint32_t ratio_lo, ratio_hi;	/* its interquartile range over rounds */
	uint32_t id;			/* version 5: the VMM writes it; the guest submits 0 */
	/* Version 4: per round k < rounds, the block medians the body and ratio come from. */
	uint64_t round_median[MVM_RESULT_ROUNDS_MAX];	/* the row's; 0 from `rounds` on */
	uint64_t round_loop[MVM_RESULT_ROUNDS_MAX];	/* the empty loop's; 0 from `rounds` on */
};

/* Which VMM-side statistic a guest record maps to, for the split report. */
enum mvm_vmm_kind {
	MVM_VMM_NONE = 0,
	MVM_VMM_PIO_NULL = 1,
	MVM_VMM_MMIO_NULL = 2,
	MVM_VMM_MSR_USER = 3,
	MVM_VMM_HCALL = 4,
};

/*
 * Hypercall encodings: the one definition (hv/hv.h's enum hv_encoding and
 * the guest's enum hvt_enc take their values from it), with the names that
 * --json, --stats and the guest's rows spell them by.
 */
enum mvm_hv_enc {
	MVM_HV_ENC_REGULAR = 0,
	MVM_HV_ENC_FAST = 1,
	MVM_HV_ENC_XMM_FAST = 2,
};
#define MVM_HV_ENC_NAME_REGULAR		"regular"
#define MVM_HV_ENC_NAME_FAST		"fast"
#define MVM_HV_ENC_NAME_XMM_FAST	"xmm-fast"

/* vmm_code of an MVM_VMM_HCALL record: call code in bits 15:0, encoding in 17:16. */
#define MVM_VMM_HCALL_CODE(code, enc)	((uint32_t)(code) | ((uint32_t)(enc) << 16))

/*
 * Control requests (MVM_PORT_CTRL): things only the VMM can do, used by the
 * steal-time and flush experiments. The VMM writes `status` back.
 */
enum mvm_ctrl_op {
	/*
	 * Hold vCPU arg0 out of guest mode for arg1 microseconds (1..10^7),
	 * with KVM_VCPU_PREEMPTED published in its steal-time record if it has
	 * one. Returns once the hold has begun. Not on the calling vCPU.
	 */
	MVM_CTRL_PAUSE_VCPU = 1,
};

#define MVM_CTRL_EINVAL		(-22)	/* unknown op or argument out of range */

struct mvm_ctrl {
	uint32_t op;
	int32_t status;			/* 0 ok, or a negative MVM_CTRL_E* */
	uint64_t arg0, arg1;
};

#endif /* MINIVMM_ABI_H */
