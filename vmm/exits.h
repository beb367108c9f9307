/* SPDX-License-Identifier: MIT */
#ifndef VMM_EXITS_H
#define VMM_EXITS_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* Handle the exit in vcpu->run; true when the vCPU must stop. t0: return TSC. */
bool exits_handle(struct vcpu *v, uint64_t t0);

#endif
