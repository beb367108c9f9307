// SPDX-License-Identifier: MIT
/* The PVH vmlinux loader against synthetic ELF images: one good, each defect alone. */
#include <check.h>
#include <string.h>

#include "tests/unit/linux_fixture.h"
#include "tests/unit/suites.h"
#include "vmm/linux.h"
#include "vmm/linux_abi.h"
#include "vmm/linux_pvh.h"

#define RAM	(8ull << 20)

static struct guest_mem mem;
static struct linux_pvh_info info;
static char err[512];

static void setup(void)
{
	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

static void expect_error(const void *b, size_t len, const char *needle)
{
	err[0] = '\0';
	ck_assert_int_eq(linux_pvh_load(b, len, &mem, &info, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

static void expect_loaded(void)
{
	const uint8_t *text = mem_gpa_to_host(&mem, FAKE_TEXT_GPA, FAKE_TEXT_LEN);
	const uint8_t *data = mem_gpa_to_host(&mem, FAKE_DATA_GPA, FAKE_DATA_MEM);

	ck_assert_uint_eq(info.entry, FAKE_ENTRY);
	ck_assert_uint_eq(info.kernel_start, FAKE_TEXT_GPA);
	ck_assert_uint_eq(info.kernel_end, FAKE_END);
	ck_assert_uint_eq(info.segments, 2);
	ck_assert_uint_eq(text[0], 0x90);
	ck_assert_uint_eq(text[FAKE_TEXT_LEN - 1], 0x90);
	ck_assert_uint_eq(data[0], 0x5a);
	ck_assert_uint_eq(data[FAKE_DATA_FILE - 1], 0x5a);
	ck_assert_uint_eq(data[FAKE_DATA_FILE], 0);
	ck_assert_uint_eq(data[FAKE_DATA_MEM - 1], 0);
}

START_TEST(test_elf64_loads_at_paddr)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	/* bss must come back zeroed, whatever RAM held */
	memset(mem_gpa_to_host(&mem, FAKE_DATA_GPA, FAKE_DATA_MEM), 0xee, FAKE_DATA_MEM);
	ck_assert_int_eq(linux_pvh_load(v.b, v.len, &mem, &info, err, sizeof(err)), 0);
	expect_loaded();
	ck_assert_uint_eq(info.elf_class, 64);
	ck_assert(!info.relocatable);
}
END_TEST

START_TEST(test_entry_desc_4_bytes)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, FAKE_ENTRY_4);
	ck_assert_int_eq(linux_pvh_load(v.b, v.len, &mem, &info, err, sizeof(err)), 0);
	ck_assert_uint_eq(info.entry, FAKE_ENTRY);
}
END_TEST

START_TEST(test_elf32_loads)
{
	struct fake_vmlinux32 v;

	fake_vmlinux32_build(&v);
	ck_assert_int_eq(linux_pvh_load(v.b, v.len, &mem, &info, err, sizeof(err)), 0);
	expect_loaded();
	ck_assert_uint_eq(info.elf_class, 32);
}
END_TEST

START_TEST(test_reloc_note_recorded)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, FAKE_RELOC);
	ck_assert_int_eq(linux_pvh_load(v.b, v.len, &mem, &info, err, sizeof(err)), 0);
	ck_assert(info.relocatable);
	ck_assert_uint_eq(info.reloc_align, 2u << 20);
	ck_assert_uint_eq(info.reloc_min, 16u << 20);
	ck_assert_uint_eq(info.reloc_max, 1u << 30);
	ck_assert_uint_eq(info.entry, FAKE_ENTRY);	/* still loaded at p_paddr */
}
END_TEST

START_TEST(test_no_pvh_note)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, FAKE_NO_PVH);
	expect_error(v.b, v.len, "not a PVH kernel: no XEN_ELFNOTE_PHYS32_ENTRY note (type 18, \"Xen\") in its 1 PT_NOTE segment");
	ck_assert(!linux_probe(v.b, v.len));
}
END_TEST

START_TEST(test_bad_entry_desc)
{
	struct fake_vmlinux v;
	Elf32_Nhdr n;
	size_t off;

	fake_vmlinux_build(&v, 0);
	off = FAKE_NOTE_OFF + v.ph[2].p_filesz - 24;	/* the entry note comes last */
	memcpy(&n, v.b + off, sizeof(n));
	ck_assert_uint_eq(n.n_type, XEN_ELFNOTE_PHYS32_ENTRY);
	n.n_descsz = 3;
	memcpy(v.b + off, &n, sizeof(n));
	expect_error(v.b, v.len, "PHYS32_ENTRY note has 3 bytes, expected 4 or 8");
}
END_TEST

START_TEST(test_note_runs_past_segment)
{
	struct fake_vmlinux v;
	uint32_t huge = 0xffffffffu;

	fake_vmlinux_build(&v, 0);
	memcpy(v.b + FAKE_NOTE_OFF, &huge, 4);		/* first note's namesz */
	expect_error(v.b, v.len, "note at 0x800 (name 4294967295, desc 20 bytes) runs past its PT_NOTE segment");
	fake_vmlinux_build(&v, 0);
	memcpy(v.b + FAKE_NOTE_OFF + 4, &huge, 4);	/* first note's descsz */
	expect_error(v.b, v.len, "runs past its PT_NOTE segment");
}
END_TEST

START_TEST(test_note_segment_past_file)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[2].p_offset = FAKE_LEN - 8;
	expect_error(v.b, v.len, "PT_NOTE 2 [0x11f8, +0x");
	v.ph[2].p_offset = ~0ull;
	expect_error(v.b, v.len, "runs past the end of the 4608-byte file");
}
END_TEST

START_TEST(test_segment_outside_ram)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[1].p_paddr = RAM - 0x1000;
	expect_error(v.b, v.len, "vmlinux segment 1 [0x7ff000, 0x801000) lies outside guest RAM (8 MiB)");
}
END_TEST

START_TEST(test_segment_below_1mib)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[1].p_paddr = 0x9000;
	expect_error(v.b, v.len, "vmlinux segment 1 at 0x9000 lies below 0x100000, where minivmm keeps its tables");
}
END_TEST

START_TEST(test_filesz_gt_memsz)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[0].p_filesz = FAKE_TEXT_LEN + 1;
	expect_error(v.b, v.len, "vmlinux segment 0: file size 0x101 exceeds memory size 0x100");
}
END_TEST

START_TEST(test_file_bytes_past_end)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[1].p_offset = FAKE_LEN - 0x10;
	expect_error(v.b, v.len, "vmlinux segment 1: file bytes 0x11f0+0x40 run past the end of the 4608-byte file");
	v.ph[1].p_offset = ~0ull - 8;
	expect_error(v.b, v.len, "run past the end");
}
END_TEST

START_TEST(test_address_overflow)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[1].p_paddr = ~0ull - 0x100;
	expect_error(v.b, v.len, "vmlinux segment 1: address 0xfffffffffffffeff + size 0x2000 overflows");
}
END_TEST

START_TEST(test_entry_outside_segments)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[0].p_paddr = 0x300000;
	expect_error(v.b, v.len, "vmlinux: PVH entry 0x200010 is outside every loaded segment's file bytes");
}
END_TEST

START_TEST(test_nothing_written_on_error)
{
	struct fake_vmlinux v;
	const uint8_t *text = mem_gpa_to_host(&mem, FAKE_TEXT_GPA, 1);

	fake_vmlinux_build(&v, 0);
	v.ph[1].p_paddr = RAM;		/* the second segment is bad */
	expect_error(v.b, v.len, "outside guest RAM");
	ck_assert_uint_eq(*text, 0);	/* the first never got copied */
}
END_TEST

START_TEST(test_header_defects)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	expect_error(v.b, 40, "truncated vmlinux: 40 bytes, the ELF64 header needs 64");
	expect_error(v.b, sizeof(Elf64_Ehdr) + 10, "vmlinux: truncated: program headers (3 at offset 64)");
	v.eh->e_machine = EM_AARCH64;
	expect_error(v.b, v.len, "vmlinux: wrong machine 183: an ELF64 vmlinux is x86-64 (EM_X86_64 = 62)");
	fake_vmlinux_build(&v, 0);
	v.eh->e_type = ET_DYN;
	expect_error(v.b, v.len, "ELF type 3 is not an executable");
	fake_vmlinux_build(&v, 0);
	v.eh->e_ident[EI_DATA] = ELFDATA2MSB;
	expect_error(v.b, v.len, "big-endian");
	fake_vmlinux_build(&v, 0);
	v.eh->e_ident[EI_CLASS] = 7;
	expect_error(v.b, v.len, "ELF class 7 is neither ELF32 nor ELF64");
	fake_vmlinux_build(&v, 0);
	v.eh->e_phnum = 0;
	expect_error(v.b, v.len, "vmlinux: no program headers");
	fake_vmlinux_build(&v, 0);
	v.eh->e_phentsize = 40;
	expect_error(v.b, v.len, "program header entry size 40, expected 56");
	memcpy(v.b, "\x7f" "ELG", 4);
	expect_error(v.b, v.len, "not an ELF vmlinux (bad magic)");
}
END_TEST

START_TEST(test_no_loadable_segment)
{
	struct fake_vmlinux v;

	fake_vmlinux_build(&v, 0);
	v.ph[0].p_type = PT_GNU_STACK;
	v.ph[1].p_memsz = 0;
	v.ph[1].p_filesz = 0;
	expect_error(v.b, v.len, "vmlinux: no PT_LOAD segment with bytes");
}
END_TEST

static Suite *linux_pvh_suite(void)
{
	Suite *s = suite_create("linux_pvh");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_elf64_loads_at_paddr);
	tcase_add_test(tc, test_entry_desc_4_bytes);
	tcase_add_test(tc, test_elf32_loads);
	tcase_add_test(tc, test_reloc_note_recorded);
	tcase_add_test(tc, test_no_pvh_note);
	tcase_add_test(tc, test_bad_entry_desc);
	tcase_add_test(tc, test_note_runs_past_segment);
	tcase_add_test(tc, test_note_segment_past_file);
	tcase_add_test(tc, test_segment_outside_ram);
	tcase_add_test(tc, test_segment_below_1mib);
	tcase_add_test(tc, test_filesz_gt_memsz);
	tcase_add_test(tc, test_file_bytes_past_end);
	tcase_add_test(tc, test_address_overflow);
	tcase_add_test(tc, test_entry_outside_segments);
	tcase_add_test(tc, test_nothing_written_on_error);
	tcase_add_test(tc, test_header_defects);
	tcase_add_test(tc, test_no_loadable_segment);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(linux_pvh_suite);
