// SPDX-License-Identifier: MIT
/*
 * bzImages built at test time around the synthetic vmlinux, their payload
 * compressed with the real libraries: each compression loads, each defect
 * gives its own error. A real kernel runs too when $MINIVMM_LINUX_BZIMAGE
 * names one (and $MINIVMM_LINUX_PVH_ENTRY its expected entry, in hex).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/linux_fixture.h"
#include "tests/unit/suites.h"
#include "vmm/linux.h"
#include "vmm/linux_bzimage.h"
#include "vmm/loader.h"

#define RAM	(8ull << 20)

static struct guest_mem mem;
static struct linux_image img;
static struct fake_vmlinux vml;
static struct fake_bzimage bz;
static char err[512];

static void setup(void)
{
	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
	fake_vmlinux_build(&vml, 0);
	bz.b = NULL;
}

static void teardown(void)
{
	fake_bzimage_free(&bz);
	mem_free(&mem);
}

static void expect_error(const char *needle)
{
	err[0] = '\0';
	ck_assert_int_eq(linux_load(bz.b, bz.len, &mem, &img, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

static void expect_parse_error(const char *needle)
{
	struct linux_bzimage parsed;

	err[0] = '\0';
	ck_assert_int_eq(linux_bzimage_parse(bz.b, bz.len, &parsed, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, needle), "error '%s' does not mention '%s'", err, needle);
}

static void expect_good(enum fake_comp comp, const char *format)
{
	const uint8_t *text = mem_gpa_to_host(&mem, FAKE_TEXT_GPA, FAKE_TEXT_LEN);

	fake_bzimage_build(&bz, comp, vml.b, vml.len);
	ck_assert(linux_probe(bz.b, bz.len));
	ck_assert_int_eq(linux_load(bz.b, bz.len, &mem, &img, err, sizeof(err)), 0);
	ck_assert_str_eq(img.format, format);
	ck_assert_uint_eq(img.entry, FAKE_ENTRY);
	ck_assert_uint_eq(img.kernel_end, FAKE_END);
	ck_assert_uint_eq(img.cmdline_max, FAKE_BZ_CMDLINE);
	ck_assert_uint_eq(img.vmlinux_len, FAKE_LEN);
	ck_assert_int_eq(memcmp(text, vml.b + FAKE_TEXT_OFF, FAKE_TEXT_LEN), 0);
}

START_TEST(test_xz_loads)
{
	expect_good(FAKE_XZ, "bzImage 2.15, xz");
}
END_TEST

START_TEST(test_zstd_loads)
{
	expect_good(FAKE_ZSTD, "bzImage 2.15, zstd");
}
END_TEST

START_TEST(test_gzip_loads)
{
	expect_good(FAKE_GZIP, "bzImage 2.15, gzip");
}
END_TEST

START_TEST(test_vmlinux_loads_directly)
{
	ck_assert(linux_probe(vml.b, vml.len));
	ck_assert_int_eq(linux_load(vml.b, vml.len, &mem, &img, err, sizeof(err)), 0);
	ck_assert_str_eq(img.format, "ELF64 vmlinux");
	ck_assert_uint_eq(img.entry, FAKE_ENTRY);
	ck_assert_uint_eq(img.cmdline_max, LINUX_CMDLINE_MAX_DEF);
	ck_assert_uint_eq(img.unpack_ns, 0);
}
END_TEST

START_TEST(test_truncated)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	bz.len = 0x240;
	expect_parse_error("truncated bzImage: 576 bytes, the setup header ends at 620");
	expect_error("truncated bzImage: 576 bytes");
	bz.len = 0x205;
	expect_error("not a Linux kernel");	/* too short even to probe */
	bz.len = 0x300;
	bz.b[0x1f1] = 7;			/* 8 sectors: 4096 bytes of setup */
	expect_error("truncated bzImage: 768 bytes, but 7 setup sectors end at 4096");
}
END_TEST

START_TEST(test_payload_cut_short)
{
	fake_bzimage_build(&bz, FAKE_ZSTD, vml.b, vml.len);
	bz.len -= 10;
	expect_error("bzImage payload [0x420, +0x");
	expect_error("runs past the end of the");
}
END_TEST

START_TEST(test_wrong_hdrs)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	memcpy(bz.b + 0x202, "HdrT", 4);
	expect_parse_error("not a bzImage: no \"HdrS\" at 0x202 (found 0x54726448)");
	ck_assert(!linux_probe(bz.b, bz.len));
	expect_error("not a Linux kernel: neither a bzImage");
	memcpy(bz.b + 0x202, "HdrS", 4);
	fake_bzimage_put16(&bz, 0x1fe, 0x55aa);
	expect_parse_error("boot flag 0x55aa at 0x1fe, expected 0xaa55");
}
END_TEST

START_TEST(test_protocol_too_old)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	fake_bzimage_put16(&bz, 0x206, 0x0207);
	expect_error("bzImage boot protocol 2.07 is too old: minivmm needs 2.08+");
	fake_bzimage_put16(&bz, 0x206, 0x0208);
	bz.b[0x211] = 0;
	expect_error("zImage (loadflags 0x00 lacks LOADED_HIGH)");
}
END_TEST

START_TEST(test_payload_outside_file)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	fake_bzimage_put32(&bz, 0x248, 0xfffffff0u);
	expect_error("bzImage payload [0x1000003f0, +0x");
	fake_bzimage_put32(&bz, 0x248, FAKE_BZ_PAYLOAD);
	fake_bzimage_put32(&bz, 0x24c, bz.len);
	expect_error("runs past the end of the");
	fake_bzimage_put32(&bz, 0x24c, 4);
	expect_error("bzImage payload of 4 bytes is too short");
}
END_TEST

START_TEST(test_corrupt_xz)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	bz.b[bz.payload_off + bz.stream_len / 2] ^= 0x55;
	expect_error("xz: compressed data is corrupt (LZMA_DATA_ERROR)");
}
END_TEST

START_TEST(test_truncated_xz)
{
	uint32_t size = FAKE_LEN;

	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	/* Keep the trailer, lose the stream's last 16 bytes (index and footer). */
	memcpy(bz.b + bz.payload_off + bz.stream_len - 16, &size, 4);
	fake_bzimage_put32(&bz, 0x24c, bz.stream_len - 12);
	bz.len -= 16;
	expect_error("xz: stream ends early (LZMA_BUF_ERROR)");
}
END_TEST

START_TEST(test_corrupt_zstd)
{
	fake_bzimage_build(&bz, FAKE_ZSTD, vml.b, vml.len);
	bz.b[bz.payload_off + bz.stream_len / 2] ^= 0x55;
	expect_error("zstd: ");
	fake_bzimage_free(&bz);
	fake_bzimage_build(&bz, FAKE_ZSTD, vml.b, vml.len);
	bz.b[bz.payload_off + 4] = 0xff;	/* frame header descriptor: reserved bit set */
	expect_error("zstd: Unsupported frame parameter");
}
END_TEST

START_TEST(test_corrupt_gzip)
{
	fake_bzimage_build(&bz, FAKE_GZIP, vml.b, vml.len);
	bz.b[bz.payload_off + 3] = 0xe0;	/* reserved flag bits */
	expect_error("gzip: unknown header flags set");
}
END_TEST

START_TEST(test_unknown_compression)
{
	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	memcpy(bz.b + bz.payload_off, "ABCD", 4);
	expect_error("bzImage payload starts with 41 42 43 44: not a compression format minivmm knows");
}
END_TEST

START_TEST(test_unsupported_compressions)
{
	static const struct { const char *magic; const char *name; } cases[] = {
		{ "\x02\x21\x4c\x18", "lz4" }, { "\x5d\x00\x00\x80", "lzma" },
		{ "BZh9", "bzip2" }, { "\x89LZO", "lzo" },
	};
	char want[128];

	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bz.b + bz.payload_off, cases[i].magic, 4);
		snprintf(want, sizeof(want), "compressed with %s, which minivmm cannot unpack",
			 cases[i].name);
		expect_error(want);
	}
}
END_TEST

START_TEST(test_size_trailer_mismatch)
{
	size_t trailer;

	fake_bzimage_build(&bz, FAKE_XZ, vml.b, vml.len);
	trailer = bz.payload_off + bz.stream_len;
	fake_bzimage_put32(&bz, trailer, FAKE_LEN + 1);
	expect_error("xz stream unpacks to 4608 bytes, its size trailer says 4609");
	fake_bzimage_put32(&bz, trailer, FAKE_LEN - 1);
	expect_error("xz stream unpacks to more than the 4607 bytes its size trailer says");
	fake_bzimage_put32(&bz, trailer, 0);
	expect_error("size trailer says 0 bytes");
	fake_bzimage_put32(&bz, trailer, 0xfffffff0u);
	expect_error("bzImage payload unpacks to 4096 MiB, more than minivmm's 1024 MiB limit");
}
END_TEST

START_TEST(test_size_trailer_mismatch_zstd_gzip)
{
	fake_bzimage_build(&bz, FAKE_ZSTD, vml.b, vml.len);
	fake_bzimage_put32(&bz, bz.payload_off + bz.stream_len, FAKE_LEN - 1);
	expect_error("zstd stream unpacks to more than the 4607 bytes");
	fake_bzimage_put32(&bz, bz.payload_off + bz.stream_len, FAKE_LEN + 1);
	expect_error("zstd stream unpacks to 4608 bytes, its size trailer says 4609");
	fake_bzimage_free(&bz);
	fake_bzimage_build(&bz, FAKE_GZIP, vml.b, vml.len);
	fake_bzimage_put32(&bz, bz.payload_off + bz.stream_len, FAKE_LEN - 1);
	expect_error("gzip stream unpacks to more than the 4607 bytes");
	fake_bzimage_put32(&bz, bz.payload_off + bz.stream_len, FAKE_LEN + 1);
	expect_error("gzip stream unpacks to 4608 bytes, its size trailer says 4609");
}
END_TEST

START_TEST(test_payload_not_elf)
{
	static const char text[] = "this is not a kernel, just some text to compress";

	fake_bzimage_build(&bz, FAKE_GZIP, text, sizeof(text));
	expect_error("bzImage payload unpacked to 49 bytes that are not an ELF vmlinux");
}
END_TEST

START_TEST(test_vmlinux_without_pvh)
{
	fake_vmlinux_build(&vml, FAKE_NO_PVH);
	fake_bzimage_build(&bz, FAKE_ZSTD, vml.b, vml.len);
	ck_assert(linux_probe(bz.b, bz.len));	/* a bzImage, whatever is inside */
	expect_error("bzImage's not a PVH kernel: no XEN_ELFNOTE_PHYS32_ENTRY");
}
END_TEST

START_TEST(test_comp_names)
{
	ck_assert_str_eq(linux_comp_name(LINUX_COMP_XZ), "xz");
	ck_assert_str_eq(linux_comp_name(LINUX_COMP_LZO), "lzo");
	ck_assert_str_eq(linux_comp_name((enum linux_comp)99), "unknown");
	ck_assert_int_eq(linux_comp_detect((const uint8_t *)"\x1f\x9e", 2), LINUX_COMP_GZIP);
	ck_assert_int_eq(linux_comp_detect((const uint8_t *)"\x1f", 1), LINUX_COMP_UNKNOWN);
}
END_TEST

/* Only with $MINIVMM_LINUX_BZIMAGE: a real kernel, e.g. Debian's, in 256 MiB. */
START_TEST(test_real_kernel)
{
	const char *path = getenv("MINIVMM_LINUX_BZIMAGE");
	const char *want = getenv("MINIVMM_LINUX_PVH_ENTRY");
	struct guest_mem big;
	size_t len;
	void *buf = loader_read_file(path, &len, err, sizeof(err));

	ck_assert_msg(buf, "%s", err);
	ck_assert_int_eq(mem_init(&big, 256ull << 20, err, sizeof(err)), 0);
	ck_assert(linux_probe(buf, len));
	ck_assert_msg(!linux_load(buf, len, &big, &img, err, sizeof(err)), "%s: %s", path, err);
	printf("linux_bzimage: %s: %s, PVH entry 0x%llx%s, kernel [0x%llx, 0x%llx), %zu-byte vmlinux unpacked in %.1f ms\n",
	       path, img.format, (unsigned long long)img.entry, img.relocatable ? " (relocatable)" : "",
	       (unsigned long long)img.kernel_start, (unsigned long long)img.kernel_end,
	       img.vmlinux_len, img.unpack_ns / 1e6);
	if (want)
		ck_assert_uint_eq(img.entry, strtoull(want, NULL, 16));
	mem_free(&big);
	free(buf);
}
END_TEST

static Suite *linux_bzimage_suite(void)
{
	Suite *s = suite_create("linux_bzimage");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_xz_loads);
	tcase_add_test(tc, test_zstd_loads);
	tcase_add_test(tc, test_gzip_loads);
	tcase_add_test(tc, test_vmlinux_loads_directly);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_payload_cut_short);
	tcase_add_test(tc, test_wrong_hdrs);
	tcase_add_test(tc, test_protocol_too_old);
	tcase_add_test(tc, test_payload_outside_file);
	tcase_add_test(tc, test_corrupt_xz);
	tcase_add_test(tc, test_truncated_xz);
	tcase_add_test(tc, test_corrupt_zstd);
	tcase_add_test(tc, test_corrupt_gzip);
	tcase_add_test(tc, test_unknown_compression);
	tcase_add_test(tc, test_unsupported_compressions);
	tcase_add_test(tc, test_size_trailer_mismatch);
	tcase_add_test(tc, test_size_trailer_mismatch_zstd_gzip);
	tcase_add_test(tc, test_payload_not_elf);
	tcase_add_test(tc, test_vmlinux_without_pvh);
	tcase_add_test(tc, test_comp_names);
	if (getenv("MINIVMM_LINUX_BZIMAGE")) {
		tcase_add_test(tc, test_real_kernel);
		tcase_set_timeout(tc, 120);
	} else {
		fprintf(stderr, "linux_bzimage: real-kernel test skipped (set MINIVMM_LINUX_BZIMAGE=path/to/vmlinuz)\n");
	}
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(linux_bzimage_suite);
