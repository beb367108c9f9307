// SPDX-License-Identifier: MIT
/* hv/core.c and hv/calls.c: creating a partition, and the names of calls and encodings. */
#include <check.h>
#include <string.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

START_TEST(test_create_rejects)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct hv_host_ops ops = fake_ops;
	struct hv *hv;

	cfg.nr_vcpus = 0;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.nr_vcpus = HV_MAX_VP_INDEX + 1;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.nr_vcpus = HV_MAX_VP_INDEX;
	hv = hv_create(&cfg, &fake_ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
	/* The first VP index: a multiple of 64 with every vCPU's index below 4096. */
	cfg.vp_base = 64;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.nr_vcpus = HV_MAX_VP_INDEX - 64;
	hv = hv_create(&cfg, &fake_ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
	cfg.vp_base = 32;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.vp_base = 0;

	ops.read_xmm = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	cfg.xmm_input = false;
	hv = hv_create(&cfg, &ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
	ops.flush_vcpus = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	ck_assert_ptr_null(hv_create(NULL, &fake_ops, NULL));
	hv_destroy(NULL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(hv_call_name(0x2), "FlushVirtualAddressSpace");
	ck_assert_str_eq(hv_call_name(0x3), "FlushVirtualAddressList");
	ck_assert_str_eq(hv_call_name(0xb), "SendSyntheticClusterIpi");
	ck_assert_str_eq(hv_call_name(0x13), "FlushVirtualAddressSpaceEx");
	ck_assert_str_eq(hv_call_name(0x14), "FlushVirtualAddressListEx");
	ck_assert_str_eq(hv_call_name(0x15), "SendSyntheticClusterIpiEx");
	ck_assert_ptr_null(hv_call_name(0x1));
	ck_assert_ptr_null(hv_call_name(0xffff));
	ck_assert_str_eq(hv_encoding_name(HV_ENC_REGULAR), "regular");
	ck_assert_str_eq(hv_encoding_name(HV_ENC_FAST), "fast");
	ck_assert_str_eq(hv_encoding_name(HV_ENC_XMM_FAST), "xmm-fast");
	ck_assert_ptr_null(hv_encoding_name(HV_ENC_COUNT));
}
END_TEST

static Suite *hv_core_suite(void)
{
	Suite *s = suite_create("hv_core");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_create_rejects);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_core_suite);
