/* SPDX-License-Identifier: MIT */
/*
 * 4-level page tables beyond the VMM's identity map. The boot tables map
 * GPA 0..4 GiB with 2 MiB pages; paging_map_4k() maps single 4 KiB pages
 * at GVAs outside that range, building the missing tables from a small
 * static pool in .bss. Those tables sit on the identity map, which is
 * user-writable, so CPL3 code may rewrite a PTE through paging_pte().
 * vCPU 0 only: the pool and the tables are not locked.
 */
#ifndef GUEST_LIB_PAGING_H
#define GUEST_LIB_PAGING_H

#include "lib/types.h"

#define PAGE_SIZE		4096ull
#define PTE_PRESENT		(1ull << 0)
#define PTE_WRITE		(1ull << 1)
#define PTE_USER		(1ull << 2)
#define PTE_LARGE		(1ull << 7)	/* PS in a PDPTE/PDE */
#define PTE_ADDR_MASK		0x000ffffffffff000ull

static inline u64 read_cr3(void)
{
	u64 v;

	asm volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* Flushes every non-global translation of this vCPU (CR4.PGE is off). */
static inline void write_cr3(u64 v)
{
	asm volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void invlpg(u64 gva)
{
	asm volatile("invlpg (%0)" : : "r"(gva) : "memory");
}

/*
 * Map the 4 KiB page at `gva` to `gpa` with `flags` (PTE_PRESENT is
 * added). Returns the PTE, or NULL when a large page already covers `gva`
 * or the table pool is used up. Remapping an already mapped GVA just
 * rewrites its PTE; the caller flushes.
 */
u64 *paging_map_4k(u64 gva, u64 gpa, u64 flags);

/* The 4 KiB PTE that maps `gva`, or NULL when there is none. */
u64 *paging_pte(u64 gva);

#endif /* GUEST_LIB_PAGING_H */
