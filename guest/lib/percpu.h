/* SPDX-License-Identifier: MIT */
/* Per-vCPU state, found through the stack block the code is running on. */
#ifndef GUEST_LIB_PERCPU_H
#define GUEST_LIB_PERCPU_H

#include "lib/atomic.h"
#include "lib/layout.h"
#include "lib/types.h"

/* The 64-bit TSS: RSP0, the IST stacks and the I/O bitmap that follows it. */
struct tss {
	u32 reserved0;
	u64 rsp0, rsp1, rsp2;
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

#define IO_BITMAP_BYTES		(65536 / 8)

/*
 * TSSes, TSS_GROUP_SIZE to a page, and one I/O bitmap after them that they
 * all point at (iomap_base is each TSS's own offset to it). Each vCPU needs
 * its own TSS (RSP0 and the IST stacks are per vCPU); its page is written
 * at boot. The bitmap is all zero: CPL3 may use every port. kvm_pvm forces
 * IOPL to 0 at CPL3 but honours this bitmap; VMX/SVM honour run_user()'s
 * IOPL=3 and skip it. It is only ever read, so it costs the host no memory.
 * The CPU reads two bytes for every check, so a 2- or 4-byte access at
 * 0xffff also reads the byte past the bitmap. The SDM suggests 0xff there
 * (fault on the wrap); ours is 0 and inside the TSS limit, so those reach
 * the VMM as they would with IOPL=3: the hostile suite sends exactly them.
 */
#define TSS_GROUP_SIZE		32

struct tss_group {
	struct {
		struct tss tss;
	} __aligned(128) slot[TSS_GROUP_SIZE];
	u8 io_bitmap[IO_BITMAP_BYTES + 1];
} __aligned(4096);

/* What the last expected exception was (see extable.h). */

struct ex_record {
	int vector;		/* EX_NONE when nothing was caught */
	u32 error_code;
	u64 rip;
	u64 cr2;
};

/* One-slot work queue that smp_call() posts to (see smp.h). */
struct smp_mailbox {
	struct spinlock lock;	/* serialises posters */
	void (*fn)(void *arg);	/* non-NULL: posted, not yet taken */
	void *arg;
	u32 posted;		/* tickets handed out, under lock */
	u32 done;		/* items finished by the owner */
};

/*
 * A vCPU's whole stack block (layout.h): the stacks, then the fields at the
 * top, so percpu[i] is block i and the fields share a page with the top of
 * the kernel stack.
 */
struct percpu {
	u8 stacks[KERNEL_STACK_TOP];	/* NMI, #DF, user and kernel stacks */
	u32 cpu;			/* written by boot.S */
	u32 apic_id;
	bool online;
	u32 barrier_sense;
	u32 barrier_ticks;	/* backstop ticks taken (smp.c) */
	struct ex_record ex;
	bool sstep_on;		/* #DB counts steps (sstep.c) */
	u64 sstep_steps;
	struct smp_mailbox mbox;
	u64 gdt[GDT_ENTRIES] __aligned(8);
	struct tss *tss;		/* its slot in a struct tss_group */
} __aligned(STACK_BLOCK_SIZE);

/* boot_nr_cpus entries each, placed by percpu_init() (bootmem.h). */
extern struct percpu *percpu;
extern u64 stack_blocks;

/* vCPU 0 at boot: the stack blocks boot.S picked and the TSS groups. */
void percpu_init(u64 stack_base, u32 nr_cpus);

/* vCPU `cpu`'s TSS: its slot in its group (gdt.c). */
struct tss *percpu_tss(u32 cpu);

/* This vCPU's block, valid on any of our stacks at any CPL. */
static inline struct percpu *this_cpu(void)
{
	u64 sp;

	asm("mov %%rsp, %0" : "=r"(sp));
	return (struct percpu *)(uintptr_t)(sp & ~(u64)(STACK_BLOCK_SIZE - 1));
}

/* The vCPU index. */
static inline u32 smp_id(void)
{
	return this_cpu()->cpu;
}

static inline u64 stack_top(u32 cpu, u64 offset)
{
	return stack_blocks + (u64)cpu * STACK_BLOCK_SIZE + offset;
}

#endif /* GUEST_LIB_PERCPU_H */
