/* SPDX-License-Identifier: MIT */
/*
 * Private to hv/: the partition state behind struct hv, the call table and
 * the decoded form of one hypercall that decode hands to the call handlers.
 * vmm/ must include hv/hv.h only.
 */
#ifndef HV_INTERNAL_H
#define HV_INTERNAL_H

#include <string.h>

#include "hv/hv.h"

#define HV_PAGE_SIZE		4096u
#define HV_PAGE_OFFSET_MASK	((uint64_t)HV_PAGE_SIZE - 1)

/*
 * Not in tlfs.h: the TLFS code for "not enough resources to complete the
 * operation", which minivmm returns when a host callback fails.
 */
#define HV_STATUS_NO_RESOURCES	0x1d

/* HV_INPUT_VTL (byte 4 of both IPI inputs) */
#define HV_VTL_TARGET_MASK	0x0fu
#define HV_VTL_USE_TARGET	0x10u
#define HV_VTL_RSVD_MASK	0xe0u

/*
 * Must-be-zero bits of the first IPI qword (RDX in the fast forms): the
 * ReservedZ bits of HV_INPUT_VTL and the three bytes after it.
 */
#define HV_IPI_HEAD_RSVD_MASK	(((uint64_t)HV_VTL_RSVD_MASK << 32) | (0xffffffull << 40))

/* Flush flags bits 63:4: the TLFS defines none of them, all must be zero. */
#define HV_FLUSH_FLAGS_RSVD	(~(HV_FLUSH_ALL_PROCESSORS | \
				   HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES | \
				   HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY | \
				   HV_FLUSH_USE_EXTENDED_RANGE_FORMAT))

struct hv {
	struct hv_config cfg;
	struct hv_host_ops ops;
	void *opaque;
	/*
	 * Serialises writers of the partition-wide MSRs. hv_hypercall reads
	 * `hypercall` with an atomic load instead so that vCPUs issuing
	 * hypercalls never contend on this lock.
	 */
	pthread_mutex_t msr_lock;
	uint64_t guest_os_id;
	uint64_t hypercall;
	/* Also under msr_lock (crash.c, clock.c, reftime.c). */
	uint64_t crash_p[HV_CRASH_PARAMS];
	bool crash_reported;
	uint64_t tsc_invariant_ctl;
	/*
	 * reftime.c: REFERENCE_TSC as written, and the page as last installed
	 * (scale 0: sequence 0). Enabled with a scale: TIME_REF_COUNT reads the TSC.
	 */
	uint64_t ref_tsc;
	uint32_t ref_seq;
	uint64_t ref_scale;
	int64_t ref_offset;
	/*
	 * VP_ASSIST_PAGE as each vCPU wrote it (nr_vcpus entries, NULL unless
	 * cfg.vp_assist); a vCPU reaches only its own entry.
	 */
	uint64_t *vp_assist;
};

/* One hypercall after decode; lives on the calling vCPU thread's stack. */
struct hv_call {
	uint16_t code;
	unsigned int var_qwords;	/* variable header size, 8-byte units */
	unsigned int rep_count;
	unsigned int rep_start;
	enum hv_encoding enc;
	const uint8_t *in;		/* input block: same layout in every encoding */
	size_t in_len;
};

typedef uint16_t (*hv_call_fn)(struct hv *hv, unsigned int vcpu, const struct hv_call *call);

/* What cfg must advertise before a call is allowed (else ACCESS_DENIED). */
#define HV_NEEDS_FLUSH		(1u << 0)
#define HV_NEEDS_IPI		(1u << 1)
#define HV_NEEDS_EX		(1u << 2)

struct hv_call_desc {
	uint16_t code;
	const char *name;
	bool rep;			/* rep call: rep count > 0, 8-byte elements */
	bool ex;			/* variable header = the VP set's sparse banks */
	bool reg_fast;			/* fast = RDX/R8 only; otherwise fast = XMM-fast */
	uint16_t fixed_size;		/* fixed header bytes */
	unsigned int needs;		/* HV_NEEDS_* */
	hv_call_fn fn;
};

#define HV_REP_ELEM_SIZE	8u	/* a GVA range, the only rep element here */

const struct hv_call_desc *hv_call_lookup(uint16_t code);

/* The call handlers: validate the decoded block, act, return a status. */
uint16_t hv_call_flush(struct hv *hv, unsigned int vcpu, const struct hv_call *call);
uint16_t hv_call_send_ipi(struct hv *hv, unsigned int vcpu, const struct hv_call *call);

/*
 * Little-endian fields of the input block. A field that does not lie wholly
 * inside the block is the guest's malformed input, not a minivmm abort:
 * the reader stores 0 and returns HV_STATUS_INVALID_HYPERCALL_INPUT, which
 * the handler returns as its status. Decode sizes the block from the call's
 * headers, so only a handler bug reaches that path.
 */
static inline bool hv_in_fits(const struct hv_call *call, size_t off, size_t len)
{
	return off <= call->in_len && call->in_len - off >= len;
}

/* [off, off + len) of the input block, or NULL if it does not lie wholly inside it. */
static inline const uint8_t *hv_in_span(const struct hv_call *call, size_t off, size_t len)
{
	return hv_in_fits(call, off, len) ? call->in + off : NULL;
}

static inline uint16_t hv_in_bytes(const struct hv_call *call, size_t off, void *v, size_t len)
{
	if (!hv_in_fits(call, off, len)) {
		memset(v, 0, len);
		return HV_STATUS_INVALID_HYPERCALL_INPUT;
	}
	memcpy(v, call->in + off, len);
	return HV_STATUS_SUCCESS;
}

static inline uint16_t hv_in_u64(const struct hv_call *call, size_t off, uint64_t *v)
{
	return hv_in_bytes(call, off, v, sizeof(*v));
}

static inline uint16_t hv_in_u32(const struct hv_call *call, size_t off, uint32_t *v)
{
	return hv_in_bytes(call, off, v, sizeof(*v));
}

static inline uint16_t hv_in_u8(const struct hv_call *call, size_t off, uint8_t *v)
{
	return hv_in_bytes(call, off, v, sizeof(*v));
}

/* HV_VP_SET and VP masks (vpset.c). */
#define HV_VP_SET_HEADER_SIZE	16u	/* format + valid bank mask */

uint16_t hv_vpset_check_banks(const struct hv_call *call, size_t off);
uint16_t hv_vpset_parse(const struct hv *hv, const struct hv_call *call, size_t off,
			struct hv_vpmask *set);
uint16_t hv_vpmask_from_u64(const struct hv *hv, uint64_t mask, struct hv_vpmask *set);
void hv_vpmask_fill(const struct hv *hv, struct hv_vpmask *set);
bool hv_vpmask_empty(const struct hv_vpmask *set);

/* Whether the guest has established the hypercall interface (msr.c). */
bool hv_hypercall_enabled(struct hv *hv);

/* The frequency MSRs and TSC_INVARIANT_CONTROL (clock.c). */
enum hv_msr_result hv_clock_msr_read(struct hv *hv, uint32_t msr, uint64_t *val);
enum hv_msr_result hv_clock_msr_write(struct hv *hv, uint32_t msr, uint64_t val);
/* TIME_REF_COUNT and REFERENCE_TSC (reftime.c). */
enum hv_msr_result hv_reftime_msr_read(struct hv *hv, unsigned int vcpu, uint32_t msr,
				       uint64_t *val);
enum hv_msr_result hv_reftime_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr,
					uint64_t val);

/* CRASH_P0..P4 and CRASH_CTL (crash.c). */
enum hv_msr_result hv_crash_msr_read(struct hv *hv, uint32_t msr, uint64_t *val);
enum hv_msr_result hv_crash_msr_write(struct hv *hv, unsigned int vcpu, uint32_t msr,
				      uint64_t val);

/* The hypercall page (page.c). */
size_t hv_page_fill(const struct hv_config *cfg, uint8_t page[HV_PAGE_SIZE]);

#endif /* HV_INTERNAL_H */
