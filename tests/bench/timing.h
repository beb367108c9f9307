/* SPDX-License-Identifier: MIT */
/* What the host-timed benches share: a monotonic clock in ns, and qsort's order on doubles. */
#ifndef MINIVMM_TESTS_BENCH_TIMING_H
#define MINIVMM_TESTS_BENCH_TIMING_H

#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
