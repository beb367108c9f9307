// SPDX-License-Identifier: MIT
/* hv/msr.c: the Hyper-V MSRs, and the hypercall page the HYPERCALL MSR places. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"


static void check_page(const struct fake_host *f, uint64_t gpa, const uint8_t *code, size_t len)
{
	size_t i;

	ck_assert_mem_eq(f->ram + gpa, code, len);
	for (i = len; i < 4096; i++)
		ck_assert_msg(f->ram[gpa + i] == 0xcc, "page byte %zu is %#x", i,
			      f->ram[gpa + i]);
}

static uint64_t msr_get(struct hv *hv, uint32_t msr)
{
	uint64_t val = 0xdeadbeef;

	ck_assert_int_eq(hv_msr_read(hv, 0, msr, &val), HV_MSR_OK);
	return val;
}

START_TEST(test_msr_guest_os_id)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);

	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_GUEST_OS_ID), 0);
	ck_assert_int_eq(hv_msr_write(hv, 2, HV_X64_MSR_GUEST_OS_ID, OS_ID | 0x1234), HV_MSR_OK);
	/* Partition-wide: every vCPU reads what one wrote. */
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_GUEST_OS_ID), OS_ID | 0x1234);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_page_plain)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);

	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA | HV_HYPERCALL_ENABLE);
	check_page(f, PAGE_GPA, fake_page_plain, fake_page_plain_len);
	/* Moving the page writes it at the new place. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      0x7000 | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	check_page(f, 0x7000, fake_page_plain, fake_page_plain_len);
	/* The last page of RAM is a page like any other. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      (RAM_SIZE - 4096) | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	check_page(f, RAM_SIZE - 4096, fake_page_plain, fake_page_plain_len);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_page_spill)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv;

	cfg.xmm_spill = true;
	hv = fake_hv_enabled(f, &cfg);
	check_page(f, PAGE_GPA, fake_page_spill, fake_page_spill_len);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_needs_os_id)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA);
	ck_assert_uint_eq(f->writes, 0);
	ck_assert_uint_eq(f->ram[PAGE_GPA], 0);
	/* Setting the identity later does not enable the page by itself. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_os_id_zero_disables)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_GUEST_OS_ID), 0);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_outside_ram)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	const uint64_t bad[] = { RAM_SIZE, MVM_RAM_MAX, 0xfffffffffffff000ull };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
					      bad[i] | HV_HYPERCALL_ENABLE), HV_MSR_GP);
		/* The faulting write changed nothing. */
		ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL),
				  PAGE_GPA | HV_HYPERCALL_ENABLE);
	}
	/* A disabled MSR may name any page: nothing is written there. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, RAM_SIZE), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), RAM_SIZE);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_rsvdp_bits)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	uint64_t val = 0x3000 | 0xffc | HV_HYPERCALL_ENABLE;

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, val), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), val);
	check_page(f, 0x3000, fake_page_plain, fake_page_plain_len);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_locked)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	uint64_t locked = 0x4000 | HV_HYPERCALL_LOCKED | HV_HYPERCALL_ENABLE;
	unsigned int writes;

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, locked), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), locked);
	check_page(f, 0x4000, fake_page_plain, fake_page_plain_len);
	writes = f->writes;

	/* Relocating, disabling and unlocking are all ignored, without #GP. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      0x5000 | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, 0), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      RAM_SIZE | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), locked);
	ck_assert_uint_eq(f->writes, writes);
	ck_assert_uint_eq(f->ram[0x5000], 0);

	/* A locked page survives the guest OS identity being cleared. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), locked);
	ck_assert_uint_eq(fake_call(hv, 0xb | FAST, 0x40, 1).rax, HV_STATUS_SUCCESS);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_vp_index)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);
	uint64_t val = 0;

	ck_assert_int_eq(hv_msr_read(hv, 7, HV_X64_MSR_VP_INDEX, &val), HV_MSR_OK);
	ck_assert_uint_eq(val, 7);
	ck_assert_int_eq(hv_msr_read(hv, 129, HV_X64_MSR_VP_INDEX, &val), HV_MSR_OK);
	ck_assert_uint_eq(val, 129);
	ck_assert_int_eq(hv_msr_write(hv, 7, HV_X64_MSR_VP_INDEX, 7), HV_MSR_GP);
	ck_assert_int_eq(hv_msr_write(hv, 7, HV_X64_MSR_VP_INDEX, 3), HV_MSR_GP);
	ck_assert_int_eq(hv_msr_read(hv, 7, HV_X64_MSR_VP_INDEX, &val), HV_MSR_OK);
	ck_assert_uint_eq(val, 7);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_unknown)
{
	/* TIME_REF_COUNT, EOI, SINT0, the last claimed MSR, and its neighbour. */
	const uint32_t msrs[] = { 0x40000020, 0x40000070, 0x40000090, 0x400000ff, 0x40000003 };
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);
	uint64_t val = 0x1111;
	size_t i;

	for (i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
		ck_assert_int_eq(hv_msr_read(hv, 0, msrs[i], &val), HV_MSR_GP);
		ck_assert_int_eq(hv_msr_write(hv, 0, msrs[i], 0), HV_MSR_GP);
	}
	ck_assert_uint_eq(val, 0x1111);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

static Suite *hv_msr_suite(void)
{
	Suite *s = suite_create("hv_msr");
	TCase *tc = tcase_create("msr");

	tcase_add_test(tc, test_msr_guest_os_id);
	tcase_add_test(tc, test_msr_hypercall_page_plain);
	tcase_add_test(tc, test_msr_hypercall_page_spill);
	tcase_add_test(tc, test_msr_hypercall_needs_os_id);
	tcase_add_test(tc, test_msr_os_id_zero_disables);
	tcase_add_test(tc, test_msr_hypercall_outside_ram);
	tcase_add_test(tc, test_msr_hypercall_rsvdp_bits);
	tcase_add_test(tc, test_msr_hypercall_locked);
	tcase_add_test(tc, test_msr_vp_index);
	tcase_add_test(tc, test_msr_unknown);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_msr_suite);
