/* SPDX-License-Identifier: MIT */
/* The local APIC in x2APIC mode: MSR access only, no MMIO page. */
#ifndef GUEST_LIB_APIC_H
#define GUEST_LIB_APIC_H

#include "lib/processor.h"
#include "lib/types.h"

#define MSR_IA32_APICBASE		0x1b
#define APICBASE_X2APIC_ENABLE		(1ull << 10)
#define APICBASE_ENABLE			(1ull << 11)

#define MSR_X2APIC_ID			0x802
#define MSR_X2APIC_EOI			0x80b
#define MSR_X2APIC_SVR			0x80f
#define MSR_X2APIC_ICR			0x830
#define MSR_X2APIC_SELF_IPI		0x83f
/* The timer: KVM's APIC bus runs at 1 GHz, so with TIMER_DIV_1 a tick is 1 ns. */
#define MSR_X2APIC_LVT_TIMER		0x832
#define MSR_X2APIC_TIMER_INIT		0x838
#define MSR_X2APIC_TIMER_CUR		0x839
#define MSR_X2APIC_TIMER_DIV		0x83e
#define LVT_MASKED			(1u << 16)
#define LVT_TIMER_PERIODIC		(1u << 17)
#define LVT_TIMER_TSC_DEADLINE		(2u << 17)
#define MSR_IA32_TSC_DEADLINE		0x6e0
#define CPUID_1_ECX_TSC_DEADLINE	(1u << 24)
#define TIMER_DIV_1			0xb

#define APIC_SVR_ENABLE			(1u << 8)
#define APIC_ICR_FIXED			(0u << 8)
#define APIC_ICR_LEVEL_ASSERT		(1u << 14)
#define APIC_ICR_ALL_BUT_SELF		(3u << 18)	/* destination shorthand */

/* CPUID.1:ECX.x2APIC */
bool apic_x2apic_supported(void);

/* Switch this vCPU's APIC to x2APIC mode and software-enable it. */
void apic_init(void);

static inline u32 apic_id(void)
{
	return (u32)rdmsr(MSR_X2APIC_ID);
}

static inline void apic_eoi(void)
{
	wrmsr(MSR_X2APIC_EOI, 0);
}

/* A fixed-delivery IPI with `vector` to one physical x2APIC ID. */
void apic_send_ipi(u32 dest_apic_id, u8 vector);

/* One fixed IPI to every other vCPU: a single ICR write, however many there are. */
void apic_send_ipi_all_but_self(u8 vector);

static inline void apic_self_ipi(u8 vector)
{
	wrmsr(MSR_X2APIC_SELF_IPI, vector);
}

#endif /* GUEST_LIB_APIC_H */
