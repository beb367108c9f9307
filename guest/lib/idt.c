// SPDX-License-Identifier: MIT
/*
 * The IDT: 256 interrupt gates (IF cleared on entry) into entry.S's stubs.
 * #DF and #MC get IST1 and NMI IST2, so they run on a known-good stack.
 * The only DPL3 gate is #BP: run_user() returns from CPL3 with int3.
 */
#include "lib/idt.h"
#include "lib/layout.h"
#include "lib/trap.h"
#include "lib/types.h"

#define GATE_INTR	0x8e	/* present, DPL0, 64-bit interrupt gate */
#define GATE_DPL3	0x60

/* A 16-byte gate as two quadwords: built with a few shifts, stored in two moves. */
struct gate {
	u64 lo;		/* offset 15:0, selector, IST, type, offset 31:16 */
	u64 hi;		/* offset 63:32 */
};

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

extern const u8 trap_stubs[];
extern const u8 user_return_entry[];

static struct gate idt[256] __aligned(16);

static void set_gate(unsigned int v, const void *handler, u64 ist, u64 type)
{
	u64 a = (uintptr_t)handler;

	idt[v].lo = (a & 0xffff) | ((u64)KERNEL_CS << 16) | (ist << 32) | (type << 40) |
		    ((a >> 16 & 0xffff) << 48);
	idt[v].hi = a >> 32;
}

/* ~10 instructions a gate: this loop is most of the emulated boot path on kvm_pvm. */
void idt_build(void)
{
	BUILD_BUG_ON(sizeof(struct gate) != 16);

	for (unsigned int v = 0; v < 256; v++)
		set_gate(v, trap_stubs + 16 * v, 0, GATE_INTR);
	set_gate(DF_VECTOR, trap_stubs + 16 * DF_VECTOR, IST_DF, GATE_INTR);
	set_gate(MC_VECTOR, trap_stubs + 16 * MC_VECTOR, IST_DF, GATE_INTR);
	set_gate(NMI_VECTOR, trap_stubs + 16 * NMI_VECTOR, IST_NMI, GATE_INTR);
	set_gate(BP_VECTOR, user_return_entry, 0, GATE_INTR | GATE_DPL3);
}

static void lidt(u16 limit, const void *base)
{
	struct desc_ptr ptr = { limit, (uintptr_t)base };

	asm volatile("lidt %0" : : "m"(ptr) : "memory");
}

void idt_load(void)
{
	lidt(sizeof(idt) - 1, idt);
}

void idt_load_empty(void)
{
	lidt(0, NULL);
}
