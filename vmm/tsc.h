/* SPDX-License-Identifier: MIT */
/* The host's time stamp counter: the clock every VMM-side latency is kept in. */
#ifndef VMM_TSC_H
#define VMM_TSC_H

#include <stdint.h>

static inline uint64_t host_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

#endif
