/* SPDX-License-Identifier: MIT */
/*
 * The hostile suite's parts (docs/robustness.md). Each hostile_*.c file owns
 * one kind of abuse; hostile.c runs them in order. All of them expect the
 * hypercall page to be enabled at the payload's own page when they start,
 * and leave it so.
 */
#ifndef GUEST_TESTS_HOSTILE_H
#define GUEST_TESTS_HOSTILE_H

#include <hv/tlfs.h>

#include "lib/hvdiff.h"
#include "lib/types.h"

#define HV_STATUS_MASK		0xffffull
#define HV_REPS_MASK		(0xfffull << HV_HCALL_RESULT_REPS_SHIFT)
#define HOSTILE_PAGE		4096ull

/* Build an input value from its fields. */
static inline u64 hcall_ctl(u16 code, u32 var_qwords, u32 rep_count, u32 rep_start)
{
	return code | ((u64)var_qwords << HV_HCALL_VARHEAD_SHIFT) |
	       ((u64)rep_count << HV_HCALL_REP_COUNT_SHIFT) |
	       ((u64)rep_start << HV_HCALL_REP_START_SHIFT);
}

/*
 * The whole result value must be exactly `status` with `reps` completed:
 * every other bit of RAX is 0 (TLFS). PASS/FAIL line; returns the verdict.
 */
bool hcall_expect(const char *name, u64 rax, u16 status, u32 reps);
/*
 * The same where KVM's Hyper-V (--hv-impl kvm) answers otherwise: it must
 * then give exactly kvm_status and kvm_reps, and the name says why (`v`).
 */
bool hcall_expect_kvm(const char *name, u64 rax, u16 status, u32 reps, u16 kvm_status,
		      u32 kvm_reps, enum hvd_verdict v);

/* RAM end (boot info) and the last page of RAM, free scratch space. */
u64 hostile_ram_end(void);
u8 *hostile_tail_page(void);

/*
 * Under KVM's Hyper-V: the LAPIC page (0xfee00000) is guest memory to KVM
 * (its private APIC-access page memslot, there where KVM virtualises APIC
 * accesses: seen with kvm_intel's flexpriority), so hypercall input reads
 * zeros there and a hypercall page may be put there. hostile_gpa finds out,
 * hostile_msr holds the HYPERCALL MSR to the same answer.
 */
#define HOSTILE_LAPIC_GPA	0xfee00000ull
extern bool hostile_kvm_apic_page_mapped;

/* A page-aligned scratch page in .bss for well-formed inputs. */
extern u64 hostile_in[512];

bool hostile_xmm(void);		/* XMM-fast input offered and advertised */

/*
 * Execute the hypercall trap instruction itself (not through the page;
 * KVM's VMCALL/VMMCALL under --hv-impl kvm), catching #UD: returns the
 * vector caught (EX_NONE if none); *rax is RAX before and after.
 */
int hostile_raw_trap(u64 control, u64 rdx, u64 r8, u64 *rax);

/* Re-enable the page at the payload's page; false (and a FAIL) if it fails. */
bool hostile_restore_page(void);

void hostile_gpa(void);
void hostile_banks(void);
void hostile_input(void);
void hostile_msr(void);
void hostile_io(void);
void hostile_cpl3(void);
void hostile_ctrl(void);

#endif /* GUEST_TESTS_HOSTILE_H */
