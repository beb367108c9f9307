// SPDX-License-Identifier: MIT
/*
 * vmm/elfview.c on its own: the header reader for both classes, the header
 * checks a format asks for, the program-header bounds, and each load rule
 * a format can set (the formats'
 * own tests, test_loader.c, test_multiboot.c and test_linux_pvh.c, cover
 * their words for a bad file).
 */
#include <check.h>
#include <elf.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/elfview.h"

#define RAM		(4ull << 20)
#define FILE_LEN	0x3000u

static struct guest_mem mem;
static uint8_t file[FILE_LEN];

static void setup(void)
{
	char err[128];

	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

/* An ELF64 with two PT_LOADs at 1 MiB and 2 MiB, and a PT_NOTE between. */
static Elf64_Phdr *build64(uint64_t entry)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	Elf64_Phdr *ph = (Elf64_Phdr *)(file + sizeof(*eh));

	memset(file, 0, sizeof(file));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_entry = entry;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x1000, .p_paddr = 0x100000,
			      .p_filesz = 0x10, .p_memsz = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 0x2000, .p_filesz = 0x10 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = 0x2000, .p_paddr = 0x200000,
			      .p_filesz = 0x20, .p_memsz = 0x20 };
	memset(file + 0x1000, 0xaa, 0x10);
	memset(file + 0x2000, 0xbb, 0x20);
	return ph;
}

static const struct elf_load_rules rules = {
	.seg = "seg", .min_gpa = 0x100000, .below_why = "the floor",
};

static void open_ok(struct elf_view *v)
{
	char err[160];

	ck_assert_msg(!elfview_open(file, sizeof(file), "test", v, err, sizeof(err)), "%s", err);
	ck_assert(elfview_phdrs_fit(v));
}

START_TEST(test_open_reads_both_classes)
{
	Elf32_Ehdr *e32 = (Elf32_Ehdr *)file;
	struct elf_view v;

	build64(0x100004);
	open_ok(&v);
	ck_assert_uint_eq(v.cls, 64);
	ck_assert_uint_eq(v.machine, EM_X86_64);
	ck_assert_uint_eq(v.phnum, 3);
	ck_assert_uint_eq(v.entry, 0x100004);
	ck_assert_uint_eq(elfview_phdr(&v, 2).paddr, 0x200000);

	memset(file, 0, sizeof(file));
	memcpy(e32->e_ident, ELFMAG, SELFMAG);
	e32->e_ident[EI_CLASS] = ELFCLASS32;
	e32->e_machine = EM_386;
	e32->e_entry = 0x101000;
	e32->e_phoff = sizeof(*e32);
	e32->e_phentsize = sizeof(Elf32_Phdr);
	e32->e_phnum = 1;
	((Elf32_Phdr *)(file + sizeof(*e32)))->p_paddr = 0x123000;
	open_ok(&v);
	ck_assert_uint_eq(v.cls, 32);
	ck_assert_uint_eq(v.entry, 0x101000);
	ck_assert_uint_eq(elfview_phdr(&v, 0).paddr, 0x123000);
}
END_TEST

START_TEST(test_open_refuses)
{
	struct elf_view v;
	char err[160];

	build64(0);
	ck_assert_int_eq(elfview_open(file, 3, "ELF", &v, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "not an ELF file (bad magic)");
	ck_assert_int_eq(elfview_open(file, 40, "test", &v, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "truncated test: 40 bytes, the ELF64 header needs 64");
	file[EI_CLASS] = 9;
	ck_assert_int_eq(elfview_open(file, sizeof(file), "test", &v, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "test: ELF class 9 is neither ELF32 nor ELF64");
}
END_TEST

static const struct elf_expect want64 = {
	.prefix = "pfx: ", .name = "ELF64", .machine = EM_X86_64, .phentsize = sizeof(Elf64_Phdr),
	.need_phdrs = true, .endian_why = "little only", .machine_why = "x86-64 only (EM_X86_64",
};

/* Break one header field of a good file; the check names exactly that one. */
static void expect_ehdr_error(const char *want)
{
	struct elf_view v;
	char err[200];

	ck_assert_int_eq(elfview_open(file, sizeof(file), "test", &v, err, sizeof(err)), 0);
	ck_assert_int_eq(elfview_check_ehdr(&v, &want64, err, sizeof(err)), -1);
	ck_assert_str_eq(err, want);
}

START_TEST(test_check_ehdr)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	struct elf_expect no_need = want64;
	struct elf_view v;
	char err[200];

	build64(0);
	open_ok(&v);
	ck_assert_int_eq(elfview_check_ehdr(&v, &want64, err, sizeof(err)), 0);
	eh->e_ident[EI_DATA] = ELFDATA2MSB;
	expect_ehdr_error("pfx: big-endian ELF64: little only");
	build64(0);
	eh->e_machine = EM_386;
	expect_ehdr_error("pfx: wrong machine 3: x86-64 only (EM_X86_64 = 62)");
	build64(0);
	eh->e_type = ET_DYN;
	expect_ehdr_error("pfx: ELF type 3 is not an executable (ET_EXEC)");
	build64(0);
	eh->e_phentsize = 40;
	expect_ehdr_error("pfx: program header entry size 40, expected 56");
	build64(0);
	eh->e_phoff = FILE_LEN - 8;
	expect_ehdr_error("pfx: truncated: program headers (3 at offset 12280) run past the end of the 12288-byte file");
	build64(0);
	eh->e_phnum = 0;
	expect_ehdr_error("pfx: no program headers");
	/* Without need_phdrs, none is a header that fits (its loads are judged later). */
	no_need.need_phdrs = false;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_ehdr(&v, &no_need, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_phdrs_fit)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	struct elf_view v;
	char err[160];

	build64(0);
	eh->e_phoff = FILE_LEN - 2 * sizeof(Elf64_Phdr);	/* 3 headers, room for 2 */
	ck_assert_int_eq(elfview_open(file, sizeof(file), "test", &v, err, sizeof(err)), 0);
	ck_assert(!elfview_phdrs_fit(&v));
	eh->e_phoff = UINT64_MAX;
	elfview_open(file, sizeof(file), "test", &v, err, sizeof(err));
	ck_assert(!elfview_phdrs_fit(&v));
	build64(0);
	eh->e_phentsize = sizeof(Elf32_Phdr);
	elfview_open(file, sizeof(file), "test", &v, err, sizeof(err));
	ck_assert(!elfview_phdrs_fit(&v));
}
END_TEST

START_TEST(test_loads_and_copy)
{
	struct elf_loads l;
	struct elf_view v;
	char err[160];

	build64(0x100004);
	open_ok(&v);
	memset(mem.host + 0x100000, 0x77, 0x1000);	/* the tail must come back zeroed */
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.segments, 2);
	ck_assert_uint_eq(l.start, 0x100000);
	ck_assert_uint_eq(l.end, 0x200020);
	ck_assert(l.entry_in);
	elfview_copy_loads(&v, &mem);
	ck_assert_uint_eq(mem.host[0x10000f], 0xaa);
	ck_assert_uint_eq(mem.host[0x100010], 0);
	ck_assert_uint_eq(mem.host[0x100fff], 0);
	ck_assert_uint_eq(mem.host[0x20001f], 0xbb);
}
END_TEST

/* An entry past the file bytes but inside memory: in for one rule, out for the other. */
START_TEST(test_entry_rules)
{
	struct elf_load_rules in_file = rules;
	struct elf_loads l;
	struct elf_view v;
	char err[160];

	build64(0x100800);
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), 0);
	ck_assert(l.entry_in);
	in_file.entry_in_file = true;
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &in_file, v.entry, &l, err, sizeof(err)), 0);
	ck_assert(!l.entry_in);
}
END_TEST

START_TEST(test_segment_errors)
{
	struct elf_load_rules skip = rules;
	struct elf_loads l;
	struct elf_view v;
	Elf64_Phdr *ph;
	char err[160];

	ph = build64(0x100000);
	ph[2].p_paddr = 0xff000;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "seg 2 at 0xff000 lies below 0x100000, the floor");
	ph = build64(0x100000);
	ph[2].p_paddr = RAM - 0x10;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "seg 2 [0x3ffff0, 0x400010) lies outside guest RAM (4 MiB)");
	ph = build64(0x100000);
	ph[0].p_filesz = 0x1001;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "seg 0: file size 0x1001 exceeds memory size 0x1000");
	ph = build64(0x100000);
	ph[2].p_offset = FILE_LEN - 0x10;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "seg 2: file bytes 0x2ff0+0x20 run past the end of the 12288-byte file");
	ph = build64(0x100000);
	ph[2].p_paddr = UINT64_MAX - 0xf;
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "seg 2: address 0xfffffffffffffff0 + size 0x20 overflows");
	/* An empty segment below the floor: refused, unless the rules skip empty ones. */
	ph = build64(0x100000);
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_paddr = 0x1000 };
	open_ok(&v);
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &rules, v.entry, &l, err, sizeof(err)), -1);
	skip.skip_empty = true;
	ck_assert_int_eq(elfview_check_loads(&v, &mem, &skip, v.entry, &l, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.segments, 1);
}
END_TEST

static Suite *elfview_suite(void)
{
	Suite *s = suite_create("elfview");
	TCase *tc = tcase_create("read");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_open_reads_both_classes);
	tcase_add_test(tc, test_open_refuses);
	tcase_add_test(tc, test_check_ehdr);
	tcase_add_test(tc, test_phdrs_fit);
	tcase_add_test(tc, test_loads_and_copy);
	tcase_add_test(tc, test_entry_rules);
	tcase_add_test(tc, test_segment_errors);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(elfview_suite);
