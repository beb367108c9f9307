// SPDX-License-Identifier: MIT
/* A Linux guest's command line and console events (vmm/linux_cmdline.c). */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/linux_cmdline.h"

START_TEST(test_default_then_args)
{
	char out[4096], err[256];

	ck_assert_int_eq(linux_cmdline_build("", 2047, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, LINUX_CMDLINE_DEFAULT);
	ck_assert_int_eq(linux_cmdline_build("quiet mvm.end=poweroff", 2047, out, sizeof(out),
					     err, sizeof(err)), 0);
	ck_assert_str_eq(out, LINUX_CMDLINE_DEFAULT " quiet mvm.end=poweroff");
}
END_TEST

START_TEST(test_too_long)
{
	char out[4096], err[256], args[2100];
	size_t def = strlen(LINUX_CMDLINE_DEFAULT);

	memset(args, 'x', sizeof(args) - 1);
	args[sizeof(args) - 1] = '\0';
	ck_assert_int_eq(linux_cmdline_build(args, 2047, out, sizeof(out), err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than the kernel's limit of 2047"));
	/* Exactly at the limit is fine. */
	args[2047 - def - 1] = '\0';
	ck_assert_int_eq(linux_cmdline_build(args, 2047, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_uint_eq(strlen(out), 2047);
}
END_TEST

START_TEST(test_console_events)
{
	static const char panic[] = "[    1.234] Kernel panic - not syncing: sysrq triggered crash";
	static const char end[] = "---[ end Kernel panic - not syncing: sysrq triggered crash ]---";
	static const char other[] = "Run /init as init process";

	ck_assert_int_eq(linux_console_classify(panic, strlen(panic)), LINUX_CONSOLE_PANIC);
	ck_assert_int_eq(linux_console_classify(end, strlen(end)), LINUX_CONSOLE_PANIC_END);
	ck_assert_int_eq(linux_console_classify(other, strlen(other)), LINUX_CONSOLE_NONE);
	/* Only the first len bytes count. */
	ck_assert_int_eq(linux_console_classify(panic, 20), LINUX_CONSOLE_NONE);
}
END_TEST

static Suite *linux_cmdline_suite(void)
{
	Suite *s = suite_create("linux_cmdline");
	TCase *tc = tcase_create("cmdline");

	tcase_add_test(tc, test_default_then_args);
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_console_events);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(linux_cmdline_suite);
