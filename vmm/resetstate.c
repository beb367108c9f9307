// SPDX-License-Identifier: MIT
#include <linux/kvm.h>

#include "vmm/resetstate.h"
#include "vmm/x86.h"

/* SDM vol. 3 "Processor State After Reset"; AMD APM vol. 2 "Initial Processor State". */
#define RESET_RIP		0xfff0ULL
#define RESET_CS_SELECTOR	0xf000
#define RESET_CS_BASE		0xffff0000ULL
#define RESET_RFLAGS		0x2ULL

/*
 * Every field checked is one no running guest of ours has: a 64-bit
 * payload has CR0.PE and EFER.LMA set, a Multiboot kernel starts with PE
 * set, and real-mode code at the reset vector is the firmware's, which
 * minivmm never loads. Matching all of them means KVM reset the vCPU.
 */
bool x86_is_reset_state(const struct kvm_regs *r, const struct kvm_sregs *s)
{
	return r->rip == RESET_RIP && r->rflags == RESET_RFLAGS &&
	       s->cs.selector == RESET_CS_SELECTOR && s->cs.base == RESET_CS_BASE &&
	       !(s->cr0 & (X86_CR0_PE | X86_CR0_PG)) && !(s->efer & X86_EFER_LMA);
}
