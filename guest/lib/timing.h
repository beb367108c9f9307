/* SPDX-License-Identifier: MIT */
/*
 * The TSC: reads, conversions with the VMM's KVM_GET_TSC_KHZ, and bounded
 * waits. rdtsc() is unordered (fine for timeouts); measurements use
 * rdtsc_ordered() to start and rdtscp_ordered() to stop.
 */
#ifndef GUEST_LIB_TIMING_H
#define GUEST_LIB_TIMING_H

#include "lib/atomic.h"
#include "lib/types.h"

extern u64 tsc_khz;		/* never 0 after timing_init() */
extern bool tsc_khz_guessed;	/* the boot info had none */

void timing_init(u64 khz);

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | ((u64)hi << 32);
}

/* Earlier instructions complete before the TSC is read. */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return lo | ((u64)hi << 32);
}

/* Waits for earlier instructions; the lfence keeps later ones after it. */
static inline u64 rdtscp_ordered(u32 *aux)
{
	u32 lo, hi, c;

	asm volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi), "=c"(c) : : "memory");
	if (aux)
		*aux = c;
	return lo | ((u64)hi << 32);
}

u64 cycles_to_ns(u64 cycles);
u64 us_to_cycles(u64 us);

/* A TSC value `us` microseconds from now. */
static inline u64 tsc_deadline(u64 us)
{
	return rdtsc() + us_to_cycles(us);
}

void udelay(u64 us);

/*
 * Spin until `cond` holds or `us` microseconds pass; true if it held.
 * `cond` is re-evaluated each round, so it must read shared data with
 * READ_ONCE() or an atomic.
 */
#define wait_until(cond, us)					\
({								\
	u64 __deadline = tsc_deadline(us);			\
	bool __ok;						\
	for (;;) {						\
		if (cond) {					\
			__ok = true;				\
			break;					\
		}						\
		if (rdtsc() > __deadline) {			\
			__ok = (cond);				\
			break;					\
		}						\
		cpu_relax();					\
	}							\
	__ok;							\
})

#endif /* GUEST_LIB_TIMING_H */
