/* SPDX-License-Identifier: MIT */
/* The register frame entry.S builds, and the exception/interrupt dispatch. */
#ifndef GUEST_LIB_TRAP_H
#define GUEST_LIB_TRAP_H

#include "lib/types.h"

/* Lowest address first: the reverse of trap_common's pushes. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

#define DE_VECTOR	0
#define DB_VECTOR	1
#define NMI_VECTOR	2
#define BP_VECTOR	3
#define UD_VECTOR	6
#define DF_VECTOR	8
#define GP_VECTOR	13
#define PF_VECTOR	14
#define MC_VECTOR	18

/* Called by entry.S for every vector. */
void trap_dispatch(struct trap_frame *tf);

/* "#GP" etc.; "vec" for vectors without a mnemonic. */
const char *exception_name(unsigned int vector);

#endif /* GUEST_LIB_TRAP_H */
