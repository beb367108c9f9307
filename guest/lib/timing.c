// SPDX-License-Identifier: MIT
#include "lib/timing.h"

/* Used only when the VMM could not tell: too high makes timeouts longer, not shorter. */
#define TSC_KHZ_FALLBACK	4000000ull

u64 tsc_khz = TSC_KHZ_FALLBACK;
bool tsc_khz_guessed = true;

void timing_init(u64 khz)
{
	tsc_khz_guessed = !khz;
	tsc_khz = khz ? khz : TSC_KHZ_FALLBACK;
}

/* Split so that cycles * 10^6 cannot overflow and no 128-bit division is needed. */
u64 cycles_to_ns(u64 cycles)
{
	return cycles / tsc_khz * 1000000 + cycles % tsc_khz * 1000000 / tsc_khz;
}

u64 us_to_cycles(u64 us)
{
	return us * tsc_khz / 1000;
}

void udelay(u64 us)
{
	u64 end = tsc_deadline(us);

	while (rdtsc() < end)
		cpu_relax();
}
