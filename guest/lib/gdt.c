// SPDX-License-Identifier: MIT
/*
 * Per-vCPU GDT and TSS. Each vCPU needs its own TSS (RSP0 and the IST
 * stacks are per-CPU, and LTR marks the descriptor busy), hence its own GDT.
 * The TSSes sit in groups that share one I/O bitmap (percpu.h).
 */
#include "lib/gdt.h"

/* Flat 64-bit segments: code has L=1; DPL in bits 45-46. */
#define SEG_KERNEL_CODE	0x00af9a000000ffffull
#define SEG_KERNEL_DATA	0x00cf92000000ffffull
#define SEG_USER_DATA	0x00cff2000000ffffull
#define SEG_USER_CODE	0x00affa000000ffffull
#define SEG_TSS_AVAIL	0x89ull		/* present, type 9: available 64-bit TSS */

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

/* The group's I/O bitmap, seen from this TSS. */
static u16 iomap_offset(const struct tss *tss, const struct tss_group *g)
{
	return (u16)((uintptr_t)g->io_bitmap - (uintptr_t)tss);
}

/* The limit covers the shared I/O bitmap and its terminator. */
static void tss_desc(u64 *d, const struct tss *tss)
{
	u64 base = (uintptr_t)tss;
	u64 limit = tss->iomap_base + IO_BITMAP_BYTES;

	d[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (SEG_TSS_AVAIL << 40) |
	       ((limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
	d[1] = base >> 32;
}

/* The bitmap, its last byte included, is zero from the VMM (bootmem.h): all ports allowed. */
static void tss_init(struct percpu *pc)
{
	struct tss *tss = percpu_tss(pc->cpu);
	const struct tss_group *g = (const struct tss_group *)((uintptr_t)tss & ~(uintptr_t)4095);

	tss->rsp0 = stack_top(pc->cpu, KERNEL_STACK_TOP);
	tss->ist[IST_DF - 1] = stack_top(pc->cpu, DF_STACK_TOP);
	tss->ist[IST_NMI - 1] = stack_top(pc->cpu, NMI_STACK_TOP);
	tss->iomap_base = iomap_offset(tss, g);
	pc->tss = tss;
}

/* Reload CS with a far return; the data segments with plain moves. */
static void load_segments(void)
{
	asm volatile("pushq %[cs]\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movl %[ds], %%eax\n\t"
		     "movl %%eax, %%ds\n\t"
		     "movl %%eax, %%es\n\t"
		     "movl %%eax, %%ss\n\t"
		     "xorl %%eax, %%eax\n\t"
		     "movl %%eax, %%fs\n\t"
		     "movl %%eax, %%gs"
		     : : [cs] "i"(KERNEL_CS), [ds] "i"(KERNEL_DS) : "rax", "memory");
}

void gdt_init(struct percpu *pc)
{
	struct desc_ptr ptr = { sizeof(pc->gdt) - 1, (uintptr_t)pc->gdt };
	u64 *gdt = pc->gdt;

	BUILD_BUG_ON(sizeof(struct tss) != 104);
	BUILD_BUG_ON(TSS_SEL / 8 + 2 != GDT_ENTRIES);

	gdt[0] = 0;
	gdt[KERNEL_CS / 8] = SEG_KERNEL_CODE;
	gdt[KERNEL_DS / 8] = SEG_KERNEL_DATA;
	gdt[USER_DS / 8] = SEG_USER_DATA;
	gdt[USER_CS / 8] = SEG_USER_CODE;
	tss_init(pc);
	tss_desc(&gdt[TSS_SEL / 8], pc->tss);

	asm volatile("lgdt %0" : : "m"(ptr) : "memory");
	load_segments();
	asm volatile("ltr %w0" : : "r"((u16)TSS_SEL) : "memory");
}
