// SPDX-License-Identifier: MIT
#include <linux/kvm.h>

#include "vmm/stats.h"

/* Bucket b covers values whose top 5 significant bits equal b's: <= 6% wide. */
static unsigned int lat_bucket(uint64_t v)
{
	unsigned int msb, b;

	if (v < 16)
		return (unsigned int)v;
	msb = 63 - __builtin_clzll(v);
	b = (msb - 3) * 16 + (unsigned int)((v >> (msb - 4)) & 15);
	return b < LAT_BUCKETS ? b : LAT_BUCKETS - 1;
}

static uint64_t lat_bucket_top(unsigned int b)
{
	unsigned int msb;

	if (b < 16)
		return b;
	msb = b / 16 + 3;
	return ((16ull + (b % 16)) << (msb - 4)) + (1ull << (msb - 4)) - 1;
}

void lat_record(struct lat_hist *h, uint64_t cycles)
{
	if (!h->count || cycles < h->min)
		h->min = cycles;
	if (cycles > h->max)
		h->max = cycles;
	h->count++;
	h->sum += cycles;
	h->bucket[lat_bucket(cycles)]++;
}

void lat_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (unsigned int i = 0; i < LAT_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t lat_percentile(const struct lat_hist *h, unsigned int pct)
{
	uint64_t want, seen = 0;

	if (!h->count)
		return 0;
	if (pct == 0)
		return h->min;
	want = (h->count * pct + 99) / 100;
	if (!want)
		want = 1;
	for (unsigned int i = 0; i < LAT_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want) {
			uint64_t top = i == LAT_BUCKETS - 1 ? h->max : lat_bucket_top(i);

			/* Clamp to what was really seen. */
			return top > h->max ? h->max : top < h->min ? h->min : top;
		}
	}
	return h->max;
}

const char *stats_kind_name(enum stats_kind k)
{
	static const char *const names[STATS_KINDS] = {
		[STATS_PIO_NULL] = "pio-null",
		[STATS_PIO_OTHER] = "pio-device",
		[STATS_MMIO_NULL] = "mmio-null",
		[STATS_MMIO_OTHER] = "mmio-other",
		[STATS_MSR] = "msr",
		[STATS_HCALL] = "hypercall",
		[STATS_INTR] = "kick",
	};

	return k < STATS_KINDS ? names[k] : "?";
}

const char *stats_exit_name(unsigned int reason)
{
	switch (reason) {
	case KVM_EXIT_UNKNOWN: return "UNKNOWN";
	case KVM_EXIT_EXCEPTION: return "EXCEPTION";
	case KVM_EXIT_IO: return "IO";
	case KVM_EXIT_HYPERCALL: return "HYPERCALL";
	case KVM_EXIT_DEBUG: return "DEBUG";
	case KVM_EXIT_HLT: return "HLT";
	case KVM_EXIT_MMIO: return "MMIO";
	case KVM_EXIT_IRQ_WINDOW_OPEN: return "IRQ_WINDOW_OPEN";
	case KVM_EXIT_SHUTDOWN: return "SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY: return "FAIL_ENTRY";
	case KVM_EXIT_INTR: return "INTR";
	case KVM_EXIT_SET_TPR: return "SET_TPR";
	case KVM_EXIT_TPR_ACCESS: return "TPR_ACCESS";
	case KVM_EXIT_NMI: return "NMI";
	case KVM_EXIT_INTERNAL_ERROR: return "INTERNAL_ERROR";
	case KVM_EXIT_SYSTEM_EVENT: return "SYSTEM_EVENT";
	case KVM_EXIT_X86_RDMSR: return "X86_RDMSR";
	case KVM_EXIT_X86_WRMSR: return "X86_WRMSR";
	default: return "OTHER";
	}
}
