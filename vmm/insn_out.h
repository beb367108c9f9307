/* SPDX-License-Identifier: MIT */
/*
 * Where the instruction behind a port-I/O OUT exit starts. KVM leaves RIP
 * on it (VMX/SVM fast PIO, `rep outs` everywhere) or already past it
 * (instructions KVM emulates: every CPL0 `out` on kvm_pvm, plain `outs`),
 * and says nothing about which. This is the pure part: no KVM, no guest
 * memory, only the code bytes around RIP and what the exit reported.
 */
#ifndef VMM_INSN_OUT_H
#define VMM_INSN_OUT_H

#include <stdbool.h>
#include <stdint.h>

/* The architectural limit: no x86 instruction is longer. */
#define INSN_OUT_MAX_LEN	15

struct insn_out_exit {
	uint64_t rip;		/* RIP at the exit */
	/* Guest code [rip - nr_before, rip + nr_after): code[nr_before] is at rip. */
	const uint8_t *code;
	unsigned int nr_before;	/* at most INSN_OUT_MAX_LEN are looked at */
	unsigned int nr_after;
	uint16_t port;		/* kvm_run io.port */
	unsigned int size;	/* kvm_run io.size: 1, 2 or 4 */
	uint16_t dx;		/* DX at the exit: the port of the DX and string forms */
	bool mode64;		/* 64-bit code: 0x40-0x4f are REX prefixes */
	bool opsize16;		/* default operand size is 16 (CS.D = 0 outside 64-bit) */
	bool rip_moved;		/* completing the exit (KVM_RUN, immediate_exit) moved RIP */
};

/*
 * Set *insn_rip to the first byte of the OUT-family instruction (OUT imm8 or
 * DX, OUTS, any legal prefixes) that caused the exit. Returns 0, or -1 when
 * no instruction consistent with the exit is found (never a guess).
 */
int insn_out_locate(const struct insn_out_exit *e, uint64_t *insn_rip);

#endif
