// SPDX-License-Identifier: MIT
/* The bus registry, the latency histogram and result-record validation. */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/bus.h"
#include "vmm/results.h"
#include "vmm/stats.h"

static unsigned int hits;
static uint64_t last_offset;
static bool last_write;

static void count_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		     unsigned int size, void *state)
{
	(void)v;
	(void)state;
	hits++;
	last_offset = offset;
	last_write = write;
	if (!write)
		memset(data, 0x5a, size);
}

static const struct bus_desc count_desc = {
	.name = "count", .kind = STATS_PIO_OTHER, .io = count_io,
};

START_TEST(test_bus_register_dispatch)
{
	struct bus bus;
	uint32_t val = 0;

	bus_init(&bus);
	hits = 0;
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x3f8, 8, &count_desc, NULL), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x3ff, 1, &count_desc, NULL), -1);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0xfffe, 4, &count_desc, NULL), -1);
	ck_assert_int_eq(bus_register(&bus, BUS_MMIO, 0x3f8, 8, &count_desc, NULL), 0);
	ck_assert_ptr_eq(bus_dispatch(&bus, NULL, BUS_PIO, 0x3fd, false, &val, 1),
			 &bus.ranges[BUS_PIO][0]);
	ck_assert_uint_eq(hits, 1);
	ck_assert_uint_eq(last_offset, 5);	/* the offset inside the range, not the port */
	ck_assert_uint_eq(val & 0xff, 0x5a);
	/* An access that straddles the end of the range is nobody's. */
	ck_assert_ptr_null(bus_dispatch(&bus, NULL, BUS_PIO, 0x3fe, false, &val, 4));
	ck_assert_ptr_null(bus_dispatch(&bus, NULL, BUS_PIO, 0x2f8, true, &val, 1));
	ck_assert_uint_eq(hits, 1);
	bus_destroy(&bus);
}
END_TEST

/* The flags are the bus's business: the handler never sees what they answer. */
START_TEST(test_bus_flags_and_kind)
{
	static const struct bus_desc wo = {
		.name = "wo", .kind = STATS_HCALL, .flags = BUS_F_WRITE_ONLY, .io = count_io,
	};
	static const struct bus_desc ro = {
		.name = "ro", .kind = STATS_PIO_NULL, .flags = BUS_F_READ_ONLY, .io = count_io,
	};
	static const struct bus_desc none = { .name = "none", .kind = STATS_MMIO_NULL };
	struct bus bus;
	uint32_t val = 0;

	bus_init(&bus);
	hits = 0;
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x10, 4, &wo, NULL), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x20, 4, &ro, NULL), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_MMIO, 0x1000, 0x1000, &none, NULL), 0);
	ck_assert_uint_eq(bus_dispatch(&bus, NULL, BUS_PIO, 0x10, false, &val, 4)->desc.kind,
			  STATS_HCALL);
	ck_assert_uint_eq(val, 0xffffffff);
	ck_assert_uint_eq(hits, 0);
	val = 7;
	ck_assert_ptr_nonnull(bus_dispatch(&bus, NULL, BUS_PIO, 0x12, true, &val, 2));
	ck_assert_uint_eq(hits, 1);
	ck_assert(last_write);
	ck_assert_uint_eq(last_offset, 2);
	ck_assert_ptr_nonnull(bus_dispatch(&bus, NULL, BUS_PIO, 0x20, true, &val, 4));
	ck_assert_uint_eq(hits, 1);		/* a write to a read-only range is dropped */
	ck_assert_ptr_nonnull(bus_dispatch(&bus, NULL, BUS_PIO, 0x20, false, &val, 4));
	ck_assert_uint_eq(hits, 2);
	ck_assert_uint_eq(val, 0x5a5a5a5a);
	/* No handler: reads all ones, writes dropped, the exit still counts as the range's kind. */
	val = 0;
	ck_assert_uint_eq(bus_dispatch(&bus, NULL, BUS_MMIO, 0x1ffc, false, &val, 4)->desc.kind,
			  STATS_MMIO_NULL);
	ck_assert_uint_eq(val, 0xffffffff);
	/* Unclaimed: a too-wide access keeps its device's kind; elsewhere, "other". */
	ck_assert_uint_eq(bus_unclaimed_kind(&bus, BUS_PIO, 0x23), STATS_PIO_NULL);
	ck_assert_uint_eq(bus_unclaimed_kind(&bus, BUS_PIO, 0x24), STATS_PIO_OTHER);
	ck_assert_uint_eq(bus_unclaimed_kind(&bus, BUS_MMIO, 0x2000), STATS_MMIO_OTHER);
	bus_destroy(&bus);
}
END_TEST

static unsigned int destroyed, stopped_mask;

static void count_destroy(void *state)
{
	(void)state;
	destroyed++;
}

static void note_stopped(void *state, unsigned int vcpu)
{
	(void)state;
	stopped_mask |= 1u << vcpu;
}

/* A device with two ranges and one state is freed once; the caller keeps a refused state. */
START_TEST(test_bus_owns_device_state)
{
	static const struct bus_desc dev = {
		.name = "dev", .io = count_io, .destroy = count_destroy, .vcpu_stopped = note_stopped,
	};
	struct bus bus;
	int a, b;

	bus_init(&bus);
	destroyed = 0;
	stopped_mask = 0;
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x10, 1, &dev, &a), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_MMIO, 0x10, 1, &dev, &a), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x20, 1, &dev, &b), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x10, 1, &dev, &b), -1);
	bus_vcpu_stopped(&bus, 3);
	ck_assert_uint_eq(stopped_mask, 1u << 3);
	bus_destroy(&bus);
	ck_assert_uint_eq(destroyed, 2);
}
END_TEST

START_TEST(test_bus_unclaimed_once)
{
	struct bus bus;
	uint32_t val = 0;

	bus_init(&bus);
	ck_assert(bus_unclaimed(&bus, BUS_PIO, 0x80, false, &val, 4));
	ck_assert_uint_eq(val, 0xffffffff);
	val = 0x1234;
	ck_assert(!bus_unclaimed(&bus, BUS_PIO, 0x80, true, &val, 4));
	ck_assert_uint_eq(val, 0x1234);		/* writes are dropped, data untouched */
	ck_assert(bus_unclaimed(&bus, BUS_MMIO, 0x80, true, &val, 4));	/* other space: new */
	ck_assert_uint_eq(atomic_load(&bus.unclaimed), 3);
	for (unsigned int i = 0; i < BUS_MAX_REPORTED + 10; i++)
		bus_unclaimed(&bus, BUS_PIO, 0x1000 + i, true, &val, 1);
	ck_assert_uint_eq(bus.nr_reported, BUS_MAX_REPORTED);
	ck_assert(bus.overflow_reported);
	ck_assert(!bus_unclaimed(&bus, BUS_PIO, 0x9999, true, &val, 1));
	ck_assert_uint_eq(atomic_load(&bus.unclaimed), 3 + BUS_MAX_REPORTED + 10 + 1);
	bus_destroy(&bus);
}
END_TEST

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

static struct mvm_result good_record(void)
{
	struct mvm_result r;

	memset(&r, 0, sizeof(r));
	r.abi_version = MVM_ABI_VERSION;
	r.size = sizeof(r);
	strcpy(r.suite, "vmexit");
	strcpy(r.name, "cpuid");
	r.iters = 10;
	r.min = 1;
	r.median = 2;
	r.p90 = 3;
	r.p99 = 4;
	r.max = 5;
	r.mean = 3;
	return r;
}

START_TEST(test_results_validate)
{
	struct mvm_result r = good_record();
	char why[128];

	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.median = 6;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "out of order"));
	r = good_record();
	memset(r.name, 'x', sizeof(r.name));
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "not NUL-terminated"));
	r = good_record();
	r.abi_version = 99;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = good_record();
	r.iters = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = good_record();
	r.cpl = 4;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
}
END_TEST

/*
 * Every reason, with the record guest/tests/hostile_records.c spoils the
 * same way: on stderr the VMM names only the first few rejections.
 */
START_TEST(test_results_validate_reasons)
{
	static const struct {
		const char *why;
		bool fill;		/* memset the field, else store val in it */
		size_t off, len;
		uint64_t val;
	} cases[] = {
#define SPOIL(fill, f, v, w) \
	{ w, fill, offsetof(struct mvm_result, f), sizeof(((struct mvm_result *)0)->f), v }
		SPOIL(false, abi_version, MVM_ABI_VERSION + 1, "ABI version differs from the VMM's"),
		SPOIL(false, size, 0xffffffff, "record size differs from the VMM's"),
		SPOIL(true, suite, 0, "suite name empty or not NUL-terminated"),
		SPOIL(true, suite, 'x', "suite name empty or not NUL-terminated"),
		SPOIL(true, name, 0, "case name empty or not NUL-terminated"),
		SPOIL(true, variant, 'x', "variant not NUL-terminated"),
		SPOIL(false, unit, MVM_UNIT_PER_SEC + 1, "unknown unit"),
		SPOIL(false, cpl, 4, "CPL above 3"),
		SPOIL(false, iters, 0, "zero iterations"),
		SPOIL(false, p99, 6, "statistics out of order"),
		SPOIL(false, mean, 0, "mean outside [min, max]"),
		SPOIL(false, mean, 6, "mean outside [min, max]"),
#undef SPOIL
	};
	char why[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mvm_result r = good_record();
		uint8_t *field = (uint8_t *)&r + cases[i].off;

		if (cases[i].fill)
			memset(field, (int)cases[i].val, cases[i].len);
		else	/* a u32 or u64 field: the low bytes of val (little-endian) */
			memcpy(field, &cases[i].val, cases[i].len);
		ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
		ck_assert_msg(strstr(why, cases[i].why), "case %zu: '%s', expected '%s'", i, why,
			      cases[i].why);
	}
}
END_TEST

/* A record from the interleaved harness: body, ratio and its spread. */
static struct mvm_result rounds_record(void)
{
	struct mvm_result r = good_record();

	r.flags = MVM_RESULT_BODY | MVM_RESULT_RATIO;
	r.body = 2;
	r.baseline_id = 1;
	r.rounds = 32;
	r.ratio = 10600;
	r.ratio_lo = 10200;
	r.ratio_hi = 10900;
	for (int k = 0; k < 32; k++) {
		r.round_median[k] = 2 + (k & 1);
		r.round_loop[k] = 1;
	}
	return r;
}

START_TEST(test_results_validate_rounds)
{
	struct mvm_result r = rounds_record();
	char why[128];

	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.ratio_hi = MVM_RATIO_INF;	/* a round whose baseline was in the noise */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r = rounds_record();
	r.ratio_lo = 10700;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "interquartile"));
	r = rounds_record();
	r.baseline_id = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.rounds = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags |= MVM_RESULT_IN_NOISE;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags = MVM_RESULT_IN_NOISE;	/* a body in the noise but a value set */
	r.ratio = r.ratio_lo = r.ratio_hi = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "without MVM_RESULT_BODY"));
	r.body = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.ratio = 10000;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.body = 6;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags |= 1u << 7;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.reserved = 1;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
}
END_TEST

/* ABI 4's per-round block medians: inside the row's range, nothing past `rounds`. */
START_TEST(test_results_validate_round_values)
{
	struct mvm_result r = rounds_record();
	char why[128];

	r.rounds = 20;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "per-round value past the record's rounds");
	for (int k = 20; k < 32; k++)
		r.round_median[k] = r.round_loop[k] = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.round_loop[20] = 1;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.round_median[5] = 6;	/* above max */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "a round's median outside [min, max]");
	r.round_median[5] = 0;	/* below min */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.rounds = 33;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "more rounds than the record holds values for");
	r = rounds_record();
	r.round_loop[0] = 999;	/* the loop's block medians are not bounded by the row's */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
}
END_TEST

START_TEST(test_results_format)
{
	struct mvm_result r = rounds_record();
	char buf[64];

	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.060x [1.020-1.090]");
	r.ratio_lo = 9995;	/* rounds to three decimals */
	r.ratio_hi = MVM_RATIO_INF;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.060x [1.000-inf]");
	r.ratio = 123456;
	r.ratio_hi = 4000000;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "12.346x [1.000-400.000]");
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2");
	r.flags = MVM_RESULT_IN_NOISE;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "in noise");
	r.flags = 0;
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
}
END_TEST

START_TEST(test_results_add)
{
	struct results res;
	struct mvm_result r = good_record();

	results_init(&res);
	for (int i = 0; i < 200; i++) {
		r.iters = (uint64_t)i + 1;
		ck_assert_int_eq(results_add(&res, &r), 0);
	}
	ck_assert_uint_eq(res.n, 200);
	ck_assert_uint_eq(res.recs[199].iters, 200);
	results_free(&res);
}
END_TEST

Suite *bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, test_bus_register_dispatch);
	tcase_add_test(tc, test_bus_flags_and_kind);
	tcase_add_test(tc, test_bus_owns_device_state);
	tcase_add_test(tc, test_bus_unclaimed_once);
	suite_add_tcase(s, tc);
	return s;
}

Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("histogram");

	tcase_add_test(tc, test_lat_hist);
	tcase_add_test(tc, test_lat_small_and_huge);
	suite_add_tcase(s, tc);
	return s;
}

Suite *results_suite(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_results_validate);
	tcase_add_test(tc, test_results_validate_reasons);
	tcase_add_test(tc, test_results_validate_rounds);
	tcase_add_test(tc, test_results_validate_round_values);
	tcase_add_test(tc, test_results_format);
	tcase_add_test(tc, test_results_add);
	suite_add_tcase(s, tc);
	return s;
}
