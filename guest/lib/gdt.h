/* SPDX-License-Identifier: MIT */
#ifndef GUEST_LIB_GDT_H
#define GUEST_LIB_GDT_H

#include "lib/percpu.h"

/*
 * Build and load this vCPU's GDT (kernel and user code/data, TSS) and TSS
 * (RSP0 = kernel stack top, IST1 = #DF/#MC stack, IST2 = NMI stack).
 */
void gdt_init(struct percpu *pc);

#endif /* GUEST_LIB_GDT_H */
