// SPDX-License-Identifier: MIT
/* The real-mode IVT and stubs a Multiboot kernel finds, as firmware leaves them. */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/firmware.h"

/* The far pointer in IVT entry `v`, as a linear address. */
static uint64_t vector_target(struct guest_mem *mem, unsigned int v)
{
	uint32_t e;

	ck_assert_int_eq(mem_read(mem, FW_IVT_GPA + 4ull * v, &e, sizeof(e)), 0);
	return ((uint64_t)(e >> 16) << 4) + (e & 0xffff);
}

static uint8_t byte_at(struct guest_mem *mem, uint64_t gpa)
{
	uint8_t b;

	ck_assert_int_eq(mem_read(mem, gpa, &b, 1), 0);
	return b;
}

START_TEST(test_ivt_and_stubs)
{
	struct guest_mem mem;
	char err[128];
	uint64_t master = 0, slave = 0, plain = 0;

	ck_assert_int_eq(mem_init(&mem, 4u << 20, err, sizeof(err)), 0);
	ck_assert_int_eq(firmware_write_ivt(&mem), 0);
	plain = vector_target(&mem, 0x11);
	ck_assert_uint_eq(byte_at(&mem, plain), 0xcf);		/* iret */
	master = vector_target(&mem, FW_PIC_MASTER_BASE);	/* IRQ 0: the timer */
	ck_assert_uint_eq(vector_target(&mem, FW_PIC_MASTER_BASE + 7), master);
	ck_assert_uint_eq(byte_at(&mem, master + 3), 0xe6);	/* out imm8, al */
	ck_assert_uint_eq(byte_at(&mem, master + 4), 0x20);	/* the master's EOI port */
	ck_assert_uint_eq(byte_at(&mem, master + 6), 0xcf);
	slave = vector_target(&mem, FW_PIC_SLAVE_BASE + 3);	/* IRQ 11 */
	ck_assert_uint_eq(byte_at(&mem, slave + 4), 0xa0);	/* the slave's EOI first */
	ck_assert_uint_eq(byte_at(&mem, slave + 6), 0x20);
	ck_assert_uint_eq(byte_at(&mem, slave + 8), 0xcf);
	ck_assert_uint_eq(vector_target(&mem, FW_PIC_SLAVE_BASE + 8), plain);
	/* All in the EBDA page, which the memory map reserves. */
	ck_assert_uint_ge(plain, FW_STUBS_GPA);
	ck_assert_uint_lt(slave + 8, FW_STUBS_GPA + 0x400);
	mem_free(&mem);
}
END_TEST

static Suite *firmware_suite(void)
{
	Suite *s = suite_create("firmware");
	TCase *tc = tcase_create("ivt");

	tcase_add_test(tc, test_ivt_and_stubs);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(firmware_suite);
