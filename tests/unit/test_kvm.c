// SPDX-License-Identifier: MIT
/*
 * vmm/kvm.c's host facts that need no /dev/kvm: which host clocksources
 * let KVM run its master clock, the rule by which Linux is offered the
 * reference TSC page (vmm/hvhost.c).
 */
#include <check.h>

#include "tests/unit/suites.h"
#include "vmm/kvm.h"

START_TEST(test_clocksource_tsc_based)
{
	ck_assert(kvm_clocksource_is_tsc("tsc"));
	ck_assert(kvm_clocksource_is_tsc("tsc-early"));	/* a host still booting */
	ck_assert(kvm_clocksource_is_tsc("hyperv_clocksource_tsc_page"));
}
END_TEST

START_TEST(test_clocksource_not_tsc)
{
	/* The nested test bed's (hpet), a KVM guest's, and what an unreadable sysfs gives. */
	ck_assert(!kvm_clocksource_is_tsc("hpet"));
	ck_assert(!kvm_clocksource_is_tsc("acpi_pm"));
	ck_assert(!kvm_clocksource_is_tsc("kvm-clock"));
	ck_assert(!kvm_clocksource_is_tsc("tsc "));
	ck_assert(!kvm_clocksource_is_tsc("unknown"));
	ck_assert(!kvm_clocksource_is_tsc(""));
}
END_TEST

static Suite *kvm_suite(void)
{
	Suite *s = suite_create("kvm");
	TCase *tc = tcase_create("clocksource");

	tcase_add_test(tc, test_clocksource_tsc_based);
	tcase_add_test(tc, test_clocksource_not_tsc);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(kvm_suite);
