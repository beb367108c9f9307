// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/kvm.h>
#include <asm/kvm_para.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "minivmm/abi.h"
#include "vmm/errmsg.h"
#include "vmm/x86.h"

#define PTE_P		0x001ULL
#define PTE_RW		0x002ULL
#define PTE_US		0x004ULL
#define PTE_PS		0x080ULL
#define PTE_ADDR	0x000ffffffffff000ULL
#define PTE_FLAGS	(PTE_P | PTE_RW | PTE_US)	/* U/S: CPL3 may run anything */

#define PDPT_GPA	(MVM_PML4_GPA + 0x1000)
#define PT0_GPA		(MVM_PML4_GPA + 0x2000)
#define PD_GPA(i)	(MVM_PML4_GPA + 0x3000 + (uint64_t)(i) * 0x1000)
#define NR_PDS		(MVM_IDMAP_END >> 30)

#define TSS_GPA		(MVM_GDT_GPA + 0x100)
#define TSS_LIMIT	0x67
#define BOOT_TR		0x18

/* Boot GDT: null, 64-bit code, data, a 16-byte TSS descriptor. */
static void setup_gdt(struct guest_mem *mem)
{
	uint64_t *gdt = mem_gpa_to_host(mem, MVM_GDT_GPA, 5 * 8);
	uint64_t tss = TSS_GPA;

	gdt[0] = 0;
	gdt[1] = 0x00af9b000000ffffULL;	/* P, DPL0, code exec/read, L */
	gdt[2] = 0x00cf93000000ffffULL;	/* P, DPL0, data read/write, 4 GiB */
	gdt[3] = TSS_LIMIT | ((tss & 0xffffff) << 16) | (0x89ULL << 40) |
		 ((tss >> 24 & 0xff) << 56);
	gdt[4] = tss >> 32;
}

static void setup_page_tables(struct guest_mem *mem)
{
	uint64_t *pml4 = mem_gpa_to_host(mem, MVM_PML4_GPA, 0x1000);
	uint64_t *pdpt = mem_gpa_to_host(mem, PDPT_GPA, 0x1000);
	uint64_t *pt0 = mem_gpa_to_host(mem, PT0_GPA, 0x1000);

	memset(pml4, 0, 0x1000);
	memset(pdpt, 0, 0x1000);
	pml4[0] = PDPT_GPA | PTE_FLAGS;
	for (uint64_t i = 0; i < NR_PDS; i++) {
		uint64_t *pd = mem_gpa_to_host(mem, PD_GPA(i), 0x1000);

		pdpt[i] = PD_GPA(i) | PTE_FLAGS;
		for (uint64_t j = 0; j < 512; j++)
			pd[j] = ((i << 30) + (j << 21)) | PTE_FLAGS | PTE_PS;
	}
	/* The first 2 MiB in 4 KiB pages so that page 0 can stay unmapped. */
	pt0[0] = 0;
	for (uint64_t j = 1; j < 512; j++)
		pt0[j] = (j << 12) | PTE_FLAGS;
	((uint64_t *)mem_gpa_to_host(mem, PD_GPA(0), 8))[0] = PT0_GPA | PTE_FLAGS;
}

int x86_setup_memory(struct guest_mem *mem)
{
	_Static_assert(PD_GPA(NR_PDS) <= MVM_RESERVED_END, "page tables overflow the reserved area");
	if (mem->size < MVM_RESERVED_END)
		return -1;
	setup_gdt(mem);
	setup_page_tables(mem);
	return 0;
}

static void set_seg(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
	s->l = code;
	s->db = !code;
}

static void boot_sregs(struct kvm_sregs *sr)
{
	set_seg(&sr->cs, MVM_BOOT_CS, 11, true);
	set_seg(&sr->ds, MVM_BOOT_DS, 3, false);
	sr->es = sr->fs = sr->gs = sr->ss = sr->ds;
	memset(&sr->tr, 0, sizeof(sr->tr));
	sr->tr.selector = BOOT_TR;
	sr->tr.base = TSS_GPA;
	sr->tr.limit = TSS_LIMIT;
	sr->tr.type = 11;		/* busy 64-bit TSS */
	sr->tr.present = 1;
	memset(&sr->ldt, 0, sizeof(sr->ldt));
	sr->ldt.type = 2;
	sr->ldt.unusable = 1;
	sr->gdt.base = MVM_GDT_GPA;
	sr->gdt.limit = 5 * 8 - 1;
	sr->idt.base = 0;
	sr->idt.limit = 0;		/* no IDT until the payload loads one */
	sr->cr0 = X86_CR0_BOOT;
	sr->cr3 = MVM_PML4_GPA;
	sr->cr4 = X86_CR4_BOOT;
	sr->efer = X86_EFER_BOOT;
}

/*
 * Segments and control registers from `fill` (on top of what KVM has), then
 * the general registers. `what` names the state in errors.
 */
static int load_state(int vcpu_fd, unsigned int index, void (*fill)(struct kvm_sregs *),
		      const struct kvm_regs *regs, const char *what, char *err, size_t errlen)
{
	struct kvm_sregs sr;

	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sr))
		return errmsg(err, errlen, "vCPU %u: KVM_GET_SREGS: %s", index, strerror(errno));
	fill(&sr);
	if (ioctl(vcpu_fd, KVM_SET_SREGS, &sr))
		return errmsg(err, errlen, "vCPU %u: KVM_SET_SREGS (%s): %s", index, what,
			      strerror(errno));
	if (ioctl(vcpu_fd, KVM_SET_REGS, regs))
		return errmsg(err, errlen, "vCPU %u: KVM_SET_REGS: %s", index, strerror(errno));
	return 0;
}

/*
 * Multiboot's machine state (and any 32-bit flat entry's): 32-bit protected
 * mode, paging off, flat 4 GiB code and data segments. The kernel loads its
 * own GDT before touching a selector, so the GDTR, like the selectors'
 * values, is left undefined (zero) as the Multiboot spec allows.
 */
static void flat32_sregs(struct kvm_sregs *sr)
{
	set_seg(&sr->cs, MVM_BOOT_CS, 11, false);
	set_seg(&sr->ds, MVM_BOOT_DS, 3, false);
	sr->es = sr->fs = sr->gs = sr->ss = sr->ds;
	memset(&sr->tr, 0, sizeof(sr->tr));
	sr->tr.limit = 0xffff;
	sr->tr.type = 11;		/* busy 32-bit TSS: VM entry wants a usable TR */
	sr->tr.present = 1;
	memset(&sr->ldt, 0, sizeof(sr->ldt));
	sr->ldt.type = 2;
	sr->ldt.unusable = 1;
	memset(&sr->gdt, 0, sizeof(sr->gdt));
	memset(&sr->idt, 0, sizeof(sr->idt));
	sr->cr0 = X86_CR0_PE | X86_CR0_ET;
	sr->cr3 = 0;
	sr->cr4 = 0;
	sr->efer = 0;
}

/* A real-mode segment: base = selector << 4, 64 KiB, as after a reset. */
static void real_seg(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){ .base = (uint64_t)sel << 4, .limit = 0xffff, .selector = sel,
				   .type = type, .present = 1, .s = 1 };
}

int x86_real_mode_sregs(int vcpu_fd, uint32_t vector)
{
	struct kvm_sregs sr;

	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sr))
		return -1;
	real_seg(&sr.cs, (uint16_t)(vector >> 4), 11);
	real_seg(&sr.ds, 0, 3);
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	memset(&sr.tr, 0, sizeof(sr.tr));
	sr.tr.limit = 0xffff;
	sr.tr.type = 11;
	sr.tr.present = 1;
	memset(&sr.ldt, 0, sizeof(sr.ldt));
	sr.ldt.type = 2;
	sr.ldt.unusable = 1;
	sr.gdt = (struct kvm_dtable){ .limit = 0xffff };
	sr.idt = (struct kvm_dtable){ .limit = 0x3ff };	/* the real-mode IVT at 0 */
	sr.cr0 = X86_CR0_ET;
	sr.cr2 = sr.cr3 = sr.cr4 = 0;
	sr.efer = 0;
	return ioctl(vcpu_fd, KVM_SET_SREGS, &sr);
}

int x86_init_vcpu(int vcpu_fd, const struct image_entry *e, unsigned int index,
		  char *err, size_t errlen)
{
	/* IF and VM clear, as Multiboot requires and a 64-bit payload expects. */
	struct kvm_regs regs = {
		.rip = e->rip, .rax = e->rax, .rbx = e->rbx, .rsi = e->rsi,
		.rdi = e->all_vcpus ? index : 0, .rflags = 0x2,
	};
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

	if (load_state(vcpu_fd, index, e->mode == IMAGE_ENTRY_LONG64 ? boot_sregs : flat32_sregs,
		       &regs, e->what, err, errlen))
		return -1;
	if (!e->all_vcpus)
		return 0;
	/* With an in-kernel LAPIC, APs would otherwise wait for INIT/SIPI. */
	if (ioctl(vcpu_fd, KVM_SET_MP_STATE, &mp)) {
		snprintf(err, errlen, "vCPU %u: KVM_SET_MP_STATE: %s", index, strerror(errno));
		return -1;
	}
	return 0;
}

/* Bits 63:47 all equal: a 4-level GVA; any other is not mapped (the CPU raises #GP). */
static bool x86_canonical(uint64_t gva)
{
	return ((int64_t)(gva << 16) >> 16) == (int64_t)gva;
}

int x86_gva_to_gpa(const struct guest_mem *mem, uint64_t cr3, uint64_t gva, uint64_t *gpa)
{
	uint64_t table = cr3 & PTE_ADDR, e;

	if (!x86_canonical(gva))
		return -1;
	for (int level = 3; level >= 0; level--) {
		unsigned int idx = (gva >> (12 + 9 * level)) & 511;

		if (mem_read(mem, table + idx * 8, &e, 8) || !(e & PTE_P))
			return -1;
		if (level == 3 && (e & PTE_PS))
			return -1;	/* reserved in a PML4E: the CPU faults */
		if (level && (e & PTE_PS)) {
			uint64_t size = 1ULL << (12 + 9 * level);

			*gpa = (e & PTE_ADDR & ~(size - 1)) | (gva & (size - 1));
			return 0;
		}
		table = e & PTE_ADDR;
	}
	*gpa = table | (gva & 0xfff);
	return 0;
}

int x86_read_gva(const struct guest_mem *mem, uint64_t cr3, uint64_t gva, void *dst, size_t len)
{
	uint8_t *out = dst;

	/* Page by page: contiguous guest-virtual bytes need not be contiguous in RAM. */
	while (len) {
		size_t chunk = MVM_PAGE_SIZE - (gva & (MVM_PAGE_SIZE - 1));
		uint64_t gpa;

		if (chunk > len)
			chunk = len;
		if (x86_gva_to_gpa(mem, cr3, gva, &gpa) || mem_read(mem, gpa, out, chunk))
			return -1;
		gva += chunk;
		out += chunk;
		len -= chunk;
	}
	return 0;
}

int x86_read_linear(const struct guest_mem *mem, const struct kvm_sregs *s, uint64_t la,
		    void *dst, size_t len)
{
	if (!(s->cr0 & X86_CR0_PG))
		return mem_read(mem, la, dst, len);
	/* Only the 4-level tables x86_gva_to_gpa walks: not 32-bit paging, not 5 levels. */
	if (!(s->efer & X86_EFER_LMA) || (s->cr4 & X86_CR4_LA57))
		return -1;
	return x86_read_gva(mem, s->cr3, la, dst, len);
}

unsigned int x86_read_stack(const struct guest_mem *mem, const struct kvm_sregs *s,
			    uint64_t rsp, uint64_t *words, unsigned int max)
{
	bool bits64 = (s->efer & X86_EFER_LMA) && s->cs.l;
	/* Outside 64-bit code the stack is SS-relative (ESP; SP as its low half). */
	uint64_t la = bits64 ? rsp : s->ss.base + (uint32_t)rsp;
	unsigned int n;

	for (n = 0; n < max; n++)
		if (x86_read_linear(mem, s, la + 8ull * n, &words[n], sizeof(words[n])))
			break;
	return n;
}

void x86_sregs_keep_svm_tr(struct kvm_sregs *sr, bool svm)
{
	if (svm && sr->tr.type == X86_TSS_BUSY)
		sr->tr.type = X86_TSS_AVAILABLE;
}
