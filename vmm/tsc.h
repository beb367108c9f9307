/* SPDX-License-Identifier: MIT */
/*
 * The host's clocks: the time stamp counter every VMM-side latency is kept
 * in, and CLOCK_MONOTONIC in ns for deadlines, holds and wall-time spans.
 */
#ifndef VMM_TSC_H
#define VMM_TSC_H

#include <stdint.h>
#include <time.h>

static inline uint64_t host_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

static inline uint64_t host_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
