// SPDX-License-Identifier: MIT
/*
 * Per-vCPU data and stacks. Both live in .bss, which the VMM's loader
 * zero-fills, so nothing here needs initialising before use.
 */
#include "lib/percpu.h"

struct percpu percpu[GUEST_MAX_VCPUS];

/* boot.S picks the block by vCPU index and writes the header. */
u8 stack_blocks[GUEST_MAX_VCPUS][STACK_BLOCK_SIZE] __aligned(STACK_BLOCK_SIZE);
