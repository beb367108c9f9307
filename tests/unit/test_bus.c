// SPDX-License-Identifier: MIT
/* The bus registry: descriptors, offsets, flags, device state and unclaimed accesses. */
#include <check.h>
#include <stddef.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/bus.h"
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

static const struct bus_desc count_desc = { .name = "count", .kind = STATS_PIO_OTHER, .io = count_io };

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

static Suite *bus_suite(void)
{
	Suite *s = suite_create("bus");
	TCase *tc = tcase_create("bus");

	tcase_add_test(tc, test_bus_register_dispatch);
	tcase_add_test(tc, test_bus_flags_and_kind);
	tcase_add_test(tc, test_bus_owns_device_state);
	tcase_add_test(tc, test_bus_unclaimed_once);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_SUITE(bus_suite);
