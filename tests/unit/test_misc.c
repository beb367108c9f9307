// SPDX-License-Identifier: MIT
/* The bus registry and the latency histogram. */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/bus.h"
#include "vmm/stats.h"

static unsigned int hits;
static uint64_t last_addr;

static void count_io(struct vcpu *v, uint64_t addr, bool write, void *data,
		     unsigned int size, void *opaque)
{
	(void)v;
	(void)write;
	(void)opaque;
	hits++;
	last_addr = addr;
	memset(data, 0x5a, size);
}

START_TEST(test_bus_register_dispatch)
{
	struct bus bus;
	uint32_t val = 0;

	bus_init(&bus);
	hits = 0;
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x3f8, 8, count_io, NULL, "com1"), 0);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0x3ff, 1, count_io, NULL, "overlap"), -1);
	ck_assert_int_eq(bus_register(&bus, BUS_PIO, 0xfffe, 4, count_io, NULL, "past 64K"), -1);
	ck_assert_int_eq(bus_register(&bus, BUS_MMIO, 0x3f8, 8, count_io, NULL, "other space"), 0);
	ck_assert(bus_dispatch(&bus, NULL, BUS_PIO, 0x3fd, false, &val, 1));
	ck_assert_uint_eq(hits, 1);
	ck_assert_uint_eq(last_addr, 0x3fd);
	ck_assert_uint_eq(val & 0xff, 0x5a);
	/* An access that straddles the end of the range is nobody's. */
	ck_assert(!bus_dispatch(&bus, NULL, BUS_PIO, 0x3fe, false, &val, 4));
	ck_assert(!bus_dispatch(&bus, NULL, BUS_PIO, 0x2f8, true, &val, 1));
	ck_assert_uint_eq(hits, 1);
	bus_destroy(&bus);
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

Suite *bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, test_bus_register_dispatch);
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
