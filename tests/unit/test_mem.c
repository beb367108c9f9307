// SPDX-License-Identifier: MIT
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/mem.h"

#define RAM (4ULL << 20)

static struct guest_mem mem;

static void setup(void)
{
	char err[128];

	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

/* Huge pages in KVM's page tables need host address == GPA modulo 2 MiB. */
START_TEST(test_huge_aligned)
{
	struct guest_mem m;
	char err[128];

	ck_assert_uint_eq((uintptr_t)mem.host % MEM_HUGE_ALIGN, 0);
	for (uint64_t size = 1ULL << 20; size <= (8ULL << 20); size += 3ULL << 20) {
		ck_assert_int_eq(mem_init(&m, size, err, sizeof(err)), 0);
		ck_assert_uint_eq((uintptr_t)m.host % MEM_HUGE_ALIGN, 0);
		ck_assert_uint_eq(m.size, size);
		m.host[size - 1] = 1;	/* the whole size stays mapped */
		mem_free(&m);
	}
}
END_TEST

START_TEST(test_inside)
{
	ck_assert_ptr_eq(mem_gpa_to_host(&mem, 0, 1), mem.host);
	ck_assert_ptr_eq(mem_gpa_to_host(&mem, 0x1000, 8), mem.host + 0x1000);
	ck_assert_ptr_eq(mem_gpa_to_host(&mem, 0, RAM), mem.host);
}
END_TEST

START_TEST(test_edges)
{
	ck_assert_ptr_eq(mem_gpa_to_host(&mem, RAM - 1, 1), mem.host + RAM - 1);
	ck_assert_ptr_eq(mem_gpa_to_host(&mem, RAM - 8, 8), mem.host + RAM - 8);
	ck_assert_ptr_null(mem_gpa_to_host(&mem, RAM - 8, 9));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, RAM, 1));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, 0, RAM + 1));
}
END_TEST

START_TEST(test_wrapping)
{
	ck_assert_ptr_null(mem_gpa_to_host(&mem, UINT64_MAX, 2));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, UINT64_MAX - 7, 8));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, 0x1000, UINT64_MAX));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, 0x1000, UINT64_MAX - 0xfff));
}
END_TEST

START_TEST(test_zero_length)
{
	ck_assert_ptr_null(mem_gpa_to_host(&mem, 0, 0));
	ck_assert_ptr_null(mem_gpa_to_host(&mem, RAM, 0));
}
END_TEST

START_TEST(test_copies)
{
	uint64_t v = 0x1122334455667788ULL, back = 0;

	ck_assert_int_eq(mem_write(&mem, RAM - 8, &v, 8), 0);
	ck_assert_int_eq(mem_read(&mem, RAM - 8, &back, 8), 0);
	ck_assert_uint_eq(back, v);
	ck_assert_int_eq(mem_write(&mem, RAM - 4, &v, 8), -1);
	ck_assert_int_eq(mem_read(&mem, RAM - 4, &back, 8), -1);
}
END_TEST

START_TEST(test_unmappable)
{
	struct guest_mem m;
	char err[128];

	ck_assert_int_eq(mem_init(&m, 1ULL << 62, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cannot map"));
	ck_assert_ptr_null(mem_gpa_to_host(&m, 0, 1));
}
END_TEST

START_TEST(test_align_up)
{
	ck_assert_uint_eq(mem_align_up(0, 0x1000), 0);
	ck_assert_uint_eq(mem_align_up(1, 0x1000), 0x1000);
	ck_assert_uint_eq(mem_align_up(0x1000, 0x1000), 0x1000);
	ck_assert_uint_eq(mem_align_up(0x1001, 0x1000), 0x2000);
	ck_assert_uint_eq(mem_align_up(0x100001, 1ULL << 20), 0x200000);
	ck_assert_uint_eq(mem_align_up(7, 1), 7);
}
END_TEST

static Suite *mem_suite(void)
{
	Suite *s = suite_create("mem");
	TCase *tc = tcase_create("bounds");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_huge_aligned);
	tcase_add_test(tc, test_inside);
	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_wrapping);
	tcase_add_test(tc, test_zero_length);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_unmappable);
	tcase_add_test(tc, test_align_up);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(mem_suite);
