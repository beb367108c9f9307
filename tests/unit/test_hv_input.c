// SPDX-License-Identifier: MIT
/*
 * The input-block readers (hv/internal.h) and the call handlers behind
 * them, handed blocks shorter than the fields they read. Decode sizes the
 * block from the call's headers, so only a handler bug gets here; that bug
 * must be the guest's INVALID_HYPERCALL_INPUT, never an abort of minivmm.
 */
#include <check.h>
#include <string.h>

#include "hv/internal.h"
#include "tests/unit/suites.h"

#define NR_VPS	4

static unsigned int host_calls;

static int no_gpa_read(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	(void)opaque;
	(void)gpa;
	(void)dst;
	(void)len;
	return -1;
}

static int no_gpa_write(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	(void)opaque;
	(void)gpa;
	(void)src;
	(void)len;
	return -1;
}

static int no_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	(void)opaque;
	(void)vcpu;
	(void)xmm;
	return -1;
}

static int count_flush(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	(void)opaque;
	(void)caller;
	(void)set;
	host_calls++;
	return 0;
}

static int count_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	(void)opaque;
	(void)set;
	(void)vector;
	host_calls++;
	return 0;
}

static struct hv *input_hv(void)
{
	static const struct hv_host_ops ops = {
		.read_gpa = no_gpa_read, .write_gpa = no_gpa_write, .read_xmm = no_xmm,
		.flush_vcpus = count_flush, .send_ipi = count_ipi,
	};
	struct hv_config cfg = { .nr_vcpus = NR_VPS, .flush_hint = true, .ipi_hint = true,
				 .ex_hint = true };
	struct hv *hv = hv_create(&cfg, &ops, NULL);

	ck_assert_ptr_nonnull(hv);
	host_calls = 0;
	return hv;
}

START_TEST(test_hv_in_readers)
{
	const uint8_t block[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct hv_call call = { .in = block, .in_len = sizeof(block) };
	uint64_t q = 1;
	uint32_t d = 1;
	uint8_t b = 1;

	ck_assert_uint_eq(hv_in_u64(&call, 4, &q), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(q, 0x0c0b0a0908070605ull);
	ck_assert_uint_eq(hv_in_u64(&call, 5, &q), HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(q, 0);
	ck_assert_uint_eq(hv_in_u32(&call, 8, &d), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(d, 0x0c0b0a09);
	ck_assert_uint_eq(hv_in_u32(&call, 9, &d), HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(d, 0);
	ck_assert_uint_eq(hv_in_u8(&call, 11, &b), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(b, 12);
	ck_assert_uint_eq(hv_in_u8(&call, 12, &b), HV_STATUS_INVALID_HYPERCALL_INPUT);
	/* An offset near SIZE_MAX must not wrap around into the block. */
	ck_assert_uint_eq(hv_in_u64(&call, SIZE_MAX - 3, &q), HV_STATUS_INVALID_HYPERCALL_INPUT);
	call.in_len = 0;
	ck_assert_uint_eq(hv_in_u8(&call, 0, &b), HV_STATUS_INVALID_HYPERCALL_INPUT);
}
END_TEST

/* Every length short of the fields each handler reads: the status, no host call. */
static void short_blocks(uint16_t code, unsigned int var_qwords, size_t full,
			 uint16_t (*fn)(struct hv *, unsigned int, const struct hv_call *))
{
	uint8_t block[64] = { 0x20 };	/* vector 0x20 in the IPI head, else harmless */
	struct hv *hv = input_hv();

	for (size_t len = 0; len < full; len++) {
		struct hv_call call = { .code = code, .var_qwords = var_qwords, .in = block,
					.in_len = len };

		ck_assert_msg(fn(hv, 0, &call) == HV_STATUS_INVALID_HYPERCALL_INPUT,
			      "call 0x%x with a %zu-byte block", code, len);
	}
	ck_assert_uint_eq(host_calls, 0);
	hv_destroy(hv);
}

START_TEST(test_hv_handlers_short_input)
{
	short_blocks(HVCALL_SEND_IPI, 0, 16, hv_call_send_ipi);
	short_blocks(HVCALL_SEND_IPI_EX, 1, 32, hv_call_send_ipi);
	short_blocks(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, 0, 24, hv_call_flush);
	short_blocks(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, 1, 40, hv_call_flush);
}
END_TEST

/* The full blocks do reach the host: the short ones failed for their length alone. */
START_TEST(test_hv_handlers_full_input)
{
	uint8_t block[40] = { 0x20 };
	struct hv *hv = input_hv();
	struct hv_call call = { .code = HVCALL_SEND_IPI, .in = block, .in_len = 16 };

	block[8] = 0x3;		/* VPs 0 and 1 */
	ck_assert_uint_eq(hv_call_send_ipi(hv, 0, &call), HV_STATUS_SUCCESS);
	memset(block, 0, sizeof(block));
	block[16] = 0x3;
	call = (struct hv_call){ .code = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, .in = block,
				 .in_len = 24 };
	ck_assert_uint_eq(hv_call_flush(hv, 0, &call), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host_calls, 2);
	hv_destroy(hv);
}
END_TEST

/* The VP-set decoder on its own, its bank list cut short. */
START_TEST(test_hv_vpset_short)
{
	uint8_t block[32] = { 0 };
	struct hv_call call = { .var_qwords = 1, .in = block, .in_len = sizeof(block) };
	struct hv *hv = input_hv();
	struct hv_vpmask set;

	block[16] = 1;		/* format SPARSE_4K at 8, bank 0 valid at 16 */
	block[24] = 0x5;	/* bank 0: VPs 0 and 2 */
	ck_assert_uint_eq(hv_vpset_parse(hv, &call, 8, &set), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(set.bits[0], 0x5);
	ck_assert_uint_eq(hv_vpset_parse(hv, &call, 9, &set), HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(hv_vpset_parse(hv, &call, SIZE_MAX, &set),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(hv_vpset_check_banks(&call, 40), HV_STATUS_INVALID_HYPERCALL_INPUT);
	hv_destroy(hv);
}
END_TEST

static Suite *hv_input_suite(void)
{
	Suite *s = suite_create("hv_input");
	TCase *tc = tcase_create("bounds");

	tcase_add_test(tc, test_hv_in_readers);
	tcase_add_test(tc, test_hv_handlers_short_input);
	tcase_add_test(tc, test_hv_handlers_full_input);
	tcase_add_test(tc, test_hv_vpset_short);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_input_suite);
