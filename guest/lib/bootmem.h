/* SPDX-License-Identifier: MIT */
/*
 * Boot-time memory: per-vCPU data sized by the vCPU count, taken from the
 * free RAM above the image (bootinfo free_gpa .. ram_size). The VMM hands
 * that RAM over zeroed (docs/abi.md), so nothing here clears it: at CPL0
 * every store is emulated on kvm_pvm, and untouched pages cost the host
 * nothing. First come the stack blocks, one per vCPU at an address boot.S
 * computes the same way (bootmem_stack_base()); then whatever
 * bootmem_alloc() hands out. Nothing is ever freed.
 */
#ifndef GUEST_LIB_BOOTMEM_H
#define GUEST_LIB_BOOTMEM_H

#include <minivmm/abi.h>

#include "lib/types.h"

/* Where vCPU 0's stack block starts: free_gpa rounded up to a block. */
u64 bootmem_stack_base(const struct mvm_bootinfo *bi);

/*
 * vCPU 0, before any other vCPU goes past its wait: place the stacks and
 * start the allocator after them. Returns false if the stacks alone do not
 * fit the RAM.
 */
bool bootmem_init(const struct mvm_bootinfo *bi);

/* `size` zeroed bytes aligned to `align` (a power of two), or NULL: RAM is full. */
void *bootmem_alloc(u64 size, u64 align);

/* Like bootmem_alloc(), but a failure ends the run with a message naming `what`. */
void *bootmem_must_alloc(u64 size, u64 align, const char *what);

/* Bytes handed out so far, stacks included; and what was free at boot. */
u64 bootmem_used(void);
u64 bootmem_total(void);

#endif /* GUEST_LIB_BOOTMEM_H */
