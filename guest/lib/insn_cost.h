/* SPDX-License-Identifier: MIT */
/*
 * What one CPL0 instruction costs on this backend, measured: a block of 64
 * unrolled instructions between two TSC reads, minus the same reads around
 * nothing, medians of INSN_COST_ROUNDS. On kvm_pvm CPL0 is emulated, so
 * this is the emulator's price per instruction; on VMX/SVM it is a few
 * cycles. Register-only and stack (push/pop) forms are timed apart: the
 * emulator charges memory operands more.
 */
#ifndef GUEST_LIB_INSN_COST_H
#define GUEST_LIB_INSN_COST_H

#include "lib/types.h"

#define INSN_COST_ROUNDS	31

struct insn_cost {
	/* 0: the block was no slower than the empty one (native CPL0: not resolved) */
	u64 reg_milli;		/* cycles x 1000 per register-only instruction */
	u64 stack_milli;	/* cycles x 1000 per push or pop */
};

/* At the current CPL (callers want 0). */
void insn_cost_measure(struct insn_cost *c);

#endif /* GUEST_LIB_INSN_COST_H */
