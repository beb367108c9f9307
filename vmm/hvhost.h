/* SPDX-License-Identifier: MIT */
#ifndef VMM_HVHOST_H
#define VMM_HVHOST_H

#include <stddef.h>

struct vm;

/* Create vm->hv with minivmm's host ops and claim the hypercall trap port. */
int hvhost_create(struct vm *vm, char *err, size_t errlen);

#endif
