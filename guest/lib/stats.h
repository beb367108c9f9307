/* SPDX-License-Identifier: MIT */
/* Order statistics over u64 samples (TSC cycles, usually). */
#ifndef GUEST_LIB_STATS_H
#define GUEST_LIB_STATS_H

#include "lib/types.h"

struct stats {
	u64 n;
	u64 min, median, p90, p99, max, mean;
};

/* In place, ascending; heapsort: O(n log n), no recursion, no extra memory. */
void sort_u64(u64 *v, size_t n);

/* The nearest-rank percentile (0 < pct <= 100) of sorted samples. */
u64 percentile_sorted(const u64 *sorted, size_t n, unsigned int pct);

/* Sort `v` and summarise it. n == 0 gives all zeros. */
void stats_compute(u64 *v, size_t n, struct stats *s);

#endif /* GUEST_LIB_STATS_H */
