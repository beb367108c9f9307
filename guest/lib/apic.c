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
 * A WRMSR to the x2APIC ICR is not serializing, so stores made before it
 * (a mailbox, a flag) could become visible after the IPI lands: fence them
 * first (SDM "x2APIC Register Address Space"). mfence/lfence are SSE2
 * encodings that kvm_pvm may not emulate at CPL0; there the ICR write traps
 * to the emulator anyway, and a locked add orders the stores.
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
