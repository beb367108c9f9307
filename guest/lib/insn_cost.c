// SPDX-License-Identifier: MIT
#include "lib/insn_cost.h"
#include "lib/timing.h"

#define BLOCK_INSNS	64

enum block { BLOCK_EMPTY, BLOCK_REG, BLOCK_STACK };

/* One timed block; the TSC reads are plain (pvm's CPL0 runs in order anyway). */
static u64 time_block(enum block b)
{
	u64 t0 = rdtsc(), t1;

	if (b == BLOCK_REG)
		asm volatile(".rept 64\n\taddq $1, %%rax\n\t.endr" : : : "rax", "cc");
	else if (b == BLOCK_STACK)
		asm volatile(".rept 32\n\tpushq %%rax\n\tpopq %%rax\n\t.endr" : : : "memory");
	t1 = rdtsc();
	return t1 - t0;
}

/* Insertion sort: 31 values, cheap enough at CPL0 even where it is emulated. */
static u64 median(u64 *v, u32 n)
{
	for (u32 i = 1; i < n; i++) {
		u64 x = v[i];
		u32 j = i;

		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v[n / 2];
}

static u64 per_insn_milli(u64 block, u64 empty)
{
	return block > empty ? (block - empty) * 1000 / BLOCK_INSNS : 0;
}

void insn_cost_measure(struct insn_cost *c)
{
	u64 e[INSN_COST_ROUNDS], r[INSN_COST_ROUNDS], s[INSN_COST_ROUNDS], empty;

	/* Interleaved, so a slow patch of the host hits all three alike. */
	for (u32 i = 0; i < INSN_COST_ROUNDS; i++) {
		e[i] = time_block(BLOCK_EMPTY);
		r[i] = time_block(BLOCK_REG);
		s[i] = time_block(BLOCK_STACK);
	}
	empty = median(e, INSN_COST_ROUNDS);
	c->reg_milli = per_insn_milli(median(r, INSN_COST_ROUNDS), empty);
	c->stack_milli = per_insn_milli(median(s, INSN_COST_ROUNDS), empty);
}
