// SPDX-License-Identifier: MIT
/*
 * Find the OUT instruction behind a port-I/O exit (see insn_out.h).
 *
 * What KVM does (docs/robustness.md, "Where the #UD lands"):
 *  - non-string `out` on the VMX/SVM fast path: RIP on the instruction, and
 *    the completing KVM_RUN skips it, so RIP moves;
 *  - `out` emulated by KVM (all CPL0 code on kvm_pvm) and plain `outs`
 *    everywhere: RIP already past it, the completing KVM_RUN does nothing;
 *  - `rep outs` everywhere: RIP on it (RCX/RSI stepped), the completing
 *    KVM_RUN does nothing; a later entry resumes or finishes it.
 *
 * So: RIP moved -> RIP was on it. Otherwise, RIP is an instruction boundary
 * in both remaining cases, so we first decode forwards from RIP: a
 * rep-prefixed OUTS that fits the exit means RIP is on it. Else we decode
 * backwards: some candidate start s must make [s, rip) exactly one
 * non-rep OUT-family instruction that fits the exit (port, size, DX).
 *
 * Ambiguity rules, the only guesses made:
 *  1. Forward wins: a non-rep OUT immediately followed by a `rep outs` to
 *     the same port with the same size is read as the `rep outs`.
 *  2. Shortest backward candidate wins. A prefix that changes neither the
 *     port nor the size (a redundant 0x66/REX, a segment override, 0x67,
 *     F2/F3 on a non-string form) cannot be told from the last byte of the
 *     previous instruction, which is far more often what it is; on such an
 *     instruction the exception lands on the opcode, not the first prefix.
 *     0x66 that makes the size 2 is not redundant: the size check keeps it.
 *     Likewise `e6 ee` (out to port 0xee) with DX = 0xee reads as `ee`.
 */
#include <stddef.h>

#include "vmm/insn_out.h"

struct out_insn {
	unsigned int len;
	unsigned int size;
	int port;		/* the imm8, or -1 for the DX and string forms */
	bool rep_string;	/* OUTS with F2/F3: RIP stays on it between elements */
};

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
	case 0x66: case 0x67: case 0xf2: case 0xf3:
		return true;
	default:
		return false;	/* 0xf0 (LOCK) makes OUT #UD: not an OUT */
	}
}

/* Operand size of E7/EF/6F: REX.W (clamped, I/O is at most 32 bits) beats 0x66. */
static unsigned int word_size(bool opsize_prefix, bool rex_w, bool opsize16)
{
	if (rex_w)
		return 4;
	return opsize_prefix != opsize16 ? 2 : 4;
}

/* Decode one OUT-family instruction from p[0..n); its length, or 0. */
static unsigned int decode(const uint8_t *p, unsigned int n, const struct insn_out_exit *e,
			   struct out_insn *d)
{
	bool opsize_prefix = false, rex_w = false, rep = false;
	unsigned int i = 0;
	uint8_t op;

	if (n > INSN_OUT_MAX_LEN)
		n = INSN_OUT_MAX_LEN;
	for (; i < n; i++) {
		if (e->mode64 && (p[i] & 0xf0) == 0x40) {
			rex_w = p[i] & 0x08;
			continue;
		}
		if (!is_legacy_prefix(p[i]))
			break;
		rex_w = false;	/* REX counts only right before the opcode */
		opsize_prefix |= p[i] == 0x66;
		rep |= p[i] == 0xf2 || p[i] == 0xf3;
	}
	if (i >= n)
		return 0;
	op = p[i++];
	switch (op) {
	case 0xe6: case 0xe7:
		if (i >= n)
			return 0;
		d->port = p[i++];
		break;
	case 0xee: case 0xef: case 0x6e: case 0x6f:
		d->port = -1;
		break;
	default:
		return 0;
	}
	d->len = i;
	d->size = (op & 1) ? word_size(opsize_prefix, rex_w, e->opsize16) : 1;
	d->rep_string = rep && (op == 0x6e || op == 0x6f);
	return i;
}

static bool fits_exit(const struct out_insn *d, const struct insn_out_exit *e)
{
	if (d->size != e->size)
		return false;
	return d->port < 0 ? e->dx == e->port : (uint16_t)d->port == e->port;
}

static bool rep_outs_at_rip(const struct insn_out_exit *e)
{
	struct out_insn d;

	return decode(e->code + e->nr_before, e->nr_after, e, &d) && d.rep_string &&
	       fits_exit(&d, e);
}

/* Length of the shortest OUT ending exactly at RIP that fits the exit, or 0. */
static unsigned int out_before_rip(const struct insn_out_exit *e)
{
	unsigned int max = e->nr_before;

	if (max > INSN_OUT_MAX_LEN)
		max = INSN_OUT_MAX_LEN;
	if (max > e->rip)
		max = e->rip;	/* nothing starts below address 0 */
	for (unsigned int len = 1; len <= max; len++) {
		struct out_insn d;

		if (decode(e->code + e->nr_before - len, len, e, &d) == len &&
		    !d.rep_string && fits_exit(&d, e))
			return len;
	}
	return 0;
}

int insn_out_locate(const struct insn_out_exit *e, uint64_t *insn_rip)
{
	unsigned int len;

	if (e->rip_moved || (e->code && rep_outs_at_rip(e))) {
		*insn_rip = e->rip;
		return 0;
	}
	if (!e->code)
		return -1;
	len = out_before_rip(e);
	if (!len)
		return -1;
	*insn_rip = e->rip - len;
	return 0;
}
