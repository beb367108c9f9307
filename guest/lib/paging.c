// SPDX-License-Identifier: MIT
#include "lib/atomic.h"
#include "lib/paging.h"
#include "lib/string.h"

#define LEVEL_ENTRIES		512
#define PML4_SHIFT		39
#define PT_SHIFT		12
#define LEVEL_BITS		9
/* A PDPT, a PD and a PT for one new 1 GiB slot, with one page to spare. */
#define POOL_PAGES		4

static u64 pool[POOL_PAGES][LEVEL_ENTRIES] __aligned(PAGE_SIZE);
static u32 pool_used;

/* Tables live below 4 GiB, where virtual == physical. */
static u64 *table_at(u64 entry)
{
	return (u64 *)(uintptr_t)(entry & PTE_ADDR_MASK);
}

static u64 *pool_take(void)
{
	u64 *page;

	if (pool_used == POOL_PAGES)
		return NULL;
	page = pool[pool_used++];
	memset(page, 0, PAGE_SIZE);
	return page;
}

/* The table entry `idx` of `table` points to, created on demand. */
static u64 *next_level(u64 *table, unsigned int idx, bool create)
{
	u64 entry = table[idx];
	u64 *next;

	if (entry & PTE_PRESENT)
		return (entry & PTE_LARGE) ? NULL : table_at(entry);
	if (!create)
		return NULL;
	next = pool_take();
	if (next)
		table[idx] = (uintptr_t)next | PTE_PRESENT | PTE_WRITE | PTE_USER;
	return next;
}

static u64 *walk(u64 gva, bool create)
{
	u64 *table = table_at(read_cr3());

	for (unsigned int shift = PML4_SHIFT; shift > PT_SHIFT; shift -= LEVEL_BITS) {
		table = next_level(table, (gva >> shift) & (LEVEL_ENTRIES - 1), create);
		if (!table)
			return NULL;
	}
	return &table[(gva >> PT_SHIFT) & (LEVEL_ENTRIES - 1)];
}

u64 *paging_map_4k(u64 gva, u64 gpa, u64 flags)
{
	u64 *pte = walk(gva, true);

	if (pte)
		WRITE_ONCE(*pte, (gpa & PTE_ADDR_MASK) | flags | PTE_PRESENT);
	return pte;
}

u64 *paging_pte(u64 gva)
{
	u64 *pte = walk(gva, false);

	return pte && (*pte & PTE_PRESENT) ? pte : NULL;
}
