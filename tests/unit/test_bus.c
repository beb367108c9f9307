// SPDX-License-Identifier: MIT
/* The bus registry: registration, overlap, dispatch and unclaimed accesses. */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/bus.h"

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

static Suite *bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("registry");

	tcase_add_test(tc, test_bus_register_dispatch);
	tcase_add_test(tc, test_bus_unclaimed_once);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(bus_suite);
