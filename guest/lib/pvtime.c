// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/extable.h"
#include "lib/io.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/pvtime.h"
#include "lib/smp.h"
#include "lib/string.h"

BUILD_BUG_ON(sizeof(struct pv_steal_time) != 64);
BUILD_BUG_ON(offsetof(struct pv_steal_time, version) != 8);
BUILD_BUG_ON(offsetof(struct pv_steal_time, preempted) != 16);

struct pv_steal_time pv_steal[GUEST_MAX_VCPUS];

/* Set by each vCPU for itself once the MSR reads back what it wrote. */
static bool enabled[GUEST_MAX_VCPUS];

u32 pvtime_kvm_base(void)
{
	for (u32 base = KVM_CPUID_SCAN_FIRST; base <= KVM_CPUID_SCAN_LAST;
	     base += KVM_CPUID_SCAN_STEP) {
		struct cpuid_regs r = cpuid(base);
		char sig[13];

		memcpy(sig, &r.ebx, 4);
		memcpy(sig + 4, &r.ecx, 4);
		memcpy(sig + 8, &r.edx, 4);
		sig[12] = '\0';
		/* "KVMKVMKVM" then three NULs; the base must name its own features leaf. */
		if (!memcmp(sig, "KVMKVMKVM\0\0\0", 12) && r.eax >= base + 1)
			return base;
	}
	return 0;
}

u32 pvtime_kvm_features(void)
{
	u32 base = pvtime_kvm_base();

	return base ? cpuid(base + 1).eax : 0;
}

struct enable_result {
	int vector[GUEST_MAX_VCPUS];	/* EX_NONE, or what WRMSR/RDMSR raised */
	u64 readback[GUEST_MAX_VCPUS];
};

/* On the vCPU itself (CPL0): register its record and read the MSR back. */
static void enable_this_cpu(void *arg)
{
	struct enable_result *res = arg;
	u32 cpu = smp_id();
	u64 val = (u64)(uintptr_t)&pv_steal[cpu] | KVM_MSR_ENABLED;
	int v = wrmsr_safe(MSR_KVM_STEAL_TIME, val);

	if (v == EX_NONE)
		v = rdmsr_safe(MSR_KVM_STEAL_TIME, &res->readback[cpu]);
	res->vector[cpu] = v;
	if (v == EX_NONE && res->readback[cpu] == val)
		store_release(&enabled[cpu], true);
}

static bool all_enabled(void)
{
	for (u32 cpu = 0; cpu < GUEST_MAX_VCPUS; cpu++)
		if (smp_cpu_online(cpu) && !load_acquire(&enabled[cpu]))
			return false;
	return true;
}

int pvtime_enable_all(char *why, size_t len)
{
	static struct enable_result res;

	if (all_enabled())
		return 0;
	if (!(pvtime_kvm_features() & (1u << KVM_FEATURE_STEAL_TIME))) {
		snprintf(why, len, "KVM_FEATURE_STEAL_TIME not in CPUID 0x%x",
			 pvtime_kvm_base() ? pvtime_kvm_base() + 1 : KVM_CPUID_SCAN_FIRST + 1);
		return -1;
	}
	smp_call_all(enable_this_cpu, &res);
	for (u32 cpu = 0; cpu < GUEST_MAX_VCPUS; cpu++) {
		if (!smp_cpu_online(cpu) || load_acquire(&enabled[cpu]))
			continue;
		if (res.vector[cpu] != EX_NONE)
			snprintf(why, len, "vCPU %u: MSR_KVM_STEAL_TIME access raised vector %d",
				 cpu, res.vector[cpu]);
		else
			snprintf(why, len, "vCPU %u: MSR_KVM_STEAL_TIME reads 0x%lx, wrote 0x%lx",
				 cpu, res.readback[cpu],
				 (u64)(uintptr_t)&pv_steal[cpu] | KVM_MSR_ENABLED);
		return -1;
	}
	return 0;
}

bool pvtime_enabled(u32 cpu)
{
	return cpu < GUEST_MAX_VCPUS && load_acquire(&enabled[cpu]);
}

/*
 * The host writes version (odd), steal, version (even) in that order; x86
 * keeps loads in order, so only the compiler must be kept from reordering.
 */
bool pvtime_read(u32 cpu, struct pv_steal_snap *s)
{
	const struct pv_steal_time *st = &pv_steal[cpu];

	for (u32 tries = 0; tries <= PVTIME_READ_MAX_RETRIES; tries++) {
		u32 v = READ_ONCE(st->version);

		barrier();
		s->steal = READ_ONCE(st->steal);
		barrier();
		if (!(v & 1) && v == READ_ONCE(st->version)) {
			s->version = v;
			s->retries = tries;
			return true;
		}
		cpu_relax();
	}
	return false;
}

/* Out of line on purpose: this is the "plain C call" of the comparison. */
__attribute__((noinline)) bool vcpu_is_preempted(u32 cpu)
{
	return READ_ONCE(pv_steal[cpu].preempted) & KVM_VCPU_PREEMPTED;
}

s32 mvm_ctrl(u32 op, u64 arg0, u64 arg1)
{
	struct mvm_ctrl c = {
		.op = op, .status = PVTIME_CTRL_UNANSWERED, .arg0 = arg0, .arg1 = arg1,
	};

	/* The VMM reads and writes `c` behind the compiler's back. */
	barrier();
	outl(MVM_PORT_CTRL, (u32)(uintptr_t)&c);
	barrier();
	return READ_ONCE(c.status);
}
