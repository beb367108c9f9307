// SPDX-License-Identifier: MIT
/*
 * Per-vCPU data and stacks, sized by the vCPU count at boot and taken from
 * free RAM (bootmem.h), which the VMM hands over zeroed: nothing here needs
 * initialising before use.
 */
#include "lib/bootmem.h"
#include "lib/percpu.h"

struct percpu *percpu;

/* boot.S picks the block by vCPU index and writes the header. */
u64 stack_blocks;

void percpu_init(u64 stack_base, u32 nr_cpus)
{
	stack_blocks = stack_base;
	percpu = bootmem_must_alloc((u64)nr_cpus * sizeof(struct percpu),
				    __alignof__(struct percpu), "per-vCPU data");
}
