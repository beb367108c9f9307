// SPDX-License-Identifier: MIT
#include "lib/stats.h"

static void swap_u64(u64 *a, u64 *b)
{
	u64 t = *a;

	*a = *b;
	*b = t;
}

/* Move v[root] down until the max-heap of size n holds again. */
static void sift_down(u64 *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		swap_u64(&v[root], &v[child]);
		root = child;
	}
}

void sort_u64(u64 *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		swap_u64(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}

u64 percentile_sorted(const u64 *sorted, size_t n, unsigned int pct)
{
	size_t rank;

	if (!n)
		return 0;
	rank = ((u64)n * pct + 99) / 100;	/* ceil(n * pct / 100) */
	return sorted[rank ? rank - 1 : 0];
}

void stats_compute(u64 *v, size_t n, struct stats *s)
{
	u64 sum = 0;

	*s = (struct stats){ .n = n };
	if (!n)
		return;
	sort_u64(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->max = v[n - 1];
	s->median = percentile_sorted(v, n, 50);
	s->p90 = percentile_sorted(v, n, 90);
	s->p99 = percentile_sorted(v, n, 99);
	s->mean = sum / n;
}
