// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/layout.h"

bool apic_x2apic_supported(void)
{
	return cpuid(1).ecx & (1u << 21);
}

void apic_init(void)
{
	u64 base = rdmsr(MSR_IA32_APICBASE);

	/* Disabled -> x2APIC directly is an illegal transition (#GP). */
	if (!(base & APICBASE_ENABLE)) {
		base |= APICBASE_ENABLE;
		wrmsr(MSR_IA32_APICBASE, base);
	}
	if (!(base & APICBASE_X2APIC_ENABLE))
		wrmsr(MSR_IA32_APICBASE, base | APICBASE_X2APIC_ENABLE);
	wrmsr(MSR_X2APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
}

/*
 * A WRMSR to the x2APIC ICR is not serializing on Intel, so stores made
 * before it (a mailbox, a barrier's sense) could become visible after the
 * IPI lands: MFENCE drains them, LFENCE keeps the WRMSR from starting
 * before (SDM "x2APIC Register Address Space"; Linux's weak_wrmsr_fence()).
 * AMD's are serializing; the fence costs little there. On kvm_pvm every
 * CPL0 instruction, this WRMSR included, is emulated one after the other,
 * which orders them already; the locked add keeps the rule visible with an
 * instruction any emulator has (KVM's has long lacked the register forms
 * of MFENCE/LFENCE, though this session's kvm_pvm ran them).
 */
static inline void icr_fence(void)
{
	if (boot_backend == MVM_BACKEND_PVM)
		asm volatile("lock addl $0, (%%rsp)" ::: "memory", "cc");
	else
		asm volatile("mfence; lfence" ::: "memory");
}

void apic_send_ipi(u32 dest_apic_id, u8 vector)
{
	icr_fence();
	wrmsr(MSR_X2APIC_ICR, ((u64)dest_apic_id << 32) | APIC_ICR_LEVEL_ASSERT |
			      APIC_ICR_FIXED | vector);
}

void apic_send_ipi_all_but_self(u8 vector)
{
	icr_fence();
	wrmsr(MSR_X2APIC_ICR, APIC_ICR_ALL_BUT_SELF | APIC_ICR_LEVEL_ASSERT | APIC_ICR_FIXED | vector);
}
