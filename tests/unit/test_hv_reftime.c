// SPDX-License-Identifier: MIT
/*
 * hv/reftime.c through the fake host: TIME_REF_COUNT and REFERENCE_TSC
 * exist only with ref_time (CPUID bits 1 and 9 with them); with a stable
 * TSC the page holds the exact scale and an offset that continues the
 * host-clock time, and the MSR then agrees with the page to the tick; with
 * an unstable one the page says sequence 0 and the MSR keeps the host
 * clock; bad pages or writes keep the old state.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

#define TSC_HZ		2100000000ull
/* floor(2^64 * 10^7 / 2.1e9), from Python's integers. */
#define SCALE_2100MHZ	87841638446235960ull
#define REF_GPA		0x5000ull
#define REF_BITS	(HV_MSR_TIME_REF_COUNT_AVAILABLE | HV_MSR_REFERENCE_TSC_AVAILABLE)

static struct hv_config cfg_ref(bool on)
{
	return (struct hv_config){
		.nr_vcpus = NR_SMALL, .ref_time = on, .tsc_hz = on ? TSC_HZ : 0,
	};
}

static struct hv *new_hv(const struct hv_config *cfg, bool stable, struct fake_host **hp)
{
	struct fake_host *h = fake_new();
	struct hv *hv = hv_create(cfg, &fake_ops, h);

	ck_assert_ptr_nonnull(hv);
	h->tsc_stable = stable;
	*hp = h;
	return hv;
}

static uint32_t features_eax(struct hv *hv)
{
	struct hv_cpuid_leaf l[6];

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 6), 6);
	return l[HV_CPUID_FEATURES - HV_CPUID_VENDOR_AND_MAX].eax;
}

static struct hv_ref_tsc_page page_at(const struct fake_host *h, uint64_t gpa)
{
	struct hv_ref_tsc_page p;

	memcpy(&p, h->ram + gpa, sizeof(p));
	return p;
}

static uint64_t ref_count(struct hv *hv, unsigned int vcpu)
{
	uint64_t v = 0;

	ck_assert(hv_msr_read(hv, vcpu, HV_X64_MSR_TIME_REF_COUNT, &v) == HV_MSR_OK);
	return v;
}

/* What a guest computes from the page and its TSC. */
static uint64_t page_time(const struct hv_ref_tsc_page *p, uint64_t tsc)
{
	return (uint64_t)(((unsigned __int128)tsc * p->scale) >> 64) + (uint64_t)p->offset;
}

START_TEST(test_off_is_absent)
{
	struct hv_config cfg = cfg_ref(false);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	uint64_t v = 7;

	ck_assert_uint_eq(features_eax(hv) & REF_BITS, 0);
	ck_assert(hv_msr_read(hv, 0, HV_X64_MSR_TIME_REF_COUNT, &v) == HV_MSR_GP);
	ck_assert(hv_msr_read(hv, 0, HV_X64_MSR_REFERENCE_TSC, &v) == HV_MSR_GP);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_GP);
	ck_assert_uint_eq(v, 7);
	ck_assert_uint_eq(h->writes, 0);
	ck_assert_uint_eq(h->clock_reads, 0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

START_TEST(test_needs_clock_ops)
{
	struct hv_config cfg = cfg_ref(true);
	struct hv_host_ops ops = fake_ops;
	struct hv *hv;

	ops.read_clock = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	ops = fake_ops;
	ops.tsc_stable = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	ops.read_clock = NULL;
	cfg.ref_time = false;
	hv = hv_create(&cfg, &ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
}
END_TEST

START_TEST(test_cpuid_bits)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);

	ck_assert_uint_eq(features_eax(hv), HV_MSR_HYPERCALL_AVAILABLE |
			  HV_MSR_VP_INDEX_AVAILABLE | REF_BITS);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* Before any page: the host clock in 100 ns units, from the reading vCPU. */
START_TEST(test_count_from_host_clock)
{
	static const uint64_t ns[] = { 0, 99, 100, 123456789, ~0ull };
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	uint64_t v;

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		h->ns = ns[i];
		h->tsc[3] = 0xdeadbeef;
		ck_assert_uint_eq(ref_count(hv, 3), ns[i] / 100);
	}
	ck_assert(hv_msr_write(hv, 3, HV_X64_MSR_TIME_REF_COUNT, 5) == HV_MSR_GP);
	h->clock_ret = -1;
	ck_assert(hv_msr_read(hv, 3, HV_X64_MSR_TIME_REF_COUNT, &v) == HV_MSR_GP);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/*
 * A stable TSC: sequence non-zero, the exact scale, an offset that makes the
 * page read the host time of the enabling sample, the rest of the page zero.
 */
START_TEST(test_stable_page)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	struct hv_ref_tsc_page p;
	uint64_t v = 1;

	memset(h->ram + REF_GPA, 0xa5, 4096);
	ck_assert(hv_msr_read(hv, 2, HV_X64_MSR_REFERENCE_TSC, &v) == HV_MSR_OK);
	ck_assert_uint_eq(v, 0);
	h->tsc[2] = 21000000000ull;	/* 10 s of TSC */
	h->ns = 12345678900ull;		/* 12.3456789 s of host time */
	ck_assert(hv_msr_write(hv, 2, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	p = page_at(h, REF_GPA);
	ck_assert_uint_ne(p.sequence, 0);
	ck_assert_uint_eq(p.reserved, 0);
	ck_assert_uint_eq(p.scale, SCALE_2100MHZ);
	/* 10 s of TSC is 99999999 ticks by the floored scale, not 10^8. */
	ck_assert_int_eq(p.offset, 123456789 - 99999999);
	ck_assert_uint_eq(page_time(&p, h->tsc[2]), 123456789);
	for (size_t i = sizeof(p); i < 4096; i++)
		ck_assert_uint_eq(h->ram[REF_GPA + i], 0);
	ck_assert(hv_msr_read(hv, 0, HV_X64_MSR_REFERENCE_TSC, &v) == HV_MSR_OK);
	ck_assert_uint_eq(v, REF_GPA | 1);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* Once the page is valid the MSR is the page's formula on the reader's TSC. */
START_TEST(test_stable_msr_follows_page)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	struct hv_ref_tsc_page p;

	h->tsc[0] = 5000;
	h->ns = 777700;
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	p = page_at(h, REF_GPA);
	h->ns = 0;	/* the host clock is no longer read */
	for (uint64_t t = 5000; t < (1ull << 62); t = t * 3 + 7) {
		h->tsc[1] = t;
		ck_assert_uint_eq(ref_count(hv, 1), page_time(&p, t));
	}
	/* Disabled: back to the host clock; the page's bytes stay as they were. */
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA) == HV_MSR_OK);
	h->ns = 4242400;
	ck_assert_uint_eq(ref_count(hv, 1), 42424);
	ck_assert_uint_eq(page_at(h, REF_GPA).scale, SCALE_2100MHZ);
	ck_assert_uint_eq(h->writes, 1);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* An unstable TSC: sequence 0 ("use the MSR"), and the MSR keeps the host clock. */
START_TEST(test_unstable_page)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, false, &h);
	struct hv_ref_tsc_page p;

	memset(h->ram + REF_GPA, 0xa5, 4096);
	h->tsc[0] = 1ull << 40;
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	p = page_at(h, REF_GPA);
	ck_assert_uint_eq(p.sequence, 0);
	ck_assert_uint_eq(p.scale, 0);
	ck_assert_int_eq(p.offset, 0);
	h->ns = 98765400;
	ck_assert_uint_eq(ref_count(hv, 0), 987654);
	/* Stable later: a new enable gives a valid page with a new sequence. */
	h->tsc_stable = true;
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	ck_assert_uint_ne(page_at(h, REF_GPA).sequence, 0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* No TSC rate known: the page cannot be valid, whatever the host says. */
START_TEST(test_no_rate)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv;

	cfg.tsc_hz = 0;
	hv = new_hv(&cfg, true, &h);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	ck_assert_uint_eq(page_at(h, REF_GPA).sequence, 0);
	h->ns = 1000;
	ck_assert_uint_eq(ref_count(hv, 0), 10);
	hv_set_tsc_hz(hv, TSC_HZ);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	ck_assert_uint_eq(page_at(h, REF_GPA).scale, SCALE_2100MHZ);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* RsvdP bits 11:1 read back; disabling writes nothing; re-enabling moves the page. */
START_TEST(test_rsvdp_disable_move)
{
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	uint64_t v = 0;
	uint32_t seq;

	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 0xffe) == HV_MSR_OK);
	ck_assert_uint_eq(h->writes, 0);
	ck_assert(hv_msr_read(hv, 0, HV_X64_MSR_REFERENCE_TSC, &v) == HV_MSR_OK);
	ck_assert_uint_eq(v, REF_GPA | 0xffe);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 0xfff) == HV_MSR_OK);
	seq = page_at(h, REF_GPA).sequence;
	ck_assert_uint_ne(seq, 0);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, 0) == HV_MSR_OK);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, 2 * REF_GPA | 1) == HV_MSR_OK);
	ck_assert_uint_eq(page_at(h, 2 * REF_GPA).scale, SCALE_2100MHZ);
	ck_assert_uint_ne(page_at(h, 2 * REF_GPA).sequence, seq);
	ck_assert_uint_eq(h->writes, 2);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* A page past RAM's end, or a failed clock sample: #GP and the old state. */
START_TEST(test_bad_enable_keeps_state)
{
	static const uint64_t bad[] = { RAM_SIZE | 1, (RAM_SIZE + 4096) | 0xfff, ~0xfffull | 1 };
	struct hv_config cfg = cfg_ref(true);
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, true, &h);
	struct hv_ref_tsc_page p;
	uint64_t v = 0;

	h->tsc[0] = 1000;
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
	p = page_at(h, REF_GPA);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, bad[i]) == HV_MSR_GP,
			      "0x%llx", (unsigned long long)bad[i]);
		ck_assert(hv_msr_read(hv, 0, HV_X64_MSR_REFERENCE_TSC, &v) == HV_MSR_OK);
		ck_assert_uint_eq(v, REF_GPA | 1);
	}
	h->clock_ret = -1;
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, 2 * REF_GPA | 1) == HV_MSR_GP);
	ck_assert_uint_eq(page_at(h, 2 * REF_GPA).sequence, 0);
	h->clock_ret = 0;
	/* The MSR still follows the page that is in force. */
	h->tsc[0] = 3000000;
	ck_assert_uint_eq(ref_count(hv, 0), page_time(&p, 3000000));
	/* The last page of RAM is fine. */
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, (RAM_SIZE - 4096) | 1) ==
		  HV_MSR_OK);
	ck_assert_uint_eq(page_at(h, RAM_SIZE - 4096).scale, SCALE_2100MHZ);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* At any rate the page is within a tick of 10^7 * TSC / rate (offset 0 here). */
START_TEST(test_scale_precision)
{
	static const uint64_t rates[] = { 10000001ull, 1000000000ull, 2999999999ull,
					  4294967296ull, 5000000000000ull };

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct hv_config cfg = cfg_ref(true);
		struct fake_host *h;
		struct hv *hv;
		struct hv_ref_tsc_page p;

		cfg.tsc_hz = rates[r];
		hv = new_hv(&cfg, true, &h);
		ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_REFERENCE_TSC, REF_GPA | 1) == HV_MSR_OK);
		p = page_at(h, REF_GPA);
		ck_assert_int_eq(p.offset, 0);
		for (uint64_t t = 1; t < (1ull << 62); t = t * 3 + 7) {
			unsigned __int128 exact = (unsigned __int128)t * HV_REF_TIME_HZ / rates[r];

			ck_assert(exact - page_time(&p, t) <= 1);
		}
		hv_destroy(hv);
		fake_free(h);
	}
}
END_TEST

static Suite *hv_reftime_suite(void)
{
	Suite *s = suite_create("hv_reftime");
	TCase *tc = tcase_create("switch");

	tcase_add_test(tc, test_off_is_absent);
	tcase_add_test(tc, test_needs_clock_ops);
	tcase_add_test(tc, test_cpuid_bits);
	tcase_add_test(tc, test_count_from_host_clock);
	suite_add_tcase(s, tc);
	tc = tcase_create("page");
	tcase_add_test(tc, test_stable_page);
	tcase_add_test(tc, test_stable_msr_follows_page);
	tcase_add_test(tc, test_unstable_page);
	tcase_add_test(tc, test_no_rate);
	tcase_add_test(tc, test_rsvdp_disable_move);
	tcase_add_test(tc, test_bad_enable_keeps_state);
	tcase_add_test(tc, test_scale_precision);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_reftime_suite);
