/* SPDX-License-Identifier: MIT */
/* x86 boot state: page tables, GDT, registers for 64-bit entry; the guest page walk. */
#ifndef VMM_X86_H
#define VMM_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/image.h"
#include "vmm/mem.h"

struct kvm_sregs;

#define X86_CR0_BOOT	0x80050033ULL	/* PG | WP | NE | ET | MP | PE */
#define X86_CR4_BOOT	0x620ULL	/* OSXMMEXCPT | OSFXSR | PAE */
#define X86_EFER_BOOT	0xd01ULL	/* NXE | LMA | LME | SCE */
#define X86_CR4_PGE	(1ULL << 7)
#define X86_CR4_LA57	(1ULL << 12)
#define X86_EFER_LMA	(1ULL << 10)
#define X86_CR0_PE	1ULL
#define X86_CR0_PG	(1ULL << 31)
#define X86_CR0_ET	0x10ULL

/* Write the boot GDT, TSS and identity page tables into the reserved area. */
int x86_setup_memory(struct guest_mem *mem);
/*
 * The segment and control registers of real mode at `vector` (CS = vector
 * >> 4; the caller sets IP = vector & 0xf), paging and protection off,
 * IDTR at the IVT: how firmware resumes a sleeping machine at the FACS
 * waking vector. 0, or -1 with errno.
 */
int x86_real_mode_sregs(int vcpu_fd, uint32_t vector);
/*
 * Registers and segments for the loader's entry state: 64-bit on the boot
 * tables, or 32-bit flat with paging off; the registers the format set, RDI
 * = index when every vCPU enters, and then runnable. A vCPU the caller
 * leaves alone stays in its reset state, which KVM's in-kernel LAPIC starts
 * in real mode on the guest's INIT/SIPI.
 */
int x86_init_vcpu(int vcpu_fd, const struct image_entry *e, unsigned int index,
		  char *err, size_t errlen);

/*
 * Walk the guest's 4-level page tables (4 KiB, 2 MiB and 1 GiB pages) to the
 * GPA of `gva`; -1 if a GVA is not canonical, an entry is not present, a
 * PML4E has PS set, or a table lies outside RAM. The GPA itself may lie
 * outside RAM: reading it is the caller's bounds-checked mem_read().
 */
int x86_gva_to_gpa(const struct guest_mem *mem, uint64_t cr3, uint64_t gva, uint64_t *gpa);
/* Copy guest-virtual bytes through those tables (may cross pages); 0 or -1. */
int x86_read_gva(const struct guest_mem *mem, uint64_t cr3, uint64_t gva, void *dst, size_t len);
/*
 * Copy from a linear address in the vCPU's current paging mode: paging off,
 * the address is the GPA; 4-level paging, through CR3. 0, or -1 (also for
 * 32-bit and 5-level paging, which are not walked).
 */
int x86_read_linear(const struct guest_mem *mem, const struct kvm_sregs *s, uint64_t la,
		    void *dst, size_t len);

/*
 * Up to `max` 8-byte words from the stack at `rsp` (SS-relative outside
 * 64-bit code), through x86_read_linear: how many were read, stopping at
 * the first that cannot be (a crash report shows what it can, e.g. a stack
 * that ends at an unmapped page).
 */
unsigned int x86_read_stack(const struct guest_mem *mem, const struct kvm_sregs *s,
			    uint64_t rsp, uint64_t *words, unsigned int max);

/* TSS descriptor types (the 32-bit and the 64-bit TSS share them). */
#define X86_TSS_AVAILABLE	9
#define X86_TSS_BUSY		11

/*
 * Before KVM_SET_SREGS writes back what KVM_GET_SREGS read on SVM: give TR
 * the type the VMCB held. KVM's SVM code reports TR as busy whatever the
 * VMCB says (svm_get_segment), because after the guest's own LTR the VMCB
 * holds an available TSS; a round trip would mark it busy. Hardware ignores
 * TR's type outside task switches, but QEMU's TCG checks a CPL3 `in`/`out`
 * against the TSS I/O bitmap only when TR is an available TSS (check_io):
 * with a busy TR every port the guest allowed with ioperm() raises #GP
 * (measured, docs/robustness.md). Nothing changes on VMX or pvm.
 */
void x86_sregs_keep_svm_tr(struct kvm_sregs *sr, bool svm);

#endif
