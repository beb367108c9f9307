// SPDX-License-Identifier: MIT
/*
 * Per-vCPU data and stacks, sized by the vCPU count at boot and taken from
 * free RAM (bootmem.h), which the VMM hands over zeroed: nothing here needs
 * initialising before use.
 */
#include "lib/bootmem.h"
#include "lib/percpu.h"

/* The stack blocks boot.S picked: block i is percpu[i], its fields at the top. */
struct percpu *percpu;
u64 stack_blocks;

static struct tss_group *tss_groups;

void percpu_init(u64 stack_base, u32 nr_cpus)
{
	BUILD_BUG_ON(sizeof(struct percpu) != STACK_BLOCK_SIZE);
	BUILD_BUG_ON(offsetof(struct percpu, cpu) != KERNEL_STACK_TOP);
	BUILD_BUG_ON(KERNEL_STACK_TOP % 16);
	/* Every TSS of a group reaches the bitmap with its 16-bit iomap_base. */
	BUILD_BUG_ON(offsetof(struct tss_group, io_bitmap) > 0xffff);
	BUILD_BUG_ON(sizeof(((struct tss_group *)0)->slot) != 4096);
	stack_blocks = stack_base;
	percpu = (struct percpu *)(uintptr_t)stack_base;
	tss_groups = bootmem_must_alloc((u64)(nr_cpus + TSS_GROUP_SIZE - 1) / TSS_GROUP_SIZE *
					sizeof(struct tss_group),
					__alignof__(struct tss_group), "TSSes");
}

struct tss *percpu_tss(u32 cpu)
{
	return &tss_groups[cpu / TSS_GROUP_SIZE].slot[cpu % TSS_GROUP_SIZE].tss;
}
