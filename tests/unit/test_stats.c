// SPDX-License-Identifier: MIT
/* VMM-side statistics: the latency histogram, hypercall slots and status buckets. */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/stats.h"

START_TEST(test_lat_hist)
{
	static struct lat_hist h;
	uint64_t p50, p99;

	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1; v <= 1000; v++)
		lat_record(&h, v * 100);
	ck_assert_uint_eq(h.count, 1000);
	ck_assert_uint_eq(h.min, 100);
	ck_assert_uint_eq(h.max, 100000);
	p50 = lat_percentile(&h, 50);
	p99 = lat_percentile(&h, 99);
	/* Buckets are at most 1/16 wide: the estimate is within ~7%. */
	ck_assert_uint_ge(p50, 50000);
	ck_assert_uint_le(p50, 50000 + 50000 / 14);
	ck_assert_uint_ge(p99, 99000);
	ck_assert_uint_le(p99, 100000);
	ck_assert_uint_eq(lat_percentile(&h, 100), 100000);
	ck_assert_uint_eq(lat_percentile(&h, 0), 100);
}
END_TEST

START_TEST(test_lat_small_and_huge)
{
	static struct lat_hist h;

	memset(&h, 0, sizeof(h));
	lat_record(&h, 3);
	ck_assert_uint_eq(lat_percentile(&h, 50), 3);
	lat_record(&h, 1ULL << 50);	/* past the last bucket: clamped, not lost */
	ck_assert_uint_eq(h.count, 2);
	ck_assert_uint_eq(lat_percentile(&h, 100), 1ULL << 50);
}
END_TEST

/* The per-call slots come from hv/calls.c's table, in its order; other codes share the last. */
START_TEST(test_stats_hcall_slots)
{
	ck_assert_uint_eq(STATS_HCALL_SLOTS, HV_NR_CALLS + 1);
	for (unsigned int i = 0; i < HV_NR_CALLS; i++) {
		uint16_t code = stats_hcall_slot_code(i);

		ck_assert_uint_ne(code, 0);
		ck_assert_ptr_nonnull(hv_call_name(code));
		ck_assert_uint_eq(stats_hcall_slot(code), i);
	}
	ck_assert_uint_eq(stats_hcall_slot(HVCALL_SEND_IPI_EX), hv_call_index(HVCALL_SEND_IPI_EX));
	ck_assert_uint_eq(stats_hcall_slot(0x1), STATS_HCALL_SLOTS - 1);
	ck_assert_uint_eq(stats_hcall_slot(0xffff), STATS_HCALL_SLOTS - 1);
	ck_assert_uint_eq(stats_hcall_slot_code(STATS_HCALL_SLOTS - 1), 0);
	ck_assert_ptr_null(hv_call_name(stats_hcall_slot_code(STATS_HCALL_SLOTS - 1)));
}
END_TEST

START_TEST(test_stats_status_buckets)
{
	ck_assert_uint_eq(stats_hcall_status_bucket(HV_STATUS_SUCCESS), 0);
	ck_assert_uint_eq(stats_hcall_status_bucket(HV_STATUS_INVALID_HYPERCALL_INPUT),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(stats_hcall_status_bucket(STATS_HCALL_STATUS_BUCKETS - 2),
			  STATS_HCALL_STATUS_BUCKETS - 2);
	ck_assert_uint_eq(stats_hcall_status_bucket(STATS_HCALL_STATUS_BUCKETS - 1),
			  STATS_HCALL_STATUS_BUCKETS - 1);
	ck_assert_uint_eq(stats_hcall_status_bucket(0x1d), STATS_HCALL_STATUS_BUCKETS - 1);
	ck_assert_uint_eq(stats_hcall_status_bucket(0xffff), STATS_HCALL_STATUS_BUCKETS - 1);
}
END_TEST

/* One definition of the encodings: hv/'s enum and names are the ABI's. */
START_TEST(test_stats_encoding_names)
{
	ck_assert_int_eq(HV_ENC_XMM_FAST, MVM_HV_ENC_XMM_FAST);
	ck_assert_str_eq(hv_encoding_name(HV_ENC_REGULAR), MVM_HV_ENC_NAME_REGULAR);
	ck_assert_str_eq(hv_encoding_name(HV_ENC_FAST), MVM_HV_ENC_NAME_FAST);
	ck_assert_str_eq(hv_encoding_name(HV_ENC_XMM_FAST), MVM_HV_ENC_NAME_XMM_FAST);
	ck_assert_ptr_null(hv_encoding_name(HV_ENC_COUNT));
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("histogram");

	tcase_add_test(tc, test_lat_hist);
	tcase_add_test(tc, test_lat_small_and_huge);
	tcase_add_test(tc, test_stats_hcall_slots);
	tcase_add_test(tc, test_stats_status_buckets);
	tcase_add_test(tc, test_stats_encoding_names);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(stats_suite);
