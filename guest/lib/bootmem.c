// SPDX-License-Identifier: MIT
#include "lib/bootmem.h"
#include "lib/exit.h"
#include "lib/layout.h"
#include "lib/printf.h"

static u64 pool_start, pool_next, pool_end;

u64 bootmem_stack_base(const struct mvm_bootinfo *bi)
{
	return ALIGN_UP(bi->free_gpa, (u64)STACK_BLOCK_SIZE);
}

bool bootmem_init(const struct mvm_bootinfo *bi)
{
	u64 base = bootmem_stack_base(bi);
	u64 stacks = (u64)bi->nr_vcpus * STACK_BLOCK_SIZE;

	pool_start = bi->free_gpa;
	pool_end = bi->ram_size;
	if (base > pool_end || stacks > pool_end - base)
		return false;
	pool_next = base + stacks;
	return true;
}

void *bootmem_alloc(u64 size, u64 align)
{
	u64 at = ALIGN_UP(pool_next, align);

	if (at < pool_next || at > pool_end || size > pool_end - at)
		return NULL;
	pool_next = at + size;
	return (void *)(uintptr_t)at;
}

void *bootmem_must_alloc(u64 size, u64 align, const char *what)
{
	void *p = bootmem_alloc(size, align);

	if (p)
		return p;
	printf("guest: out of RAM for %s (%lu KiB wanted, %lu KiB of %lu left): give more --mem\n",
	       what, size >> 10, (pool_end - pool_next) >> 10, (pool_end - pool_start) >> 10);
	guest_exit(EXIT_USAGE);
}

u64 bootmem_used(void)
{
	return pool_next - pool_start;
}

u64 bootmem_total(void)
{
	return pool_end - pool_start;
}
