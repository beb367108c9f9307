/* SPDX-License-Identifier: MIT */
/*
 * Interrupt vectors 32..255: one handler per vector, shared by all vCPUs.
 * The dispatcher sends the x2APIC EOI after the handler returns (except for
 * the spurious vector), so handlers only do their own work.
 */
#ifndef GUEST_LIB_IRQ_H
#define GUEST_LIB_IRQ_H

#include "lib/trap.h"

typedef void (*irq_handler_t)(struct trap_frame *tf);

/* 0 on success; -1 for an exception or library-reserved vector. */
int irq_register(unsigned int vector, irq_handler_t handler);
void irq_unregister(unsigned int vector);

/* Library internals: registration of reserved vectors, and dispatch. */
void irq_register_reserved(unsigned int vector, irq_handler_t handler);
bool irq_dispatch(struct trap_frame *tf);

#endif /* GUEST_LIB_IRQ_H */
