// SPDX-License-Identifier: MIT
/* hv/cpuid.c: the Hyper-V CPUID leaves, in full and with features withheld. */
#include <check.h>
#include <string.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

START_TEST(test_cpuid_full)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);
	struct hv_cpuid_leaf l[8];
	char vendor[13] = { 0 };

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 8), 6);
	ck_assert_uint_eq(l[0].function, 0x40000000);
	ck_assert_uint_eq(l[0].eax, 0x40000005);
	memcpy(vendor, &l[0].ebx, 4);
	memcpy(vendor + 4, &l[0].ecx, 4);
	memcpy(vendor + 8, &l[0].edx, 4);
	ck_assert_str_eq(vendor, "Microsoft Hv");
	ck_assert_uint_eq(l[1].function, 0x40000001);
	ck_assert_uint_eq(l[1].eax, 0x31237648);	/* "Hv#1" */
	ck_assert_uint_eq(l[2].function, 0x40000002);
	ck_assert_uint_eq(l[2].eax | l[2].ebx | l[2].ecx | l[2].edx, 0);
	ck_assert_uint_eq(l[3].function, 0x40000003);
	ck_assert_uint_eq(l[3].eax, (1u << 5) | (1u << 6));
	ck_assert_uint_eq(l[3].ebx, 0);
	ck_assert_uint_eq(l[3].edx, 1u << 4);
	ck_assert_uint_eq(l[4].function, 0x40000004);
	ck_assert_uint_eq(l[4].eax, (1u << 2) | (1u << 10) | (1u << 11));
	ck_assert_uint_eq(l[4].ebx, 0xffffffffu);
	ck_assert_uint_eq(l[5].function, 0x40000005);
	ck_assert_uint_eq(l[5].eax, NR_VCPUS);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_cpuid_options)
{
	struct hv_config cfg = {
		.nr_vcpus = 3, .ipi_hint = true, .ex_hint = false, .flush_hint = false,
	};
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);
	struct hv_cpuid_leaf l[6];

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 6), 6);
	ck_assert_uint_eq(l[3].edx, 0);			/* no XMM input */
	ck_assert_uint_eq(l[4].eax, 1u << 10);		/* IPI hint only */
	ck_assert_uint_eq(l[5].eax, 3);
	/* A short table gets the first leaves only. */
	memset(l, 0, sizeof(l));
	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 2), 2);
	ck_assert_uint_eq(l[1].function, 0x40000001);
	ck_assert_uint_eq(l[2].function, 0);
	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 0), 0);
	hv_destroy(hv);
	/* VP indexes from 64: 0x40000005.EAX bounds them, so it is 64 + 3. */
	cfg.vp_base = 64;
	hv = fake_hv(f, &cfg);
	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 6), 6);
	ck_assert_uint_eq(l[5].eax, 67);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

static Suite *hv_cpuid_suite(void)
{
	Suite *s = suite_create("hv_cpuid");
	TCase *tc = tcase_create("leaves");

	tcase_add_test(tc, test_cpuid_full);
	tcase_add_test(tc, test_cpuid_options);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_cpuid_suite);
