// SPDX-License-Identifier: MIT
/*
 * Multiboot kernels: hand-built ELF32 images, one valid and each defect
 * alone; then the information block as the guest will read it. Images are
 * loaded from an exact-size heap copy, so ASan sees any read past the file.
 */
#include <check.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/loader.h"
#include "vmm/multiboot.h"

#define RAM		(8ULL << 20)
#define LOAD_ADDR	0x100000u
#define HDR_OFF		0x100
#define CODE_OFF	0x1000
#define CODE_LEN	16
#define IMAGE_MAX	(3 * 8192)

struct image {
	uint8_t bytes[IMAGE_MAX];
	size_t len;
	Elf32_Ehdr *eh;
	Elf32_Phdr *ph;		/* code, bss */
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

static void put_header(struct image *im, size_t off, uint32_t flags)
{
	uint32_t h[3] = { MB_HEADER_MAGIC, flags, -(MB_HEADER_MAGIC + flags) };

	memcpy(im->bytes + off, h, sizeof(h));
}

/* i386 ELF, header at 0x100, 16 bytes of code at 1 MiB, 8 KiB of bss after. */
static void build(struct image *im)
{
	memset(im, 0, sizeof(*im));
	im->len = CODE_OFF + CODE_LEN;
	im->eh = (Elf32_Ehdr *)im->bytes;
	im->ph = (Elf32_Phdr *)(im->bytes + sizeof(Elf32_Ehdr));
	memcpy(im->eh->e_ident, ELFMAG, SELFMAG);
	im->eh->e_ident[EI_CLASS] = ELFCLASS32;
	im->eh->e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh->e_ident[EI_VERSION] = EV_CURRENT;
	im->eh->e_type = ET_EXEC;
	im->eh->e_machine = EM_386;
	im->eh->e_version = EV_CURRENT;
	im->eh->e_entry = LOAD_ADDR + 4;
	im->eh->e_phoff = sizeof(Elf32_Ehdr);
	im->eh->e_ehsize = sizeof(Elf32_Ehdr);
	im->eh->e_phentsize = sizeof(Elf32_Phdr);
	im->eh->e_phnum = 2;
	im->ph[0] = (Elf32_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_offset = CODE_OFF, .p_vaddr = LOAD_ADDR, .p_paddr = LOAD_ADDR,
		.p_filesz = CODE_LEN, .p_memsz = CODE_LEN, .p_align = 0x1000 };
	im->ph[1] = (Elf32_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
		.p_offset = CODE_OFF, .p_vaddr = LOAD_ADDR + 0x1000,
		.p_paddr = LOAD_ADDR + 0x1000, .p_memsz = 0x2000, .p_align = 0x1000 };
	put_header(im, HDR_OFF, MB_HF_PAGE_ALIGN | MB_HF_MEMINFO);
	memset(im->bytes + CODE_OFF, 0x90, CODE_LEN);
}

static int load(struct image *im)
{
	uint8_t *copy = malloc(im->len ? im->len : 1);
	int r;

	memcpy(copy, im->bytes, im->len);
	r = loader_load_image(copy, im->len, &mem, &info, err, sizeof(err));
	free(copy);
	return r;
}

static void expect_error(struct image *im, const char *needle)
{
	ck_assert_int_eq(load(im), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

/* Nothing outside the segments may change when a load fails or succeeds. */
static void expect_low_memory_untouched(void)
{
	uint8_t *low = mem_gpa_to_host(&mem, 0, LOAD_ADDR);
	size_t i = 0;

	while (i < LOAD_ADDR && !low[i])
		i++;
	ck_assert_msg(i == LOAD_ADDR, "byte 0x%zx below 1 MiB written", i);
}

START_TEST(test_valid)
{
	struct image im;
	uint8_t *ram = mem_gpa_to_host(&mem, LOAD_ADDR, 0x3000);

	build(&im);
	memset(ram + 0x1000, 0xaa, 0x2000);
	ck_assert_int_eq(loader_image_kind(im.bytes, im.len), IMAGE_MULTIBOOT);
	ck_assert_int_eq(load(&im), 0);
	ck_assert_int_eq(info.kind, IMAGE_MULTIBOOT);
	ck_assert_uint_eq(info.entry.rip, LOAD_ADDR + 4);
	/* The boot vCPU alone, 32-bit flat, EAX = boot magic, EBX = the information block. */
	ck_assert_int_eq(info.entry.mode, IMAGE_ENTRY_FLAT32);
	ck_assert(!info.entry.all_vcpus);
	ck_assert_uint_eq(info.entry.rax, MB_BOOT_MAGIC);
	ck_assert_uint_eq(info.entry.rbx, MB_INFO_GPA);
	ck_assert_uint_eq(info.entry.rsi, 0);
	ck_assert_ptr_eq(loader_format(im.bytes, im.len)->load, multiboot_load_image);
	ck_assert_uint_eq(loader_format(im.bytes, im.len)->default_mem, 256ULL << 20);
	ck_assert_int_eq(loader_format(im.bytes, im.len)->default_pv, PV_KVM);
	ck_assert_uint_eq(info.segments, 2);
	ck_assert_uint_eq(info.image_end, LOAD_ADDR + 0x3000);
	ck_assert_uint_eq(ram[0], 0x90);
	ck_assert_uint_eq(ram[0x1000], 0);
	ck_assert_uint_eq(ram[0x2fff], 0);
	expect_low_memory_untouched();
}
END_TEST

START_TEST(test_elf64_is_not_multiboot)
{
	uint8_t elf64[EI_NIDENT] = { 0x7f, 'E', 'L', 'F', ELFCLASS64 };

	ck_assert_int_eq(loader_image_kind(elf64, sizeof(elf64)), IMAGE_ELF64);
	ck_assert_int_eq(loader_image_kind(elf64, 4), IMAGE_ELF64);
}
END_TEST

START_TEST(test_no_header)
{
	struct image im;

	build(&im);
	memset(im.bytes + HDR_OFF, 0, 12);
	expect_error(&im, "ELF32 file without a Multiboot header (magic 0x1badb002) in its first 8192 bytes");
}
END_TEST

START_TEST(test_header_past_8k)
{
	struct image im;

	build(&im);
	memset(im.bytes + HDR_OFF, 0, 12);
	im.len = 8192 + 12;
	put_header(&im, 8192, 0);
	expect_error(&im, "without a Multiboot header");
	/* The last aligned slot that still fits wholly inside 8 KiB counts. */
	memset(im.bytes + 8192, 0, 12);
	put_header(&im, 8192 - 12, 0);
	ck_assert_int_eq(multiboot_find_header(im.bytes, im.len, err, sizeof(err)), 8192 - 12);
}
END_TEST

START_TEST(test_header_misaligned)
{
	struct image im;

	build(&im);
	memset(im.bytes + HDR_OFF, 0, 12);
	put_header(&im, HDR_OFF + 2, 0);
	expect_error(&im, "without a Multiboot header");
}
END_TEST

START_TEST(test_header_cut_by_eof)
{
	struct image im;

	build(&im);
	memset(im.bytes + HDR_OFF, 0, 12);
	/* Magic and flags in the file, the checksum would lie past its end. */
	put_header(&im, 0x200, 0);
	im.len = 0x208;
	ck_assert_int_eq(multiboot_find_header(im.bytes, im.len, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "without a Multiboot header"));
}
END_TEST

START_TEST(test_bad_checksum)
{
	struct image im;

	build(&im);
	im.bytes[HDR_OFF + 8] ^= 1;
	expect_error(&im, "Multiboot header at offset 0x100: checksum");
}
END_TEST

START_TEST(test_video_flag)
{
	struct image im;

	build(&im);
	put_header(&im, HDR_OFF, MB_HF_VIDEO);
	expect_error(&im, "flags 0x00000004 ask for a video mode");
}
END_TEST

START_TEST(test_unknown_required_flag)
{
	struct image im;

	build(&im);
	put_header(&im, HDR_OFF, 1u << 7);
	expect_error(&im, "flags 0x00000080 require features");
}
END_TEST

START_TEST(test_optional_flag_ignored)
{
	struct image im;

	build(&im);
	put_header(&im, HDR_OFF, 1u << 20);
	ck_assert_int_eq(load(&im), 0);
}
END_TEST

START_TEST(test_address_fields)
{
	struct image im;

	build(&im);
	put_header(&im, HDR_OFF, MB_HF_ADDRS);
	expect_error(&im, "flags 0x00010000 use load addresses (bit 16)");
}
END_TEST

START_TEST(test_truncated)
{
	struct image im;

	build(&im);
	im.len = 40;
	expect_error(&im, "truncated: 40 bytes, the ELF32 header needs 52");
}
END_TEST

START_TEST(test_wrong_machine)
{
	struct image im;

	build(&im);
	im.eh->e_machine = EM_X86_64;
	expect_error(&im, "wrong machine 62: a Multiboot kernel is i386");
}
END_TEST

START_TEST(test_program_headers_past_eof)
{
	struct image im;

	build(&im);
	im.eh->e_phoff = im.len - 8;
	expect_error(&im, "truncated: program headers");
}
END_TEST

/* Below 1 MiB only wholly in conventional memory above page 0; nothing is written otherwise. */
START_TEST(test_segment_below_1m)
{
	struct image im;

	build(&im);
	im.ph[0].p_paddr = 0x0;	/* page 0: kvm-unit-tests' AP trampoline, the real-mode IVT */
	im.eh->e_entry = 0x4;
	expect_error(&im, "segment 0 [0x0, 0x10) lies below 0x100000 and outside [0x1000, 0x9fc00), minivmm's reserved area");
	expect_low_memory_untouched();
	im.ph[0].p_paddr = 0x9fc00 - 8;	/* runs into the EBDA */
	im.eh->e_entry = 0x9fc00 - 4;
	expect_error(&im, "segment 0 [0x9fbf8, 0x9fc08) lies below 0x100000 and outside");
	expect_low_memory_untouched();
}
END_TEST

/*
 * kvm-unit-tests' realmode.flat loads at 0x8000, over the default block at
 * 0x9000: the block moves page-aligned past the kernel, as QEMU puts it,
 * and EBX says where.
 */
START_TEST(test_low_kernel_moves_the_block)
{
	struct image im;
	const struct mb_info *mbi;

	build(&im);
	im.ph[0].p_paddr = 0x8000;
	im.ph[1].p_paddr = 0x9000;
	im.eh->e_entry = 0x8004;
	ck_assert_int_eq(load(&im), 0);
	ck_assert_uint_eq(info.image_start, 0x8000);
	ck_assert_uint_eq(info.image_end, 0xb000);
	ck_assert_uint_eq(info.entry.rbx, 0xb000);
	ck_assert_uint_eq(multiboot_info_gpa(0x400000, 0x500000), MB_INFO_GPA);
	ck_assert_int_eq(multiboot_write_info(&mem, info.entry.rbx, "realmode.flat", info.image_end,
					      NULL, err, sizeof(err)), 0);
	mbi = mem_gpa_to_host(&mem, 0xb000, sizeof(*mbi));
	ck_assert_uint_eq(mbi->cmdline, 0xb000 + MB_CMDLINE_OFF);
	ck_assert_uint_eq(mbi->mmap_addr, 0xb000 + MB_MMAP_OFF);
	ck_assert_str_eq((const char *)mem_gpa_to_host(&mem, mbi->cmdline, 14), "realmode.flat");
	/* The kernel's own bytes are still there: the code at 0x8000 is 0x90s. */
	ck_assert_uint_eq(*(uint8_t *)mem_gpa_to_host(&mem, 0x8000, 1), 0x90);
}
END_TEST

START_TEST(test_segment_outside_ram)
{
	struct image im;

	build(&im);
	im.ph[1].p_paddr = RAM - 0x1000;
	expect_error(&im, "segment 1 [0x7ff000, 0x801000) lies outside guest RAM");
}
END_TEST

START_TEST(test_segment_bytes_past_eof)
{
	struct image im;

	build(&im);
	im.ph[0].p_filesz = CODE_LEN + 1;
	im.ph[0].p_memsz = CODE_LEN + 1;
	expect_error(&im, "segment 0: file bytes 0x1000+0x11 run past the end");
}
END_TEST

START_TEST(test_entry_outside)
{
	struct image im;

	build(&im);
	im.eh->e_entry = 0x400000;
	expect_error(&im, "entry point 0x400000 is outside every loaded segment");
}
END_TEST

START_TEST(test_info_layout)
{
	const struct mb_info *mbi = mem_gpa_to_host(&mem, MB_INFO_GPA, sizeof(*mbi));
	const struct mb_mmap_entry *map;

	ck_assert_uint_eq(sizeof(struct mb_info), 88);
	ck_assert_uint_eq(offsetof(struct mb_info, cmdline), 16);
	ck_assert_uint_eq(offsetof(struct mb_info, mmap_length), 44);
	ck_assert_uint_eq(offsetof(struct mb_info, mmap_addr), 48);
	ck_assert_uint_eq(offsetof(struct mb_info, boot_loader_name), 64);
	ck_assert_uint_eq(sizeof(struct mb_mmap_entry), 24);
	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, "vmexit.flat cpuid ipi", 0x400000, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(mbi->flags, MB_IF_MEM | MB_IF_CMDLINE | MB_IF_MMAP | MB_IF_LOADER_NAME);
	ck_assert_uint_eq(mbi->mem_lower, 639);
	ck_assert_uint_eq(mbi->mem_upper, (RAM >> 10) - 1024);
	ck_assert_uint_eq(mbi->mods_count, 0);
	ck_assert_str_eq((const char *)mem_gpa_to_host(&mem, mbi->cmdline, 22), "vmexit.flat cpuid ipi");
	ck_assert_str_eq((const char *)mem_gpa_to_host(&mem, mbi->boot_loader_name, 8), "minivmm");
	ck_assert_uint_eq(mbi->mmap_length, 3 * 24);
	map = mem_gpa_to_host(&mem, mbi->mmap_addr, mbi->mmap_length);
	ck_assert_uint_eq(map[0].size, 20);
	ck_assert_uint_eq(map[0].addr, 0);
	ck_assert_uint_eq(map[0].len, 0x9fc00);
	ck_assert_uint_eq(map[0].type, MB_MMAP_RAM);
	ck_assert_uint_eq(map[1].type, MB_MMAP_RESERVED);
	ck_assert_uint_eq(map[1].addr + map[1].len, 0x100000);
	ck_assert_uint_eq(map[2].addr, 0x100000);
	ck_assert_uint_eq(map[2].addr + map[2].len, RAM);
	ck_assert_uint_eq(map[2].type, MB_MMAP_RAM);
}
END_TEST

START_TEST(test_info_errors)
{
	char big[MB_CMDLINE_MAX + 1];
	struct guest_mem small;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, big, 0x400000, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "kernel command line of 7169 bytes exceeds 7168"));
	ck_assert_int_eq(mem_init(&small, 1 << 20, err, sizeof(err)), 0);
	ck_assert_int_eq(multiboot_write_info(&small, MB_INFO_GPA, "", 0x100000, NULL, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "leaves nothing above 1 MiB"));
	mem_free(&small);
}
END_TEST

/* --initrd: one module, page-aligned after the kernel, named after the command line. */
START_TEST(test_info_module)
{
	static const char env[] = "QEMU_ACCEL=kvm\nERRATA_FORCE=y\n";
	const struct mb_module_file mod = { .data = env, .len = sizeof(env) - 1, .name = "/tmp/env" };
	const struct mb_info *mbi = mem_gpa_to_host(&mem, MB_INFO_GPA, sizeof(*mbi));
	const struct mb_module *e;

	ck_assert_uint_eq(sizeof(struct mb_module), 16);
	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, "k.flat x", 0x234567, &mod, err, sizeof(err)), 0);
	ck_assert_uint_eq(mbi->flags & MB_IF_MODS, MB_IF_MODS);
	ck_assert_uint_eq(mbi->mods_count, 1);
	e = mem_gpa_to_host(&mem, mbi->mods_addr, sizeof(*e));
	ck_assert_uint_eq(e->start, 0x235000);
	ck_assert_uint_eq(e->end, 0x235000 + sizeof(env) - 1);
	ck_assert_mem_eq(mem_gpa_to_host(&mem, e->start, sizeof(env) - 1), env, sizeof(env) - 1);
	ck_assert_uint_eq(e->string, MB_CMDLINE_GPA + sizeof("k.flat x"));
	ck_assert_str_eq((const char *)mem_gpa_to_host(&mem, e->string, 9), "/tmp/env");
	ck_assert_str_eq((const char *)mem_gpa_to_host(&mem, mbi->cmdline, 9), "k.flat x");
}
END_TEST

/* A module past RAM's end, or a name that overflows the command-line area: refused, named. */
START_TEST(test_info_module_errors)
{
	static char name[MB_CMDLINE_MAX];
	const struct mb_module_file big = { .data = name, .len = RAM, .name = "big.env" };
	struct mb_module_file empty = { .data = "", .len = 0, .name = "empty.env" };
	const struct mb_info *mbi = mem_gpa_to_host(&mem, MB_INFO_GPA, sizeof(*mbi));

	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, "k", 0x400000, &big, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "module big.env of"));
	ck_assert_ptr_nonnull(strstr(err, "does not fit"));
	memset(name, 'n', sizeof(name) - 1);
	empty.name = name;
	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, "k", 0x400000, &empty, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "kernel command line and module name"));
	/* An empty module is a module: kvm-unit-tests then reads an empty environment. */
	empty.name = "empty.env";
	ck_assert_int_eq(multiboot_write_info(&mem, MB_INFO_GPA, "k", 0x400000, &empty, err, sizeof(err)), 0);
	ck_assert_uint_eq(mbi->mods_count, 1);
}
END_TEST

static Suite *multiboot_suite(void)
{
	Suite *s = suite_create("multiboot");
	TCase *tc = tcase_create("loader");
	TCase *ti = tcase_create("info");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_elf64_is_not_multiboot);
	tcase_add_test(tc, test_no_header);
	tcase_add_test(tc, test_header_past_8k);
	tcase_add_test(tc, test_header_misaligned);
	tcase_add_test(tc, test_header_cut_by_eof);
	tcase_add_test(tc, test_bad_checksum);
	tcase_add_test(tc, test_video_flag);
	tcase_add_test(tc, test_unknown_required_flag);
	tcase_add_test(tc, test_optional_flag_ignored);
	tcase_add_test(tc, test_address_fields);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_wrong_machine);
	tcase_add_test(tc, test_program_headers_past_eof);
	tcase_add_test(tc, test_segment_below_1m);
	tcase_add_test(tc, test_low_kernel_moves_the_block);
	tcase_add_test(tc, test_segment_outside_ram);
	tcase_add_test(tc, test_segment_bytes_past_eof);
	tcase_add_test(tc, test_entry_outside);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(ti, setup, teardown);
	tcase_add_test(ti, test_info_layout);
	tcase_add_test(ti, test_info_errors);
	tcase_add_test(ti, test_info_module);
	tcase_add_test(ti, test_info_module_errors);
	suite_add_tcase(s, ti);
	return s;
}
UNIT_SUITE(multiboot_suite);
