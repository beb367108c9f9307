/* SPDX-License-Identifier: MIT */
/*
 * Is a vCPU's register file the x86 reset/INIT state? KVM on SVM puts a
 * vCPU through INIT when it handles a SHUTDOWN intercept (the VMCB is
 * undefined after one), so after KVM_EXIT_SHUTDOWN there KVM_GET_REGS and
 * KVM_GET_SREGS show the reset state, not the state that triple-faulted.
 * VMX and kvm_pvm leave the faulting state in place.
 */
#ifndef VMM_RESETSTATE_H
#define VMM_RESETSTATE_H

#include <stdbool.h>

struct kvm_regs;
struct kvm_sregs;

/* RIP fff0 in CS f000 (base ffff0000), RFLAGS 2, protection and long mode off. */
bool x86_is_reset_state(const struct kvm_regs *r, const struct kvm_sregs *s);

#endif
