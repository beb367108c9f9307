// SPDX-License-Identifier: MIT
/*
 * --hv-xmm-path auto's arithmetic and its line. Seen on VMX (Bochs, whose
 * TSC advances per instruction quantum): the spill block timed exactly like
 * the empty one and the banner claimed "guest spill 0.00 us". A native
 * VMX/SVM CPU, where a few stores hide in RDTSC's own noise, does the same.
 */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/xmm_calib.h"

#define TSC_KHZ	3500000ull	/* 3.5 GHz: 3500 cycles a microsecond */

START_TEST(test_spill_resolved)
{
	struct xmm_calib c = { .done = true, .walk_ns = 210, .get_fpu_ns = 2800 };
	char line[160];

	/* 7000 cycles more than the empty block: 2 us. */
	xmm_calib_set_spill(&c, 7100, 100, TSC_KHZ);
	ck_assert(c.spill_resolved);
	ck_assert_uint_eq(c.spill_ns, 2000);
	ck_assert(xmm_calib_prefers_spill(&c));
	xmm_calib_format(&c, true, line, sizeof(line));
	ck_assert_pstr_eq(line, "auto: guest spill 2.00 us + VMM walk 0.21 us <= KVM_GET_FPU 2.80 us "
			  "(medians of 15 alternated runs on vCPU 0)");
}
END_TEST

START_TEST(test_spill_costlier_than_ioctl)
{
	struct xmm_calib c = { .done = true, .walk_ns = 80, .get_fpu_ns = 2730 };

	/* kvm_pvm: the emulated stores cost ~11 us. */
	xmm_calib_set_spill(&c, 39100, 100, TSC_KHZ);
	ck_assert(c.spill_resolved);
	ck_assert_uint_eq(c.spill_ns, 11142);
	ck_assert(!xmm_calib_prefers_spill(&c));
}
END_TEST

START_TEST(test_spill_not_resolved_is_not_zero)
{
	struct xmm_calib c = { .done = true, .walk_ns = 210, .get_fpu_ns = 690 };
	char line[160];

	/* Equal medians (and a spill block timed faster): nothing measured. */
	for (int i = 0; i < 2; i++) {
		xmm_calib_set_spill(&c, i ? 90 : 100, 100, TSC_KHZ);
		ck_assert(!c.spill_resolved);
		ck_assert_uint_eq(c.spill_ns, 0);
		/* Below the TSC's resolution is cheap: the spill path still wins. */
		ck_assert(xmm_calib_prefers_spill(&c));
		xmm_calib_format(&c, true, line, sizeof(line));
		ck_assert_ptr_null(strstr(line, "0.00 us +"));
		ck_assert_ptr_nonnull(strstr(line, "guest spill not resolved by the TSC + VMM walk 0.21 us"));
	}
}
END_TEST

START_TEST(test_spill_tiny_is_not_zero)
{
	struct xmm_calib c = { .done = true, .walk_ns = 210, .get_fpu_ns = 690 };
	char line[160];

	/* Resolved, but 7 cycles (2 ns) would print as 0.00 us. */
	xmm_calib_set_spill(&c, 107, 100, TSC_KHZ);
	ck_assert(c.spill_resolved);
	ck_assert_uint_eq(c.spill_ns, 2);
	xmm_calib_format(&c, true, line, sizeof(line));
	ck_assert_ptr_null(strstr(line, "0.00 us +"));
	ck_assert_ptr_nonnull(strstr(line, "guest spill under 0.01 us + VMM walk"));
}
END_TEST

START_TEST(test_spill_no_tsc_rate)
{
	struct xmm_calib c = { 0 };

	/* Without a TSC rate no cycle count becomes time. */
	xmm_calib_set_spill(&c, 7100, 100, 0);
	ck_assert(!c.spill_resolved);
	ck_assert_uint_eq(c.spill_ns, 0);
}
END_TEST

static Suite *xmm_calib_suite(void)
{
	Suite *s = suite_create("xmm_calib");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_spill_resolved);
	tcase_add_test(tc, test_spill_costlier_than_ioctl);
	tcase_add_test(tc, test_spill_not_resolved_is_not_zero);
	tcase_add_test(tc, test_spill_tiny_is_not_zero);
	tcase_add_test(tc, test_spill_no_tsc_rate);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(xmm_calib_suite);
