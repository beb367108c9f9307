/* SPDX-License-Identifier: MIT */
/*
 * minivmm's Hyper-V enlightenment layer: the only header vmm/ includes from
 * hv/. The layer knows the TLFS and nothing of KVM; it reaches the VM only
 * through struct hv_host_ops, so it can be tested with a fake host.
 */
#ifndef HV_HV_H
#define HV_HV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "hv/tlfs.h"
#include "minivmm/abi.h"

/* A set of vCPUs by minivmm vCPU index (VP index - cfg.vp_base: hv/vpset.c). */
struct hv_vpmask {
	uint64_t bits[HV_MAX_VP_INDEX / 64];
};

static inline void hv_vpmask_set(struct hv_vpmask *m, unsigned int vp)
{
	m->bits[vp / 64] |= 1ull << (vp % 64);
}

static inline bool hv_vpmask_test(const struct hv_vpmask *m, unsigned int vp)
{
	return (m->bits[vp / 64] >> (vp % 64)) & 1;
}

/*
 * The first VP in m at or after `from` and below `limit` (at most
 * HV_MAX_VP_INDEX), or `limit` if there is none: a walk over the set bits
 * that skips empty words, so it costs the targets, not the VM's size.
 */
static inline unsigned int hv_vpmask_next(const struct hv_vpmask *m, unsigned int from,
					  unsigned int limit)
{
	while (from < limit) {
		uint64_t w = m->bits[from / 64] & (~0ull << (from % 64));

		if (w) {
			unsigned int vp = (from & ~63u) + (unsigned int)__builtin_ctzll(w);

			return vp < limit ? vp : limit;
		}
		from = (from & ~63u) + 64;
	}
	return limit;
}

/* Services the VMM provides. Every callback gets `opaque` back. */
struct hv_host_ops {
	/* Copy len bytes at gpa; -1 unless the whole range lies in RAM. */
	int (*read_gpa)(void *opaque, uint64_t gpa, void *dst, size_t len);
	/* Copy len bytes to gpa; -1 unless the whole range lies in RAM. */
	int (*write_gpa)(void *opaque, uint64_t gpa, const void *src, size_t len);
	/* XMM0..XMM5 of the calling vCPU, 16 bytes each; -1 on failure. */
	int (*read_xmm)(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16]);
	/*
	 * Flush all guest TLB entries of every vCPU in `set` (the caller may be
	 * in it) and return only when none can use a stale translation.
	 */
	int (*flush_vcpus)(void *opaque, unsigned int caller, const struct hv_vpmask *set);
	/* Deliver a fixed interrupt `vector` to every vCPU in `set`. */
	int (*send_ipi)(void *opaque, const struct hv_vpmask *set, uint32_t vector);
	/*
	 * The guest wrote CRASH_CTL with CRASH_NOTIFY: P0..P4 as it left them.
	 * Called at most once per partition. Required only with crash_msrs.
	 */
	void (*guest_crash)(void *opaque, unsigned int vcpu, const uint64_t p[HV_CRASH_PARAMS]);
	/*
	 * Partition reference time's two sources, both required only with
	 * ref_time. read_clock: the TSC of `vcpu` (the caller) as its guest
	 * would read it now, and the host's monotonic nanoseconds since the
	 * partition began, taken together; -1 on failure. tsc_stable: whether
	 * the host keeps every vCPU's TSC in step with that clock (KVM:
	 * KVM_CLOCK_TSC_STABLE); only then may the guest read time from its
	 * TSC through the reference TSC page.
	 */
	int (*read_clock)(void *opaque, unsigned int vcpu, uint64_t *tsc, uint64_t *ns);
	bool (*tsc_stable)(void *opaque);
};

struct hv_config {
	unsigned int nr_vcpus;		/* vCPU i has VP index vp_base + i */
	/*
	 * The first VP index: a multiple of 64, 0 unless the user asks (64
	 * makes Linux take the Ex calls at any vCPU count: docs/hyperv.md).
	 */
	unsigned int vp_base;
	bool xmm_input;			/* advertise + accept XMM-fast input */
	bool xmm_spill;			/* hypercall page spills XMM0-5 below RSP */
	bool flush_hint;		/* advertise remote TLB flush */
	bool ipi_hint;			/* advertise cluster IPI */
	bool ex_hint;			/* advertise Ex processor masks */
	/*
	 * What a Linux guest needs to boot cleanly (docs/hyperv.md, "Linux
	 * guests"); all off for minivmm's own payload.
	 */
	bool endbr_page;		/* hypercall page starts with endbr64 (IBT) */
	bool vp_assist;			/* VP_ASSIST_PAGE: kept per vCPU, no effect */
	bool freq_msrs;			/* TSC_/APIC_FREQUENCY and their CPUID bits */
	uint64_t tsc_hz;		/* what TSC_FREQUENCY reads; non-zero with freq_msrs */
	uint64_t apic_hz;		/* what APIC_FREQUENCY reads: the LAPIC timer's clock */
	bool tsc_invariant;		/* AccessTscInvariantControls + TSC_INVARIANT_CONTROL */
	bool crash_msrs;		/* CRASH_P0..P4, CRASH_CTL; needs ops->guest_crash */
	bool ref_time;			/* TIME_REF_COUNT + REFERENCE_TSC; needs the clock ops */
};

/* One hypercall as decoded (also what tests and statistics look at). */
enum hv_encoding {
	HV_ENC_REGULAR = MVM_HV_ENC_REGULAR,	/* the numbers are the ABI's (minivmm/abi.h) */
	HV_ENC_FAST = MVM_HV_ENC_FAST,
	HV_ENC_XMM_FAST = MVM_HV_ENC_XMM_FAST,
	HV_ENC_COUNT
};

struct hv_hcall_in {
	uint64_t rcx, rdx, r8;		/* input value and the two register inputs */
};

struct hv_hcall_out {
	uint64_t rax;			/* the result value to hand back */
	bool inject_ud;			/* raise #UD instead of returning */
	enum hv_encoding enc;		/* for statistics */
	uint16_t code;
};

/* Result of an MSR access handed to hv_msr_read/hv_msr_write. */
enum hv_msr_result {
	HV_MSR_OK = 0,
	HV_MSR_GP = 1,			/* inject #GP */
};

struct hv_cpuid_leaf {
	uint32_t function;
	uint32_t eax, ebx, ecx, edx;
};

struct hv;

struct hv *hv_create(const struct hv_config *cfg, const struct hv_host_ops *ops, void *opaque);
void hv_destroy(struct hv *hv);

/*
 * Choose the hypercall page's form before the guest enables it (the VMM
 * calibrates first). Not for use once vCPUs run.
 */
void hv_set_xmm_spill(struct hv *hv, bool spill);
/*
 * The TSC rate TSC_FREQUENCY reads, once the VMM knows it (KVM tells it per
 * vCPU, after the CPUID leaves were needed). Not for use once vCPUs run.
 */
void hv_set_tsc_hz(struct hv *hv, uint64_t hz);

/*
 * The instructions the spill page runs for an XMM-fast call and the plain
 * page does not (lower RSP, store XMM0-5, raise RSP), as one straight-line
 * block, so the VMM can time exactly them. Returns the length copied, 0 if
 * `max` is too small.
 */
size_t hv_page_spill_insns(uint8_t *buf, size_t max);

/* Fill up to `max` leaves starting at 0x40000000; returns how many. */
size_t hv_cpuid_leaves(const struct hv *hv, struct hv_cpuid_leaf *out, size_t max);
/*
 * The same leaves for a configuration, without a layer behind them: what
 * the guest is shown when KVM's own Hyper-V serves it (--hv-impl kvm).
 */
size_t hv_config_cpuid_leaves(const struct hv_config *cfg, struct hv_cpuid_leaf *out,
			      size_t max);

/* The Hyper-V MSRs (HV_X64_MSR_CLAIM_FIRST..HV_X64_MSR_CLAIM_LAST). */
enum hv_msr_result hv_msr_read(struct hv *hv, unsigned int vcpu, uint32_t msr, uint64_t *val);
enum hv_msr_result hv_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr, uint64_t val);

/* Execute one hypercall from `vcpu` (the VMM has checked CPL 0 and long mode). */
void hv_hypercall(struct hv *hv, unsigned int vcpu, const struct hv_hcall_in *in,
		  struct hv_hcall_out *out);

/* Name of a call code for reports ("FlushVirtualAddressSpace"), or NULL. */
const char *hv_call_name(uint16_t code);
/*
 * The calls hv/calls.c implements, indexed in its table's order (the VMM's
 * per-call statistics have one slot each, derived from here, never copied).
 */
#define HV_NR_CALLS	6
/* The index of `code`, or HV_NR_CALLS for a code minivmm does not implement. */
unsigned int hv_call_index(uint16_t code);
/* The code at index i, 0 for i >= HV_NR_CALLS. */
uint16_t hv_call_code(unsigned int i);
const char *hv_encoding_name(enum hv_encoding enc);

#endif /* HV_HV_H */
