// SPDX-License-Identifier: MIT
/*
 * hv: the Hyper-V groundwork end to end. Detect the leaves, enable the
 * hypercall page, then send a call code nobody implements through each of
 * the three encodings: the VMM must answer HV_STATUS_INVALID_HYPERCALL_CODE
 * and change nothing but RAX. Skips when the VMM runs with --no-hyperv.
 */
#include "lib/boot.h"
#include "lib/hv.h"
#include "lib/report.h"
#include "suite.h"

#define HV_UNKNOWN_CALL		0x7fffull
#define HV_STATUS_MASK		0xffffull

static void check_status(const char *name, u64 result)
{
	report_why((result & HV_STATUS_MASK) == HV_STATUS_INVALID_HYPERCALL_CODE, name,
		   "result 0x%lx, expected status 0x%x", result, HV_STATUS_INVALID_HYPERCALL_CODE);
}

static void suite_hv(const char *arg)
{
	static const u64 xmm_in[14] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };
	static u64 in_page[512] __aligned(4096);
	const char *why = "";

	(void)arg;
	if (!hv_detect()) {
		report_skip("Hyper-V CPUID leaves", "not present (minivmm --no-hyperv?)");
		return;
	}
	report_pass("Hyper-V CPUID leaves present");
	if (!report_why(!hv_enable_hypercalls(&why), "hypercall page enabled", "%s", why))
		return;
	check_status("unknown call code, regular", hv_hcall(HV_UNKNOWN_CALL,
				(uintptr_t)in_page, 0));
	check_status("unknown call code, fast", hv_hcall_fast(HV_UNKNOWN_CALL, 1, 2));
	if (!hv_xmm_input_available() || !(boot_info->features & MVM_F_HV_XMM_INPUT)) {
		report_skip("unknown call code, XMM fast", "XMM input not advertised");
		return;
	}
	check_status("unknown call code, XMM fast", hv_hcall_xmm(HV_UNKNOWN_CALL, xmm_in));
}

DEFINE_SUITE(20, suite_hv, "hv", false, NULL,
	     "Hyper-V leaves, hypercall page, unknown code in all three encodings");
