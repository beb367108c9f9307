// SPDX-License-Identifier: MIT
/* The hypercall page's spill block, as handed to the XMM-path calibration. */
#include <check.h>
#include <string.h>

#include "hv/internal.h"
#include "tests/unit/suites.h"

#define MOVDQU_STORE	"\xf3\x0f\x7f"

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

START_TEST(test_spill_insns_refuse_short_buffer)
{
	uint8_t block[47];

	memset(block, 0xaa, sizeof(block));
	ck_assert_uint_eq(hv_page_spill_insns(block, sizeof(block)), 0);
	ck_assert_uint_eq(block[0], 0xaa);
}
END_TEST

Suite *hv_page_suite(void)
{
	Suite *s = suite_create("hv_page");
	TCase *tc = tcase_create("spill");

	tcase_add_test(tc, test_spill_insns_are_the_page_s);
	tcase_add_test(tc, test_spill_insns_refuse_short_buffer);
	suite_add_tcase(s, tc);
	return s;
}
