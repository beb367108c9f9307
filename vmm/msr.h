/* SPDX-License-Identifier: MIT */
/* MSR accesses KVM hands to user space (the filtered Hyper-V range). */
#ifndef VMM_MSR_H
#define VMM_MSR_H

#include <stddef.h>

struct vm;
struct vcpu;

/* Route the Hyper-V MSR range to user space; -1 with `err` if KVM cannot. */
int msr_setup(struct vm *vm, char *err, size_t errlen);
void msr_handle(struct vcpu *v);

#endif
