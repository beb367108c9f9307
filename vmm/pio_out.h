/* SPDX-License-Identifier: MIT */
/*
 * Finish a port-I/O OUT exit now and find the instruction behind it, the
 * same way on every KVM backend (vmm/insn_out.c says what differs).
 */
#ifndef VMM_PIO_OUT_H
#define VMM_PIO_OUT_H

#include <stdint.h>

struct vcpu;
struct kvm_regs;

enum pio_out_site {
	PIO_OUT_FOUND,		/* *insn_rip is the OUT's first byte */
	PIO_OUT_UNKNOWN,	/* completed, but no OUT fits the exit: not guessed */
	PIO_OUT_FAILED,		/* the completing KVM_RUN failed; see errno */
};

/*
 * For a KVM_EXIT_IO OUT exit, from the vCPU's thread: do now, under
 * immediate_exit so no guest code runs, the completion KVM would do on the
 * next KVM_RUN, then locate the instruction. Afterwards v->run->s.regs hold
 * the completed state and *at_exit (if not NULL) the registers of the exit.
 * Call it at most once per exit.
 */
enum pio_out_site pio_out_complete(struct vcpu *v, struct kvm_regs *at_exit,
				   uint64_t *insn_rip);

#endif
