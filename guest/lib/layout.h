/* SPDX-License-Identifier: MIT */
/*
 * Numbers the assembly files share with C: the vCPU limit, the per-CPU
 * stack block, our GDT selectors and the vectors the library reserves.
 * Plain #defines only: included from .S files.
 */
#ifndef GUEST_LIB_LAYOUT_H
#define GUEST_LIB_LAYOUT_H

/*
 * The most vCPUs guest.elf runs on. Big per-vCPU data is sized by the real
 * count at boot (bootmem.h); only small per-vCPU counters use this bound.
 */
#define GUEST_MAX_VCPUS		1024

/* abi.h is C only; these copies are checked against it in abi_check.c. */
#define ASM_PORT_COM1		0x3f8
#define ASM_PORT_EXIT		0xf4
/* struct mvm_bootinfo fields boot.S reads (checked in abi_check.c). */
#define ASM_BI_NR_VCPUS		16
#define ASM_BI_RAM_SIZE		24
#define ASM_BI_FREE_GPA		48
/* tlfs.h is C only too: HV_HCALL_FAST_BIT. */
#define ASM_HV_HCALL_FAST_BIT	0x10000

/*
 * Every vCPU owns one naturally aligned block holding all of its stacks and,
 * at the top, its struct percpu (percpu.h), so the vCPU's data is found
 * from any stack pointer by masking: no GS base, no MSR, same at CPL0 and
 * CPL3. The fields sit right above the kernel stack's top: a booted vCPU
 * that has not gone deep touches one page of its block, fields and stack
 * top together (docs/results/scale.md). The rarely used IST stacks are at the
 * bottom, so an overflowing kernel stack runs into the user stack and
 * them before it reaches anything else.
 */
#define STACK_BLOCK_SIZE	0x8000
#define PERCPU_FIELDS_SIZE	0x200	/* struct percpu's fields; checked in percpu.c */
#define NMI_STACK_TOP		0x1000	/* IST2: [0, 4 KiB) */
#define DF_STACK_TOP		0x2000	/* IST1: #DF and #MC, 4 KiB */
#define USER_STACK_TOP		0x4000	/* CPL3 stack for run_user(), 8 KiB */
/* CPL0 stack, 16 KiB less the fields; boot.S writes the vCPU index here. */
#define KERNEL_STACK_TOP	(STACK_BLOCK_SIZE - PERCPU_FIELDS_SIZE)

#define IST_DF			1
#define IST_NMI			2

/* Our GDT (gdt.c). User data before user code, as SYSRET would want. */
#define KERNEL_CS		0x08
#define KERNEL_DS		0x10
#define USER_DS			0x18
#define USER_CS			0x20
#define TSS_SEL			0x28
#define GDT_ENTRIES		7	/* the TSS descriptor takes two */

/* Vectors the library owns. Suites register theirs in between. */
#define NR_EXCEPTIONS		32
#define SMP_CALL_VECTOR		0xf0	/* wakes a vCPU to run its mailbox */
#define BARRIER_TIMER_VECTOR	0xf3	/* smp_barrier()'s backstop tick */
#define SPURIOUS_VECTOR		0xff

#endif /* GUEST_LIB_LAYOUT_H */
