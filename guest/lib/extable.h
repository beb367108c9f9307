/* SPDX-License-Identifier: MIT */
/*
 * Expected exceptions. An instruction wrapped in ASM_TRY() gets an entry in
 * the .extable section: {address of the instruction, landing address}. When
 * an exception hits an address listed there, trap_dispatch() records it in
 * this vCPU's struct ex_record and resumes at the landing address (the
 * instruction after), at whatever CPL it came from. Anything unlisted is
 * fatal. Usage:
 *
 *	ex_arm();
 *	asm volatile(ASM_TRY("ud2") ::: "memory");
 *	if (ex_vector() == UD_VECTOR) ...
 *
 * The wrapped text must be a single instruction (a fault in a second one
 * would not be listed) and uses local labels 1: and 2:.
 */
#ifndef GUEST_LIB_EXTABLE_H
#define GUEST_LIB_EXTABLE_H

#include "lib/percpu.h"
#include "lib/trap.h"

#define EX_NONE		(-1)

struct extable_entry {
	u64 insn;
	u64 landing;
};

#define ASM_EXTABLE(insn, landing)			\
	".pushsection .extable, \"a\"\n\t"		\
	".balign 8\n\t"					\
	".quad " #insn ", " #landing "\n\t"		\
	".popsection\n\t"

#define ASM_TRY(insn)	"1: " insn "\n2:\n\t" ASM_EXTABLE(1b, 2b)

/* Forget the previous expected exception. */
static inline void ex_arm(void)
{
	WRITE_ONCE(this_cpu()->ex.vector, EX_NONE);
}

/* Vector caught since ex_arm(), or EX_NONE. */
static inline int ex_vector(void)
{
	return READ_ONCE(this_cpu()->ex.vector);
}

static inline const struct ex_record *ex_last(void)
{
	return &this_cpu()->ex;
}

/* The landing address for a faulting RIP, or 0 when it is not listed. */
u64 extable_landing(u64 rip);

/* Each returns the vector caught, or EX_NONE when the access succeeded. */
int rdmsr_safe(u32 msr, u64 *val);
int wrmsr_safe(u32 msr, u64 val);
int read_u64_safe(const volatile u64 *addr, u64 *val);

#endif /* GUEST_LIB_EXTABLE_H */
