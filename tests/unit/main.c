// SPDX-License-Identifier: MIT
/* One runner for every host unit suite (Check). */
#include <check.h>
#include <stdlib.h>

#include "tests/unit/suites.h"

int main(void)
{
	SRunner *sr = srunner_create(mem_suite());
	int failed;

	srunner_add_suite(sr, loader_suite());
	srunner_add_suite(sr, options_suite());
	srunner_add_suite(sr, bus_suite());
	srunner_add_suite(sr, stats_suite());
	srunner_add_suite(sr, results_suite());
	srunner_add_suite(sr, hv_suite());
	srunner_add_suite(sr, hv_page_suite());
	srunner_add_suite(sr, hv_linux_suite());
	srunner_add_suite(sr, ratelimit_suite());
	srunner_add_suite(sr, insn_out_suite());
	srunner_add_suite(sr, multiboot_suite());
	srunner_add_suite(sr, acpi_suite());
	srunner_add_suite(sr, devices_suite());
	srunner_add_suite(sr, sandbox_suite());
	srunner_add_suite(sr, vpset_suite());
	srunner_add_suite(sr, xmm_calib_suite());
	srunner_add_suite(sr, vcpu_hold_suite());
	srunner_add_suite(sr, resetstate_suite());
	srunner_add_suite(sr, cpuid_suite());
	srunner_add_suite(sr, linux_cmdline_suite());
	srunner_add_suite(sr, linux_bzimage_suite());
	srunner_add_suite(sr, linux_pvh_suite());
	srunner_add_suite(sr, linux_boot_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
