/* SPDX-License-Identifier: MIT */
/*
 * VMM-side statistics: exit counts per reason and the time minivmm spends
 * on each kind of user-space exit (KVM_RUN return to re-entry), kept per
 * vCPU without locks and summed at the end.
 */
#ifndef VMM_STATS_H
#define VMM_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "hv/hv.h"

#define STATS_EXIT_REASONS	64
#define LAT_BUCKETS		592	/* log-linear, 16 per power of two, to 2^40 */

/*
 * A latency distribution in host TSC cycles. The totals come after the
 * buckets, so a vCPU's last, most used histogram (kicks) has its totals
 * next to the counters that follow it (struct vcpu_stats).
 */
struct lat_hist {
	uint32_t bucket[LAT_BUCKETS];
	uint64_t count, min, max, sum;
};

enum stats_kind {
	STATS_PIO_NULL = 0,	/* MVM_PORT_NULL: dispatch and nothing else */
	STATS_PIO_OTHER,
	STATS_MMIO_NULL,
	STATS_MMIO_OTHER,
	STATS_MSR,
	STATS_HCALL,		/* all hypercalls, whatever the code */
	STATS_INTR,		/* KVM_RUN interrupted by a kick */
	STATS_KINDS
};

/* Each call of hv/calls.c gets a slot, in its order; every other code shares the last. */
#define STATS_HCALL_SLOTS	(HV_NR_CALLS + 1)

/* Hypercall results by HV status code: codes 0..14 each, 15 and above in the last. */
#define STATS_HCALL_STATUS_BUCKETS	16

struct hcall_stats {
	struct lat_hist lat;
	uint64_t status[STATS_HCALL_STATUS_BUCKETS];
	uint64_t ud;		/* #UD injected */
};

static inline unsigned int stats_hcall_status_bucket(uint16_t status)
{
	return status < STATS_HCALL_STATUS_BUCKETS - 1 ? status : STATS_HCALL_STATUS_BUCKETS - 1;
}

static inline unsigned int stats_hcall_slot(uint16_t code)
{
	return hv_call_index(code);
}

/* The call code of a slot; 0 for the shared "other" slot. */
static inline uint16_t stats_hcall_slot_code(unsigned int slot)
{
	return hv_call_code(slot);
}

/*
 * The histograms a vCPU uses most (hypercalls, kicks: the last kinds) end
 * right before the counters, which struct vcpu's own fields follow: pages
 * a vCPU never touches cost no memory, so the touched parts sit together
 * (docs/results/scale.md).
 */
struct vcpu_stats {
	struct hcall_stats hcall[STATS_HCALL_SLOTS][HV_ENC_COUNT];
	struct lat_hist kind[STATS_KINDS];
	uint64_t exits[STATS_EXIT_REASONS];
	uint64_t exits_other;
	uint64_t flushes_done;	/* TLB flushes this vCPU performed on request */
	uint64_t kicks_sent;
	uint64_t kvm_hv_synic_exits;	/* KVM_EXIT_HYPERV_SYNIC: SynIC control writes (--hv-synic) */
};

struct vm_stats {
	uint64_t start_tsc;
};

void lat_record(struct lat_hist *h, uint64_t cycles);
void lat_merge(struct lat_hist *dst, const struct lat_hist *src);
/* Percentile (0..100) estimated from the histogram: upper edge of its bucket. */
uint64_t lat_percentile(const struct lat_hist *h, unsigned int pct);
const char *stats_kind_name(enum stats_kind k);
const char *stats_exit_name(unsigned int reason);

#endif
