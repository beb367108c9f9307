// SPDX-License-Identifier: MIT
/* --preempt's schedule: the grid of due times, the banner text, the vCPU check. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/preempt.h"

START_TEST(test_next_due_on_the_grid)
{
	const uint64_t ms = 1000000;

	/* Not yet due: the same time. */
	ck_assert_uint_eq(preempt_next_due(10 * ms, 3 * ms, 5 * ms), 10 * ms);
	/* Due now or a little late: one period on. */
	ck_assert_uint_eq(preempt_next_due(10 * ms, 10 * ms, 5 * ms), 15 * ms);
	ck_assert_uint_eq(preempt_next_due(10 * ms, 12 * ms, 5 * ms), 15 * ms);
	/* Three periods late: the rounds missed are skipped, not run back to back. */
	ck_assert_uint_eq(preempt_next_due(10 * ms, 26 * ms, 5 * ms), 30 * ms);
	ck_assert_uint_eq(preempt_next_due(10 * ms, 25 * ms, 5 * ms), 30 * ms);
	/* No period: never. */
	ck_assert_uint_eq(preempt_next_due(10 * ms, 26 * ms, 0), UINT64_MAX);
}
END_TEST

START_TEST(test_describe)
{
	struct preempt_spec p;
	char out[160];

	memset(&p, 0, sizeof(p));
	p.nr = 3;
	p.vcpu[0] = 1;
	p.vcpu[1] = 2;
	p.vcpu[2] = 3;
	p.hold_us = 500;
	p.every_us = 5000;
	preempt_describe(&p, out, sizeof(out));
	ck_assert_str_eq(out, "vCPUs 1,2,3 held 500 us every 5000 us");
	p.nr = 1;
	preempt_describe(&p, out, sizeof(out));
	ck_assert_str_eq(out, "vCPU 1 held 500 us every 5000 us");
	p.hidden = true;
	preempt_describe(&p, out, sizeof(out));
	ck_assert_str_eq(out, "vCPU 1 held 500 us every 5000 us, preempted NOT published");
	/* A short buffer is cut, never overrun. */
	preempt_describe(&p, out, 8);
	ck_assert_str_eq(out, "vCPU 1 ");
}
END_TEST

START_TEST(test_check_vcpus_exist)
{
	struct preempt_spec p;
	char err[160] = "";

	memset(&p, 0, sizeof(p));
	ck_assert_int_eq(preempt_check(&p, 1, err, sizeof(err)), 0);	/* off */
	p.nr = 2;
	p.vcpu[0] = 1;
	p.vcpu[1] = 3;
	ck_assert_int_eq(preempt_check(&p, 4, err, sizeof(err)), 0);
	ck_assert_int_eq(preempt_check(&p, 3, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--preempt: vCPU 3 does not exist (--cpus 3: vCPUs 0..2)");
}
END_TEST

static Suite *preempt_suite(void)
{
	Suite *s = suite_create("preempt");
	TCase *tc = tcase_create("schedule");

	tcase_add_test(tc, test_next_due_on_the_grid);
	tcase_add_test(tc, test_describe);
	tcase_add_test(tc, test_check_vcpus_exist);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(preempt_suite);
