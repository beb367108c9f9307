/* SPDX-License-Identifier: MIT */
/*
 * KVM steal time and the "preempted" flag (Linux Documentation/virt/kvm/
 * x86/msr.rst, MSR_KVM_STEAL_TIME). Each vCPU registers a 64-byte record;
 * the host adds the time the vCPU was runnable but not running to `steal`
 * (bumping `version` to odd before and to even after), and sets bit 0 of
 * `preempted` while the vCPU is off its CPU (KVM on involuntary preemption,
 * minivmm while it holds a vCPU out: docs/pvtime.md).
 *
 * Records live in .bss, which the identity map makes user-accessible, so
 * every reader here works at CPL3 as well as CPL0; only enabling (WRMSR)
 * needs CPL0.
 */
#ifndef GUEST_LIB_PVTIME_H
#define GUEST_LIB_PVTIME_H

#include "lib/atomic.h"
#include "lib/layout.h"
#include "lib/types.h"

/* KVM's leaves sit at 0x40000000, or further up behind another hypervisor's. */
#define KVM_CPUID_SCAN_FIRST	0x40000000u
#define KVM_CPUID_SCAN_LAST	0x4000ff00u
#define KVM_CPUID_SCAN_STEP	0x100u
#define KVM_FEATURE_ASYNC_PF	4		/* bits in EAX of base + 1 */
#define KVM_FEATURE_STEAL_TIME	5
#define KVM_FEATURE_ASYNC_PF_INT 14

/* Async page faults (msr.rst): the record, its vector, the acknowledgement. */
#define MSR_KVM_ASYNC_PF_EN	0x4b564d02u
#define MSR_KVM_ASYNC_PF_INT	0x4b564d06u
#define MSR_KVM_ASYNC_PF_ACK	0x4b564d07u
#define KVM_ASYNC_PF_ENABLED	(1ull << 0)
#define KVM_ASYNC_PF_DELIVERY_AS_INT (1ull << 3)
#define KVM_ASYNC_PF_WAKE_ALL	0xffffffffu	/* the token of "every page is ready" */

#define MSR_KVM_STEAL_TIME	0x4b564d03u
#define KVM_MSR_ENABLED		((u64)1)

#define KVM_VCPU_PREEMPTED	(1u << 0)
#define KVM_VCPU_FLUSH_TLB	(1u << 1)	/* the guest's bit; the host acts on entry */

/* The guest's copy of struct kvm_steal_time: same layout, one line. */
struct pv_steal_time {
	u64 steal;		/* ns runnable but not running, host-accumulated */
	u32 version;		/* odd while the host writes */
	u32 flags;
	u8 preempted;		/* KVM_VCPU_PREEMPTED | KVM_VCPU_FLUSH_TLB */
	u8 pad8[3];
	u32 pad[11];
} __aligned(64);

extern struct pv_steal_time pv_steal[GUEST_MAX_VCPUS];

/* The guest's copy of struct kvm_vcpu_pv_apf_data; the host writes `token`. */
struct pv_apf_data {
	u32 flags;
	u32 token;		/* "page ready" token; the guest zeroes it, then ACKs */
	u8 pad[56];
	u32 enabled;
} __aligned(64);

/* CPUID base of KVM's leaves ("KVMKVMKVM\0\0\0"), or 0 when there are none. */
u32 pvtime_kvm_base(void);
/* KVM_CPUID_FEATURES.EAX, 0 without KVM leaves. */
u32 pvtime_kvm_features(void);

/*
 * Register pv_steal[cpu] on every online vCPU (smp_call, CPL0) and check the
 * MSR reads back. Idempotent. 0 on success; otherwise -1 and `why` says what
 * is missing or which vCPU refused.
 */
int pvtime_enable_all(char *why, size_t len);
bool pvtime_enabled(u32 cpu);

/* A consistent snapshot: `version` even and unchanged around the read. */
struct pv_steal_snap {
	u64 steal;
	u32 version;
	u32 retries;		/* how many times an update got in the way */
};

#define PVTIME_READ_MAX_RETRIES	1000000u

/* False when the version stayed odd or kept moving for too long (a host bug). */
bool pvtime_read(u32 cpu, struct pv_steal_snap *s);

/* The byte as it is now (both bits). */
static inline u8 pvtime_preempted_byte(u32 cpu)
{
	return READ_ONCE(pv_steal[cpu].preempted);
}

/*
 * Is `cpu` off its physical CPU right now? Three ways to get the answer,
 * compared by the preempt-call suite:
 *  - inline: the load and test at the call site;
 *  - vcpu_is_preempted(): an ordinary out-of-line C call, so the caller
 *    must assume RAX, RCX, RDX, RSI, RDI, R8-R11 are clobbered;
 *  - vcpu_is_preempted_thunked(): the same C function behind an assembly
 *    thunk that saves and restores RDI, RSI, RDX, RCX, R8, R9, R10, R11, so
 *    the call site loses only RAX (the result) and the flags. This is the
 *    convention Linux uses for pv_ops.lock.vcpu_is_preempted.
 * `cpu` must be below GUEST_MAX_VCPUS.
 */
static inline bool vcpu_is_preempted_inline(u32 cpu)
{
	return READ_ONCE(pv_steal[cpu].preempted) & KVM_VCPU_PREEMPTED;
}

bool vcpu_is_preempted(u32 cpu);

static inline bool vcpu_is_preempted_thunked(u32 cpu)
{
	bool ret;

	asm volatile("call vcpu_is_preempted_thunk"
		     : "=a"(ret) : "D"((u64)cpu) : "cc", "memory");
	return ret;
}

/*
 * A control request to the VMM (MVM_PORT_CTRL, struct mvm_ctrl): returns the
 * status the VMM wrote back, or PVTIME_CTRL_UNANSWERED if it wrote none.
 * MVM_CTRL_PAUSE_VCPU holds vCPU arg0 out of guest mode for arg1 us with its
 * preempted flag published, and returns once the hold has begun. Any CPL.
 */
#define PVTIME_CTRL_UNANSWERED	0x5a5a5a5a
s32 mvm_ctrl(u32 op, u64 arg0, u64 arg1);

#endif /* GUEST_LIB_PVTIME_H */
