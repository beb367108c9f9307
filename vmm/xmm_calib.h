/* SPDX-License-Identifier: MIT */
/* --hv-xmm-path auto: time the spill page against KVM_GET_FPU on this host. */
#ifndef VMM_XMM_CALIB_H
#define VMM_XMM_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vm;

struct xmm_calib {
	bool done;		/* auto was asked for and resolved */
	const char *untimed;	/* why auto chose without timing (NULL: it timed) */
	uint64_t spill_ns;	/* guest: the page's spill instructions (lea, 6 movdqu, lea) */
	bool spill_resolved;	/* false: the spill block timed no slower than the empty one */
	uint64_t walk_ns;	/* VMM: page walk + copy of the 96 spilled bytes */
	uint64_t get_fpu_ns;	/* VMM: one KVM_GET_FPU */
};

/*
 * With --hv-xmm-path auto (the default), time both paths on vCPU 0 before
 * it starts, set vm->cfg.xmm_path and the hypercall page's form, and put
 * vCPU 0 back in its boot state. Needs the vCPUs and the Hyper-V layer.
 */
int xmm_calibrate(struct vm *vm, char *err, size_t errlen);

/* One line: what was chosen from what (for the banner and --json). */
void xmm_calib_describe(const struct vm *vm, char *buf, size_t len);

/*
 * The pure parts, no KVM: the spill's cost from the medians of the timed
 * blocks (guest TSC cycles), and the line for a timed choice. Where the TSC
 * does not resolve a few stores (native CPL0 on VMX/SVM, an emulator's
 * coarse TSC) the spill block is no slower than the empty one: the cost is
 * then "not resolved" and counted as 0 for the choice, never shown as a
 * measured 0.
 */
void xmm_calib_set_spill(struct xmm_calib *c, uint64_t spill_cycles, uint64_t empty_cycles,
			 uint64_t tsc_khz);
bool xmm_calib_prefers_spill(const struct xmm_calib *c);
void xmm_calib_format(const struct xmm_calib *c, bool spill, char *buf, size_t len);

#endif
