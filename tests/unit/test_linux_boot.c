// SPDX-License-Identifier: MIT
/* The PVH start info: every field, the E820 map, the initrd module and each refusal. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/linux.h"
#include "vmm/linux_abi.h"

#define MIB		(1ull << 20)
#define RAM		(16 * MIB)
#define KERNEL_END	(4 * MIB + 0x123)

static struct guest_mem mem;
static char err[512];
static uint8_t *initrd;

static void setup(void)
{
	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
	initrd = malloc(8 * MIB);
	ck_assert_ptr_nonnull(initrd);
	for (size_t i = 0; i < 8 * MIB; i++)
		initrd[i] = (uint8_t)(i * 7 + 1);
}

static void teardown(void)
{
	free(initrd);
	mem_free(&mem);
}

static struct linux_boot_cfg cfg(const char *cmdline, size_t initrd_len)
{
	return (struct linux_boot_cfg){ .cmdline = cmdline, .cmdline_max = 2047,
		.initrd = initrd_len ? initrd : NULL, .initrd_len = initrd_len,
		.rsdp_gpa = 0xe0000, .kernel_end = KERNEL_END };
}

static struct hvm_start_info read_start_info(void)
{
	struct hvm_start_info si;

	ck_assert_int_eq(mem_read(&mem, LINUX_START_INFO_GPA, &si, sizeof(si)), 0);
	return si;
}

static void expect_error(const struct linux_boot_cfg *c, const char *needle)
{
	uint64_t gpa = 1;

	err[0] = '\0';
	ck_assert_int_eq(linux_write_start_info(&mem, c, &gpa, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
	ck_assert_uint_eq(gpa, 1);
	ck_assert_uint_eq(read_start_info().magic, 0);	/* nothing written */
}

START_TEST(test_start_info_fields)
{
	struct linux_boot_cfg c = cfg("console=ttyS0 reboot=t", 3 * MIB + 5);
	struct hvm_start_info si;
	struct hvm_modlist_entry mod;
	uint64_t gpa = 0;
	char line[64];

	ck_assert_int_eq(linux_write_start_info(&mem, &c, &gpa, err, sizeof(err)), 0);
	ck_assert_uint_eq(gpa, LINUX_START_INFO_GPA);
	si = read_start_info();
	ck_assert_uint_eq(si.magic, 0x336ec578);
	ck_assert_uint_eq(si.version, 1);
	ck_assert_uint_eq(si.flags, 0);
	ck_assert_uint_eq(si.nr_modules, 1);
	ck_assert_uint_eq(si.modlist_paddr, LINUX_MODLIST_GPA);
	ck_assert_uint_eq(si.cmdline_paddr, LINUX_CMDLINE_GPA);
	ck_assert_uint_eq(si.rsdp_paddr, 0xe0000);
	ck_assert_uint_eq(si.memmap_paddr, LINUX_MEMMAP_GPA);
	ck_assert_uint_eq(si.memmap_entries, 4);
	ck_assert_int_eq(mem_read(&mem, LINUX_CMDLINE_GPA, line, 23), 0);
	ck_assert_str_eq(line, "console=ttyS0 reboot=t");
	ck_assert_int_eq(mem_read(&mem, LINUX_MODLIST_GPA, &mod, sizeof(mod)), 0);
	/* top of RAM, rounded down to a page: 16 MiB - (3 MiB + 5) -> 13 MiB - 4 KiB */
	ck_assert_uint_eq(mod.paddr, 13 * MIB - 0x1000);
	ck_assert_uint_eq(mod.size, 3 * MIB + 5);
	ck_assert_uint_eq(mod.cmdline_paddr, 0);
	ck_assert_int_eq(memcmp(mem_gpa_to_host(&mem, mod.paddr, mod.size), initrd, mod.size), 0);
}
END_TEST

START_TEST(test_memmap)
{
	struct linux_boot_cfg c = cfg(NULL, 0);
	struct hvm_memmap_table_entry e[4];
	uint64_t gpa;

	ck_assert_int_eq(linux_write_start_info(&mem, &c, &gpa, err, sizeof(err)), 0);
	ck_assert_int_eq(mem_read(&mem, LINUX_MEMMAP_GPA, e, sizeof(e)), 0);
	ck_assert_uint_eq(e[0].addr, 0);
	ck_assert_uint_eq(e[0].size, 0x9fc00);
	ck_assert_uint_eq(e[0].type, HVM_MEMMAP_RAM);
	ck_assert_uint_eq(e[1].addr, 0x9fc00);
	ck_assert_uint_eq(e[1].size, 0x100000 - 0x9fc00);
	ck_assert_uint_eq(e[1].type, HVM_MEMMAP_RESERVED);
	ck_assert_uint_eq(e[2].addr, 0x100000);
	ck_assert_uint_eq(e[2].size, RAM - 0x100000);
	ck_assert_uint_eq(e[2].type, HVM_MEMMAP_RAM);
	ck_assert_uint_eq(e[3].addr, 0xfffbc000);
	ck_assert_uint_eq(e[3].size, 0x100000000ull - 0xfffbc000);
	ck_assert_uint_eq(e[3].type, HVM_MEMMAP_RESERVED);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(e[i].reserved, 0);
}
END_TEST

START_TEST(test_no_initrd)
{
	struct linux_boot_cfg c = cfg(NULL, 0);
	struct hvm_start_info si;
	uint64_t gpa;
	char empty = 'x';

	ck_assert_int_eq(linux_write_start_info(&mem, &c, &gpa, err, sizeof(err)), 0);
	si = read_start_info();
	ck_assert_uint_eq(si.nr_modules, 0);
	ck_assert_uint_eq(si.modlist_paddr, 0);
	ck_assert_int_eq(mem_read(&mem, LINUX_CMDLINE_GPA, &empty, 1), 0);
	ck_assert_int_eq(empty, '\0');
}
END_TEST

START_TEST(test_initrd_does_not_fit)
{
	struct linux_boot_cfg c = cfg("", 8 * MIB);

	c.kernel_end = 9 * MIB;
	expect_error(&c, "initrd of 8 MiB does not fit: RAM 16 MiB, kernel ends at 9 MiB; give --mem >= 33 MiB");
	c.initrd_len = RAM + 1;		/* larger than RAM itself */
	expect_error(&c, "does not fit: RAM 16 MiB");
}
END_TEST

START_TEST(test_initrd_just_fits)
{
	struct linux_boot_cfg c = cfg("", 8 * MIB);
	struct hvm_modlist_entry mod;
	uint64_t gpa;

	c.kernel_end = 8 * MIB;		/* ends exactly where the initrd starts */
	ck_assert_int_eq(linux_write_start_info(&mem, &c, &gpa, err, sizeof(err)), 0);
	ck_assert_int_eq(mem_read(&mem, LINUX_MODLIST_GPA, &mod, sizeof(mod)), 0);
	ck_assert_uint_eq(mod.paddr, 8 * MIB);
	c.kernel_end = 8 * MIB + 1;
	memset(mem_gpa_to_host(&mem, LINUX_START_INFO_GPA, 4), 0, 4);
	expect_error(&c, "initrd of 8 MiB does not fit");
}
END_TEST

START_TEST(test_cmdline_too_long)
{
	char line[32];
	struct linux_boot_cfg c = cfg(line, 0);

	memset(line, 'a', 11);
	line[11] = '\0';
	c.cmdline_max = 10;
	expect_error(&c, "kernel command line of 11 bytes is longer than the 10 this kernel takes");
	c.cmdline_max = 11;
	ck_assert_int_eq(linux_write_start_info(&mem, &c, &(uint64_t){ 0 }, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_cmdline_max_clamped_to_area)
{
	char *line = malloc(LINUX_CMDLINE_AREA + 1);
	struct linux_boot_cfg c = cfg(line, 0);

	memset(line, 'b', LINUX_CMDLINE_AREA);
	line[LINUX_CMDLINE_AREA] = '\0';
	c.cmdline_max = UINT32_MAX;
	expect_error(&c, "kernel command line of 16384 bytes is longer than the 16383 this kernel takes");
	free(line);
}
END_TEST

START_TEST(test_kernel_past_ram)
{
	struct linux_boot_cfg c = cfg("", 0);

	c.kernel_end = RAM + 1;
	expect_error(&c, "kernel ends at 0x1000001, past the end of RAM (0x1000000)");
}
END_TEST

START_TEST(test_min_ram)
{
	ck_assert_uint_eq(linux_min_ram(0x4a00000, 0), 74 * MIB + LINUX_RAM_MARGIN);
	ck_assert_uint_eq(linux_min_ram(0x4a00001, 1), 76 * MIB + LINUX_RAM_MARGIN);
	ck_assert_uint_eq(linux_min_ram(9 * MIB, 8 * MIB), 33 * MIB);
}
END_TEST

static Suite *linux_boot_suite(void)
{
	Suite *s = suite_create("linux_boot");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_start_info_fields);
	tcase_add_test(tc, test_memmap);
	tcase_add_test(tc, test_no_initrd);
	tcase_add_test(tc, test_initrd_does_not_fit);
	tcase_add_test(tc, test_initrd_just_fits);
	tcase_add_test(tc, test_cmdline_too_long);
	tcase_add_test(tc, test_cmdline_max_clamped_to_area);
	tcase_add_test(tc, test_kernel_past_ram);
	tcase_add_test(tc, test_min_ram);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(linux_boot_suite);
