// SPDX-License-Identifier: MIT
/*
 * hv: the whole guest-side test of the Hyper-V layer, in the order a guest
 * meets it: hv-features (CPUID, MSRs, hypercall page, refused-call
 * statuses), hv-ipi (exact IPI delivery), hv-flush (remote TLB flush with a
 * negative control). Each part is also a suite of its own. Without Hyper-V
 * (--no-hyperv) only the features part runs: it reports the SKIP and checks
 * that the MSRs #GP.
 */
#include "lib/hv.h"
#include "lib/hvtest.h"
#include "suite.h"

static void suite_hv(const char *arg)
{
	(void)arg;
	hv_features_part();
	if (!hv_detect())
		return;
	hv_ipi_part();
	hv_flush_part();
}

DEFINE_SUITE(20, suite_hv, "hv", false, NULL,
	     "Hyper-V layer: all of hv-features, hv-ipi, hv-flush");
