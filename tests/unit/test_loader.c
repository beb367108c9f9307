// SPDX-License-Identifier: MIT
/* The loader against hand-built ELF images: one valid, each defect alone. */
#include <check.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "minivmm/abi.h"
#include "tests/unit/suites.h"
#include "vmm/loader.h"

#define RAM		(8ULL << 20)
#define LOAD_ADDR	0x100000ULL
#define CODE_OFF	0x1000
#define CODE_LEN	16

struct image {
	uint8_t bytes[CODE_OFF + CODE_LEN];
	size_t len;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;		/* two headers: code, bss */
};

static struct guest_mem mem;
static char err[512];
static struct load_info info;

static void setup(void)
{
	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

/* A valid image: .text of CODE_LEN 0x90s at 1 MiB, then 8 KiB of bss. */
static void build(struct image *im)
{
	memset(im, 0, sizeof(*im));
	im->len = sizeof(im->bytes);
	im->eh = (Elf64_Ehdr *)im->bytes;
	im->ph = (Elf64_Phdr *)(im->bytes + sizeof(Elf64_Ehdr));
	memcpy(im->eh->e_ident, ELFMAG, SELFMAG);
	im->eh->e_ident[EI_CLASS] = ELFCLASS64;
	im->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh->e_ident[EI_VERSION] = EV_CURRENT;
	im->eh->e_type = ET_EXEC;
	im->eh->e_machine = EM_X86_64;
	im->eh->e_version = EV_CURRENT;
	im->eh->e_entry = LOAD_ADDR + 4;
	im->eh->e_phoff = sizeof(Elf64_Ehdr);
	im->eh->e_ehsize = sizeof(Elf64_Ehdr);
	im->eh->e_phentsize = sizeof(Elf64_Phdr);
	im->eh->e_phnum = 2;
	im->ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_offset = CODE_OFF, .p_vaddr = LOAD_ADDR, .p_paddr = LOAD_ADDR,
		.p_filesz = CODE_LEN, .p_memsz = CODE_LEN, .p_align = 0x1000 };
	im->ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
		.p_offset = CODE_OFF, .p_vaddr = LOAD_ADDR + 0x1000, .p_paddr = LOAD_ADDR + 0x1000,
		.p_filesz = 0, .p_memsz = 0x2000, .p_align = 0x1000 };
	memset(im->bytes + CODE_OFF, 0x90, CODE_LEN);
}

static int load(struct image *im)
{
	return loader_load_image(im->bytes, im->len, &mem, &info, err, sizeof(err));
}

static void expect_error(struct image *im, const char *needle)
{
	ck_assert_int_eq(load(im), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

START_TEST(test_valid)
{
	struct image im;
	uint8_t *ram = mem_gpa_to_host(&mem, LOAD_ADDR, 0x3000);

	build(&im);
	memset(ram + 0x1000, 0xaa, 0x2000);	/* bss must come back zeroed */
	ck_assert_int_eq(load(&im), 0);
	ck_assert_uint_eq(info.entry.rip, LOAD_ADDR + 4);
	/* Every vCPU enters in 64-bit mode with the boot info in RSI (RDI: its index). */
	ck_assert_int_eq(info.kind, IMAGE_ELF64);
	ck_assert_int_eq(info.entry.mode, IMAGE_ENTRY_LONG64);
	ck_assert(info.entry.all_vcpus);
	ck_assert_uint_eq(info.entry.rsi, MVM_BOOTINFO_GPA);
	ck_assert_uint_eq(info.entry.rax | info.entry.rbx, 0);
	ck_assert_uint_eq(info.segments, 2);
	ck_assert_uint_eq(info.image_end, LOAD_ADDR + 0x3000);
	ck_assert_uint_eq(ram[0], 0x90);
	ck_assert_uint_eq(ram[CODE_LEN - 1], 0x90);
	ck_assert_uint_eq(ram[0x1000], 0);
	ck_assert_uint_eq(ram[0x2fff], 0);
}
END_TEST

START_TEST(test_empty)
{
	struct image im;

	build(&im);
	im.len = 0;
	expect_error(&im, "empty file");
}
END_TEST

START_TEST(test_truncated)
{
	struct image im;

	build(&im);
	im.len = 40;		/* magic present, header cut */
	expect_error(&im, "truncated");
	im.len = sizeof(Elf64_Ehdr) + 10;	/* program headers cut */
	expect_error(&im, "truncated: program headers");
}
END_TEST

START_TEST(test_not_elf)
{
	struct image im;

	build(&im);
	memcpy(im.bytes, "#!/bin/sh\n", 10);
	expect_error(&im, "not an ELF file");
}
END_TEST

START_TEST(test_elf32)
{
	struct image im;

	build(&im);
	im.eh->e_ident[EI_CLASS] = ELFCLASS32;
	expect_error(&im, "ELF32");
}
END_TEST

START_TEST(test_wrong_machine)
{
	struct image im;

	build(&im);
	im.eh->e_machine = EM_AARCH64;
	expect_error(&im, "wrong machine 183");
}
END_TEST

START_TEST(test_not_executable)
{
	struct image im;

	build(&im);
	im.eh->e_type = ET_DYN;
	expect_error(&im, "not an executable");
}
END_TEST

START_TEST(test_no_load)
{
	struct image im;

	build(&im);
	im.ph[0].p_type = PT_NOTE;
	im.ph[1].p_type = PT_GNU_STACK;
	expect_error(&im, "no PT_LOAD segment");
}
END_TEST

START_TEST(test_outside_ram)
{
	struct image im;

	build(&im);
	im.ph[1].p_paddr = RAM - 0x1000;	/* 8 KiB from 4 KiB below the end */
	expect_error(&im, "segment 1 [0x7ff000, 0x801000) lies outside guest RAM");
}
END_TEST

START_TEST(test_reserved_area)
{
	struct image im;

	build(&im);
	im.ph[0].p_paddr = 0x3000;
	im.eh->e_entry = 0x3000;
	expect_error(&im, "reserved area");
}
END_TEST

START_TEST(test_filesz_gt_memsz)
{
	struct image im;

	build(&im);
	im.ph[0].p_filesz = CODE_LEN + 1;
	expect_error(&im, "segment 0: file size 0x11 exceeds memory size 0x10");
}
END_TEST

START_TEST(test_offset_beyond_file)
{
	struct image im;

	build(&im);
	im.ph[0].p_offset = CODE_OFF + 8;	/* 16 bytes from 8 before the end */
	expect_error(&im, "run past the end");
	im.ph[0].p_offset = UINT64_MAX - 4;
	expect_error(&im, "run past the end");
}
END_TEST

START_TEST(test_overflowing_address)
{
	struct image im;

	build(&im);
	im.ph[1].p_paddr = UINT64_MAX - 0xfff;
	expect_error(&im, "overflows");
}
END_TEST

START_TEST(test_entry_outside)
{
	struct image im;

	build(&im);
	im.eh->e_entry = LOAD_ADDR + 0x3000;	/* just past the bss */
	expect_error(&im, "entry point 0x103000 is outside every loaded segment");
}
END_TEST

START_TEST(test_nothing_copied_on_error)
{
	struct image im;
	uint8_t *ram = mem_gpa_to_host(&mem, LOAD_ADDR, 1);

	build(&im);
	im.eh->e_entry = 0;	/* only the final check fails */
	ck_assert_int_eq(load(&im), -1);
	ck_assert_uint_eq(ram[0], 0);
}
END_TEST

START_TEST(test_file_errors)
{
	char path[] = "/tmp/minivmm-loader-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(loader_load_file(path, &mem, &info, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "empty file"));
	unlink(path);
	ck_assert_int_eq(loader_load_file("/nonexistent/x.elf", &mem, &info, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/nonexistent/x.elf: No such file or directory");
	ck_assert_int_eq(loader_load_file("/tmp", &mem, &info, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "/tmp: is a directory, not an ELF file");
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("loader");
	TCase *tc = tcase_create("elf");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_not_elf);
	tcase_add_test(tc, test_elf32);
	tcase_add_test(tc, test_wrong_machine);
	tcase_add_test(tc, test_not_executable);
	tcase_add_test(tc, test_no_load);
	tcase_add_test(tc, test_outside_ram);
	tcase_add_test(tc, test_reserved_area);
	tcase_add_test(tc, test_filesz_gt_memsz);
	tcase_add_test(tc, test_offset_beyond_file);
	tcase_add_test(tc, test_overflowing_address);
	tcase_add_test(tc, test_entry_outside);
	tcase_add_test(tc, test_nothing_copied_on_error);
	tcase_add_test(tc, test_file_errors);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(loader_suite);
