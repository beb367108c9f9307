/* SPDX-License-Identifier: MIT */
/*
 * Hyper-V groundwork: detection, the hypercall page, and the three calling
 * conventions (docs/guest.md, docs/hyperv.md). Each call
 * returns the hypercall result value (RAX): status in bits 15:0, reps
 * completed in 43:32. Call only after hv_enable_hypercalls() returned 0,
 * at CPL0: the TLFS allows hypercalls from CPL0 only.
 */
#ifndef GUEST_LIB_HV_H
#define GUEST_LIB_HV_H

#include <hv/tlfs.h>

#include "lib/types.h"

/* CPUID 0x40000000 says "Microsoft Hv" and 0x40000001 says "Hv#1". */
bool hv_detect(void);

/*
 * KVM's in-kernel Hyper-V serves this guest (minivmm --hv-impl kvm,
 * MVM_F_HV_KVM): its page holds VMCALL or VMMCALL, and where KVM reads the
 * TLFS differently the hv suites expect KVM's answer and say so.
 */
bool hv_kvm_serves(void);

/* Hypercall MSRs advertised (0x40000003.EAX bit 5). */
bool hv_hypercall_msrs_available(void);

/* 0x40000003.EDX bit 4. */
bool hv_xmm_input_available(void);

/*
 * Write a nonzero guest OS ID, then point HV_X64_MSR_HYPERCALL at our page
 * with the enable bit, and check the VMM filled it. 0 on success; on failure
 * a negative value and *why says what went wrong.
 */
int hv_enable_hypercalls(const char **why);
bool hv_hypercalls_enabled(void);

/* RCX = control, RDX = input GPA, R8 = output GPA. */
u64 hv_hcall(u64 control, u64 in_gpa, u64 out_gpa);
/* Fast bit set; RDX = a, R8 = b. */
u64 hv_hcall_fast(u64 control, u64 a, u64 b);
/* Fast bit set; RDX = in[0], R8 = in[1], XMM0..5 = in[2..13] (low qword first). */
u64 hv_hcall_xmm(u64 control, const u64 in[14]);
/* The same, loading only XMM0..N-1 from in[2..2N+1]: for inputs of at most 16 + 16N bytes. */
u64 hv_hcall_xmm1(u64 control, const u64 in[4]);
u64 hv_hcall_xmm2(u64 control, const u64 in[6]);
u64 hv_hcall_xmm3(u64 control, const u64 in[8]);
u64 hv_hcall_xmm4(u64 control, const u64 in[10]);
u64 hv_hcall_xmm5(u64 control, const u64 in[12]);

/* The page the VMM fills with the calling sequence (hv_call.S calls it). */
extern u8 hv_hypercall_page[4096];

#endif /* GUEST_LIB_HV_H */
