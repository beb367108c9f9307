// SPDX-License-Identifier: MIT
/* The expected-exception table and the *_safe accessors built on it. */
#include "lib/extable.h"

extern const struct extable_entry __extable_start[], __extable_end[];

/* Linear: the table has a few dozen entries and is searched only on faults. */
u64 extable_landing(u64 rip)
{
	for (const struct extable_entry *e = __extable_start; e < __extable_end; e++)
		if (e->insn == rip)
			return e->landing;
	return 0;
}

int rdmsr_safe(u32 msr, u64 *val)
{
	u32 lo = 0, hi = 0;

	ex_arm();
	asm volatile(ASM_TRY("rdmsr") : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
	*val = lo | ((u64)hi << 32);
	return ex_vector();
}

int wrmsr_safe(u32 msr, u64 val)
{
	ex_arm();
	asm volatile(ASM_TRY("wrmsr")
		     : : "c"(msr), "a"((u32)val), "d"((u32)(val >> 32)) : "memory");
	return ex_vector();
}

int read_u64_safe(const volatile u64 *addr, u64 *val)
{
	u64 v = 0;

	ex_arm();
	asm volatile(ASM_TRY("movq (%1), %0") : "+r"(v) : "r"(addr) : "memory");
	*val = v;
	return ex_vector();
}
