// SPDX-License-Identifier: MIT
/*
 * The hypercall page's forms (with and without the leading ENDBR64) and its
 * spill block, as handed to the XMM-path calibration.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hv/internal.h"
#include "tests/unit/hv_fake.h"
#include "minivmm/abi.h"
#include "tests/unit/suites.h"

#define MOVDQU_STORE	"\xf3\x0f\x7f"
#define ENDBR64		"\xf3\x0f\x1e\xfa"
#define PORT_STR(p)	PORT_STR2(p)
#define PORT_STR2(p)	#p
#define PLAIN_LEN	3	/* out %al,$port; ret */
#define SPILL_LEN	0x44

static size_t count(const uint8_t *p, size_t len, const char *pat, size_t plen)
{
	size_t n = 0;

	for (size_t i = 0; i + plen <= len; i++)
		n += !memcmp(p + i, pat, plen);
	return n;
}

/* Exactly the instructions the spill page runs for an XMM-fast call and the plain page does not. */
START_TEST(test_spill_insns_are_the_page_s)
{
	static uint8_t page[HV_PAGE_SIZE];
	struct hv_config cfg = { .nr_vcpus = 1, .xmm_spill = true };
	uint8_t block[64];
	size_t len = hv_page_spill_insns(block, sizeof(block));

	hv_page_fill(&cfg, page);
	ck_assert_uint_eq(len, 40 + 8);
	/* lea -0x80(%rsp),%rsp first, lea 0x80(%rsp),%rsp last */
	ck_assert_mem_eq(block, "\x48\x8d\x64\x24\x80", 5);
	ck_assert_mem_eq(block + len - 8, "\x48\x8d\xa4\x24\x80\x00\x00\x00", 8);
	ck_assert_uint_eq(count(block, len, MOVDQU_STORE, 3), 6);
	/* Copied from the page itself, both pieces around its trap. */
	ck_assert_mem_eq(block, page + 0x11, 40);
	ck_assert_mem_eq(block + 40, page + 0x3b, 8);
	ck_assert_mem_eq(page + 0x39, "\xe6\xf9", 2);
}
END_TEST

static void check_int3_from(const uint8_t *page, size_t from)
{
	for (size_t i = from; i < HV_PAGE_SIZE; i++)
		ck_assert_msg(page[i] == 0xcc, "page byte %zu is %#x", i, page[i]);
}

/* endbr_page puts ENDBR64 first and the unchanged code right after it, in both forms. */
START_TEST(test_endbr_page_both_forms)
{
	static uint8_t bare[HV_PAGE_SIZE], page[HV_PAGE_SIZE];

	for (int spill = 0; spill <= 1; spill++) {
		struct hv_config cfg = { .nr_vcpus = 1, .xmm_spill = spill };
		size_t len = spill ? SPILL_LEN : PLAIN_LEN;

		ck_assert_uint_eq(hv_page_fill(&cfg, bare), len);
		ck_assert_uint_ne(bare[0], 0xf3);	/* off: no ENDBR64, as before */
		cfg.endbr_page = true;
		ck_assert_uint_eq(hv_page_fill(&cfg, page), 4 + len);
		ck_assert_mem_eq(page, ENDBR64, 4);
		ck_assert_mem_eq(page + 4, bare, len);
		check_int3_from(page, 4 + len);
	}
}
END_TEST

/* The ENDBR64 is run by both forms, so the spill-only block does not move into it. */
START_TEST(test_endbr_spill_block_unchanged)
{
	static uint8_t page[HV_PAGE_SIZE];
	struct hv_config cfg = { .nr_vcpus = 1, .xmm_spill = true, .endbr_page = true };
	uint8_t block[64];
	size_t len = hv_page_spill_insns(block, sizeof(block));

	hv_page_fill(&cfg, page);
	ck_assert_uint_eq(len, 48);
	ck_assert_mem_eq(block, page + 4 + 0x11, 40);
	ck_assert_mem_eq(block + 40, page + 4 + 0x3b, 8);
}
END_TEST

/* "  1b:\tf3 0f ...\tmovdqu %xmm2,0x20(%rsp)" -> "movdqu %xmm2,0x20(%rsp)" */
static bool objdump_insn(const char *line, char *insn, size_t size)
{
	const char *p = strchr(line, '\t');
	size_t n = 0;

	if (!p || !strchr(line, ':') || !(p = strchr(p + 1, '\t')))
		return false;	/* header, or the tail of a long encoding */
	for (p++; *p && *p != '\n' && n + 1 < size; p++) {
		if (*p == ' ' && (n == 0 || insn[n - 1] == ' '))
			continue;
		insn[n++] = *p;
	}
	while (n && insn[n - 1] == ' ')
		n--;
	insn[n] = 0;
	if (!strcmp(insn, "retq"))	/* older binutils */
		strcpy(insn, "ret");
	return n > 0;
}

/* As the disassembler sees it: ENDBR64, then branches that land 4 bytes further on. */
START_TEST(test_endbr_spill_disassembly)
{
	static const char *const want[] = {
		"endbr64", "test $0x10000,%ecx", "je 0x12", "cmp $0xb,%cx", "jne 0x15",
		"out %al,$" PORT_STR(MVM_PORT_HCALL), "ret", "lea -0x80(%rsp),%rsp",
	};
	static uint8_t page[HV_PAGE_SIZE];
	struct hv_config cfg = { .nr_vcpus = 1, .xmm_spill = true, .endbr_page = true };
	char path[] = "/tmp/hv-endbr-XXXXXX", cmd[128], line[256], insn[128];
	size_t nr = 0;
	FILE *p;
	int fd;

	hv_page_fill(&cfg, page);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, page, 4 + SPILL_LEN), 4 + SPILL_LEN);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objdump -D -b binary -mi386:x86-64 %s", path);
	p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "objdump (binutils) is needed: %s", cmd);
	while (fgets(line, sizeof(line), p))
		if (objdump_insn(line, insn, sizeof(insn)) && nr < sizeof(want) / sizeof(want[0]))
			ck_assert_str_eq(insn, want[nr++]);
	ck_assert_int_eq(pclose(p), 0);
	unlink(path);
	ck_assert_uint_eq(nr, sizeof(want) / sizeof(want[0]));
	/* The targets: the plain trap at 0x12 and the spill at 0x15. */
	ck_assert_uint_eq(page[0x12], 0xe6);
	ck_assert_uint_eq(page[0x13], MVM_PORT_HCALL);
	ck_assert_uint_eq(page[0x14], 0xc3);
	ck_assert_mem_eq(page + 0x15, "\x48\x8d\x64\x24\x80", 5);
}
END_TEST

START_TEST(test_spill_insns_refuse_short_buffer)
{
	uint8_t block[47];

	memset(block, 0xaa, sizeof(block));
	ck_assert_uint_eq(hv_page_spill_insns(block, sizeof(block)), 0);
	ck_assert_uint_eq(block[0], 0xaa);
}
END_TEST

/* ---- the page bytes, as the disassembler sees them ----------------------- */

#define OUT_HCALL	"out %al,$" PORT_STR(MVM_PORT_HCALL)
#define PORT_STR(p)	PORT_STR2(p)
#define PORT_STR2(p)	#p

static const char *const spill_asm[] = {
	"test $0x10000,%ecx",
	"je 0xe",
	"cmp $0xb,%cx",
	"jne 0x11",
	OUT_HCALL,
	"ret",
	"lea -0x80(%rsp),%rsp",
	"movdqu %xmm0,(%rsp)",
	"movdqu %xmm1,0x10(%rsp)",
	"movdqu %xmm2,0x20(%rsp)",
	"movdqu %xmm3,0x30(%rsp)",
	"movdqu %xmm4,0x40(%rsp)",
	"movdqu %xmm5,0x50(%rsp)",
	OUT_HCALL,
	"lea 0x80(%rsp),%rsp",
	"ret",
};

START_TEST(test_page_disassembly)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	char path[] = "/tmp/hv-page-XXXXXX";
	char cmd[128], line[256], insn[128];
	size_t nr = 0;
	FILE *p;
	int fd;

	cfg.xmm_spill = true;
	hv_destroy(fake_hv_enabled(f, &cfg));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, f->ram + PAGE_GPA, fake_page_spill_len),
			 (ssize_t)fake_page_spill_len);
	close(fd);
	snprintf(cmd, sizeof(cmd), "objdump -D -b binary -mi386:x86-64 %s", path);
	p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "objdump (binutils) is needed: %s", cmd);
	while (fgets(line, sizeof(line), p)) {
		if (!objdump_insn(line, insn, sizeof(insn)))
			continue;
		ck_assert_msg(nr < sizeof(spill_asm) / sizeof(spill_asm[0]),
			      "extra instruction '%s'", insn);
		ck_assert_str_eq(insn, spill_asm[nr]);
		nr++;
	}
	ck_assert_int_eq(pclose(p), 0);
	unlink(path);
	ck_assert_uint_eq(nr, sizeof(spill_asm) / sizeof(spill_asm[0]));
	fake_free(f);
}
END_TEST


static Suite *hv_page_suite(void)
{
	Suite *s = suite_create("hv_page");
	TCase *tc = tcase_create("page");

	tcase_add_test(tc, test_spill_insns_are_the_page_s);
	tcase_add_test(tc, test_spill_insns_refuse_short_buffer);
	tcase_add_test(tc, test_page_disassembly);
	suite_add_tcase(s, tc);
	tc = tcase_create("endbr");
	tcase_add_test(tc, test_endbr_page_both_forms);
	tcase_add_test(tc, test_endbr_spill_block_unchanged);
	tcase_add_test(tc, test_endbr_spill_disassembly);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_page_suite);
