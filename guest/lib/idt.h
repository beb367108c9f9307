/* SPDX-License-Identifier: MIT */
#ifndef GUEST_LIB_IDT_H
#define GUEST_LIB_IDT_H

/*
 * One IDT shared by all vCPUs: idt_build() fills it once (vCPU 0, before
 * the others start using it), idt_load() runs on every vCPU.
 */
void idt_build(void);
void idt_load(void);

/* Load an IDT with limit 0: the next exception triple-faults the vCPU. */
void idt_load_empty(void);

#endif /* GUEST_LIB_IDT_H */
