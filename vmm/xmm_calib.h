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

#endif
