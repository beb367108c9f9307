// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/processor.h"
#include "lib/string.h"

/* Open-source OS (bit 63), vendor/OS fields left 0: any nonzero value enables. */
#define HV_GUEST_OS_ID_MINIVMM	((1ull << 63) | 0x4d564dull)

/* In .bss: zero until the VMM writes its calling sequence into it. */
u8 hv_hypercall_page[4096] __aligned(4096);

static bool enabled;

static bool signature_is(const struct cpuid_regs *r, const char sig[12])
{
	u32 want[3];

	memcpy(want, sig, sizeof(want));
	return r->ebx == want[0] && r->ecx == want[1] && r->edx == want[2];
}

bool hv_detect(void)
{
	struct cpuid_regs r;

	if (!(cpuid(1).ecx & (1u << 31)))	/* hypervisor present */
		return false;
	r = cpuid(HV_CPUID_VENDOR_AND_MAX);
	if (!signature_is(&r, "Microsoft Hv") || r.eax < HV_CPUID_FEATURES)
		return false;
	return cpuid(HV_CPUID_INTERFACE).eax == HV_CPUID_SIGNATURE_EAX;
}

bool hv_kvm_serves(void)
{
	return boot_info->features & MVM_F_HV_KVM;
}

bool hv_hypercall_msrs_available(void)
{
	return hv_detect() && (cpuid(HV_CPUID_FEATURES).eax & HV_MSR_HYPERCALL_AVAILABLE);
}

bool hv_xmm_input_available(void)
{
	return hv_detect() &&
	       (cpuid(HV_CPUID_FEATURES).edx & HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE);
}

static bool page_filled(void)
{
	for (size_t i = 0; i < 64; i++)
		if (READ_ONCE(hv_hypercall_page[i]))
			return true;
	return false;
}

int hv_enable_hypercalls(const char **why)
{
	u64 gpa = (uintptr_t)hv_hypercall_page, val;

	if (!hv_hypercall_msrs_available()) {
		*why = "no Hyper-V CPUID leaves or hypercall MSRs not advertised";
		return -1;
	}
	if (wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, HV_GUEST_OS_ID_MINIVMM) != EX_NONE) {
		*why = "#GP writing HV_X64_MSR_GUEST_OS_ID";
		return -1;
	}
	if (wrmsr_safe(HV_X64_MSR_HYPERCALL, gpa | HV_HYPERCALL_ENABLE) != EX_NONE) {
		*why = "#GP writing HV_X64_MSR_HYPERCALL";
		return -1;
	}
	if (rdmsr_safe(HV_X64_MSR_HYPERCALL, &val) != EX_NONE ||
	    !(val & HV_HYPERCALL_ENABLE) || (val & ~0xfffull) != gpa) {
		*why = "HV_X64_MSR_HYPERCALL did not read back enabled at our page";
		return -1;
	}
	if (!page_filled()) {
		*why = "the VMM left the hypercall page empty";
		return -1;
	}
	enabled = true;
	return 0;
}

bool hv_hypercalls_enabled(void)
{
	return enabled;
}
