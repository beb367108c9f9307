/* SPDX-License-Identifier: MIT */
/* Privileged and identification instructions, one inline wrapper each. */
#ifndef GUEST_LIB_PROCESSOR_H
#define GUEST_LIB_PROCESSOR_H

#include "lib/types.h"

#define X86_EFLAGS_FIXED	(1ul << 1)
#define X86_EFLAGS_IF		(1ul << 9)
#define X86_EFLAGS_IOPL3	(3ul << 12)

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid_count(u32 leaf, u32 subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

static inline struct cpuid_regs cpuid(u32 leaf)
{
	return cpuid_count(leaf, 0);
}

/* Leaf 0's vendor string, from EBX, EDX and ECX in that order, NUL-terminated. */
static inline void cpuid_vendor(char out[13])
{
	struct cpuid_regs r = cpuid(0);
	const u32 w[3] = { r.ebx, r.edx, r.ecx };

	for (int i = 0; i < 12; i++)
		out[i] = (char)(w[i / 4] >> (8 * (i % 4)));
	out[12] = '\0';
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return lo | ((u64)hi << 32);
}

static inline void wrmsr(u32 msr, u64 v)
{
	asm volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline u64 read_cr2(void)
{
	u64 v;

	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline u16 read_cs(void)
{
	u16 v;

	asm volatile("mov %%cs, %0" : "=r"(v));
	return v;
}

static inline u64 read_rflags(void)
{
	u64 v;

	asm volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}

/*
 * Halt with interrupts on. STI's one-instruction shadow covers HLT, so an
 * interrupt that became pending while IF was 0 wakes the HLT, not lost.
 */
static inline void safe_halt(void)
{
	asm volatile("sti; hlt" ::: "memory");
}

static inline __noreturn void halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt" ::: "memory");
}

#endif /* GUEST_LIB_PROCESSOR_H */
