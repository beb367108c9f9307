// SPDX-License-Identifier: MIT
/*
 * hv/hypercall.c: decoding a hypercall whatever its code -- where a regular
 * call's input may lie, unknown codes, reserved input-value bits, every
 * ReservedZ bit of every call in every encoding, what is not input -- and
 * the corner cases outside the tables: an interface not yet enabled, host
 * callbacks failing, no guest read before decode, concurrent vCPUs.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

static const struct hc_row decode_rows[] = {
	/* Where the input block of a regular call may lie */
	{ "gpa/misaligned", .rcx = 0xb, .rdx = IN_GPA + 4, MEM(0x40, 1), REG,
	  .status = ST_ALIGN },
	{ "gpa/page-cross", .rcx = 0xb, .rdx = IN_GPA + 0xff8, REG, .status = ST_ALIGN },
	{ "gpa/ends-at-page-end", .rcx = 0xb, .rdx = IN_GPA + 0xff0, MEM(0x40, 1), REG,
	  IPI(0x40, { 0x1 }) },
	{ "gpa/last-bytes-of-ram", .rcx = 0xb, .rdx = RAM_SIZE - 16, MEM(0x40, 1), REG,
	  IPI(0x40, { 0x1 }) },
	{ "gpa/past-ram", .rcx = 0xb, .rdx = RAM_SIZE, REG, .status = ST_ALIGN },
	{ "gpa/far-past-ram", .rcx = 0xb, .rdx = MVM_RAM_MAX, REG, .status = ST_ALIGN },
	{ "gpa/last-page-below-2^64", .rcx = 0xb, .rdx = 0xfffffffffffff000ull, REG,
	  .status = ST_ALIGN },
	{ "gpa/ends-at-2^64", .rcx = 0xb, .rdx = 0xfffffffffffffff0ull, REG,
	  .status = ST_ALIGN },
	{ "gpa/wraps-2^64", .rcx = 0xb, .rdx = 0xfffffffffffffff8ull, REG,
	  .status = ST_ALIGN },
	/* Codes minivmm does not implement */
	{ "unknown/0x0001", .rcx = 0x1, .rdx = IN_GPA, REG, .status = ST_CODE },
	{ "unknown/0x0008-notify-long-spin-wait", .rcx = 0x8, REG, .status = ST_CODE },
	{ "unknown/0xffff", .rcx = 0xffff, REG, .status = ST_CODE },
	{ "unknown/fast-without-xmm", .cfg = CFG_NOXMM, .rcx = 0x4 | FAST, RFAST,
	  .status = ST_CODE },
	{ "unknown/with-reserved-bit", .rcx = 0x1 | (1ull << 27), REG, .status = ST_CODE },

	/* Reserved input-value bits (every bit is covered by test_reserved_bits) */
	{ "rsvd/bit-27", .rcx = 0xb | FAST | (1ull << 27), .rdx = 0x40, .r8 = 1, RFAST,
	  .status = ST_INPUT },
	{ "rsvd/bit-31-nested", .rcx = 0xb | FAST | HV_HCALL_NESTED_BIT, .rdx = 0x40, .r8 = 1,
	  RFAST, .status = ST_INPUT },
	{ "rsvd/bit-44", .rcx = 0x3 | FAST | REPS(1) | (1ull << 44), .xmm = { 1, GVA1 },
	  XFAST, .status = ST_INPUT },
	{ "rsvd/bit-63", .rcx = 0x2 | (1ull << 63), .rdx = IN_GPA, MEM(0, ALLP, 0), REG,
	  .status = ST_INPUT },
	{ "rsvd/before-xmm-ud", .cfg = CFG_NOXMM, .rcx = 0x2 | FAST | (1ull << 60), XFAST,
	  .status = ST_INPUT },
	/* Not input, so not ReservedZ: what lies past the block, the output GPA. */
	{ "ignored/space/xmm/past-block", .rcx = 0x2 | FAST, .r8 = 0,
	  .xmm = { 0x1, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
		   ~0ull }, XFAST, FLUSHED({ 0x1 }) },
	{ "ignored/ipiex/xmm/past-block", .rcx = 0x15 | FAST | VAR(1), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0x1, 0x2, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
		   ~0ull }, XFAST, IPI(0x50, { 0x2 }) },
	{ "ignored/ipi/regular/output-gpa", .rcx = 0xb, .rdx = IN_GPA, .r8 = 0xdeadbeef3ull,
	  MEM(0x40, 0x1), REG, IPI(0x40, { 0x1 }) },
	{ "ignored/space/regular/output-gpa", .rcx = 0x2, .rdx = IN_GPA, .r8 = ~0ull,
	  MEM(0, 0, 0x1), REG, FLUSHED({ 0x1 }) },
};

START_TEST(test_decode_table)
{
	fake_run_row(&decode_rows[_i]);
}
END_TEST

/* ---- every reserved bit, for every call in every encoding -------------- */

/* Written out here rather than taken from hv/, so the test states the TLFS. */
#define FLAGS_RSVDZ	(~0xfull)		/* flush flags 63:4 */
#define IPI_HEAD_RSVDZ	(~0ull << 37)		/* HV_INPUT_VTL 7:5, bytes 5..7 */

/*
 * A valid call as its input block; the fast bit of rcx says whether the
 * block goes to memory or to RDX, R8 and XMM0.. . `rsvdz` is the ReservedZ
 * field of the block: the qword that holds it and its bits.
 */
struct valid_call {
	const char *name;
	uint64_t rcx;
	uint64_t in[6];
	size_t nin;
	size_t rsvdz_qword;
	uint64_t rsvdz;
};

static const struct valid_call valid_calls[] = {
	{ "space/regular", 0x2, { 0x5000, 0, 0x1 }, 3, 1, FLAGS_RSVDZ },
	{ "space/xmm", 0x2 | FAST, { 0x5000, 0, 0x1 }, 3, 1, FLAGS_RSVDZ },
	{ "list/regular", 0x3 | REPS(1), { 0, 0, 0x1, GVA1 }, 4, 1, FLAGS_RSVDZ },
	{ "list/xmm", 0x3 | FAST | REPS(1), { 0, 0, 0x1, GVA1 }, 4, 1, FLAGS_RSVDZ },
	{ "ipi/regular", 0xb, { 0x40, 0x1 }, 2, 0, IPI_HEAD_RSVDZ },
	{ "ipi/fast", 0xb | FAST, { 0x40, 0x1 }, 2, 0, IPI_HEAD_RSVDZ },
	{ "spaceex/regular", 0x13 | VAR(1), { 0, 0, 0, 0x1, 0x1 }, 5, 1, FLAGS_RSVDZ },
	{ "spaceex/xmm", 0x13 | FAST | VAR(1), { 0, 0, 0, 0x1, 0x1 }, 5, 1, FLAGS_RSVDZ },
	{ "listex/regular", 0x14 | VAR(1) | REPS(1), { 0, 0, 0, 0x1, 0x1, GVA1 }, 6, 1,
	  FLAGS_RSVDZ },
	{ "listex/xmm", 0x14 | FAST | VAR(1) | REPS(1), { 0, 0, 0, 0x1, 0x1, GVA1 }, 6, 1,
	  FLAGS_RSVDZ },
	{ "ipiex/regular", 0x15 | VAR(1), { 0x40, 0, 0x1, 0x1 }, 4, 0, IPI_HEAD_RSVDZ },
	{ "ipiex/xmm", 0x15 | FAST | VAR(1), { 0x40, 0, 0x1, 0x1 }, 4, 0, IPI_HEAD_RSVDZ },
};

/* Issue `rcx` with `in` as its input block, in the encoding rcx names. */
static struct hv_hcall_out call_block(struct hv *hv, struct fake_host *f, uint64_t rcx,
				      const uint64_t *in, size_t n)
{
	uint64_t xmm[12] = { 0 };

	if (!(rcx & FAST)) {
		fake_put(f, IN_GPA, in, n);
		return fake_call(hv, rcx, IN_GPA, 0);
	}
	if (n > 2)
		memcpy(xmm, in + 2, (n - 2) * 8);
	fake_set_xmm(f, CALLER, xmm, 12);
	return fake_call(hv, rcx, in[0], in[1]);
}

static unsigned int effects(const struct fake_host *f)
{
	return f->flushes + f->ipis;
}

/* The unmodified call succeeds and does its one flush or IPI. */
static void check_valid_call(struct hv *hv, struct fake_host *f, const struct valid_call *v)
{
	struct hv_hcall_out out = call_block(hv, f, v->rcx, v->in, v->nin);

	ck_assert_msg((out.rax & 0xffff) == HV_STATUS_SUCCESS, "%s: rax %#llx", v->name,
		      (unsigned long long)out.rax);
	ck_assert_msg(effects(f) == 1, "%s: %u effects", v->name, effects(f));
}

START_TEST(test_reserved_bits)
{
	const struct valid_call *v = &valid_calls[_i];
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	struct hv_hcall_out out;
	unsigned int bit, tried = 0;

	check_valid_call(hv, f, v);
	for (bit = 0; bit < 64; bit++) {
		if (!(HV_HCALL_RSVD_MASK & (1ull << bit)))
			continue;
		out = call_block(hv, f, v->rcx | (1ull << bit), v->in, v->nin);
		ck_assert_msg(out.rax == HV_STATUS_INVALID_HYPERCALL_INPUT,
			      "%s: rcx bit %u: rax %#llx", v->name, bit,
			      (unsigned long long)out.rax);
		tried++;
	}
	ck_assert_uint_eq(tried, 13);	/* 30:27, 31, 47:44, 63:60 */
	ck_assert_uint_eq(effects(f), 1);
	ck_assert_uint_eq(f->reads, v->rcx & FAST ? 0 : 1);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

/* Each ReservedZ bit of the input block alone: malformed input, no effect. */
START_TEST(test_reserved_fields)
{
	const struct valid_call *v = &valid_calls[_i];
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	struct hv_hcall_out out;
	uint64_t in[6];
	unsigned int bit, tried = 0;

	check_valid_call(hv, f, v);
	for (bit = 0; bit < 64; bit++) {
		if (!(v->rsvdz & (1ull << bit)))
			continue;
		memcpy(in, v->in, sizeof(in));
		in[v->rsvdz_qword] |= 1ull << bit;
		out = call_block(hv, f, v->rcx, in, v->nin);
		ck_assert_msg(out.rax == HV_STATUS_INVALID_HYPERCALL_INPUT,
			      "%s: qword %zu bit %u: rax %#llx", v->name, v->rsvdz_qword, bit,
			      (unsigned long long)out.rax);
		tried++;
	}
	ck_assert_uint_eq(tried, v->rsvdz == FLAGS_RSVDZ ? 60 : 27);
	ck_assert_msg(effects(f) == 1, "%s: %u effects", v->name, effects(f));
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

/* ---- hypercall corner cases outside the table -------------------------- */

START_TEST(test_hypercall_needs_enabled_page)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv(f, &cfg);
	struct hv_hcall_out out;

	out = fake_call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(out.inject_ud);
	ck_assert_uint_eq(out.rax, 0);
	ck_assert_uint_eq(f->ipis, 0);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	out = fake_call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(!out.inject_ud);
	ck_assert_uint_eq(out.rax, HV_STATUS_SUCCESS);
	ck_assert_uint_eq(f->ipis, 1);

	/* Clearing the guest OS identity takes the interface away again. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0), HV_MSR_OK);
	out = fake_call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(out.inject_ud);
	ck_assert_uint_eq(f->ipis, 1);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_host_failures)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	const uint64_t flush_all[] = { 0, ALLP, 0 };
	struct hv_hcall_out out;

	fake_put(f, IN_GPA, flush_all, 3);
	f->flush_ret = -1;
	out = fake_call(hv, 0x2, IN_GPA, 0);
	ck_assert_uint_eq(out.rax, ST_NO_RES);
	ck_assert_uint_eq(f->flushes, 1);

	/* A failed rep call reports no reps. */
	out = fake_call(hv, 0x3 | FAST | REPS(1), 0, ALLP);
	ck_assert_uint_eq(out.rax, ST_NO_RES);

	f->ipi_ret = -1;
	out = fake_call(hv, 0xb | FAST, 0x40, 1);
	ck_assert_uint_eq(out.rax, ST_NO_RES);
	ck_assert_uint_eq(f->ipis, 1);

	f->xmm_ret = -1;
	out = fake_call(hv, 0x15 | FAST, 0x40, 1);
	ck_assert_uint_eq(out.rax, ST_NO_RES);
	ck_assert_uint_eq(f->ipis, 1);
	ck_assert_uint_eq(f->xmm_reads, 2);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

/* Validation happens before any guest memory is touched. */
START_TEST(test_no_read_before_decode)
{
	struct hv_config cfg = fake_cfg(CFG_NOHINTS);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);

	fake_call(hv, 0x2, IN_GPA, 0);		/* access denied */
	fake_call(hv, 0x1234, IN_GPA, 0);		/* unknown */
	ck_assert_uint_eq(f->reads, 0);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

#define NR_THREADS	8
#define CALLS_EACH	2000

struct worker {
	struct hv *hv;
	unsigned int vcpu;
	unsigned int failures;
};

static void *hypercall_worker(void *arg)
{
	struct worker *w = arg;
	struct hv_hcall_in in = { .rcx = 0xb | FAST, .rdx = 0x40 + w->vcpu, .r8 = 1ull << w->vcpu };
	struct hv_hcall_out out;
	unsigned int i;

	for (i = 0; i < CALLS_EACH; i++) {
		hv_hypercall(w->hv, w->vcpu, &in, &out);
		if (out.rax != HV_STATUS_SUCCESS || out.inject_ud)
			w->failures++;
	}
	return NULL;
}

static void *msr_worker(void *arg)
{
	struct worker *w = arg;
	uint64_t val;
	unsigned int i;

	for (i = 0; i < CALLS_EACH; i++) {
		if (hv_msr_write(w->hv, w->vcpu, HV_X64_MSR_HYPERCALL,
				 PAGE_GPA | HV_HYPERCALL_ENABLE) != HV_MSR_OK)
			w->failures++;
		if (hv_msr_read(w->hv, w->vcpu, HV_X64_MSR_HYPERCALL, &val) != HV_MSR_OK ||
		    val != (PAGE_GPA | HV_HYPERCALL_ENABLE))
			w->failures++;
	}
	return NULL;
}

/* Hypercalls on many vCPU threads while another keeps rewriting the MSR. */
START_TEST(test_concurrent_vcpus)
{
	struct hv_config cfg = fake_cfg(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = fake_hv_enabled(f, &cfg);
	struct worker w[NR_THREADS + 1];
	pthread_t t[NR_THREADS + 1];
	unsigned int i;

	for (i = 0; i <= NR_THREADS; i++) {
		w[i] = (struct worker){ .hv = hv, .vcpu = i };
		ck_assert_int_eq(pthread_create(&t[i], NULL,
						i < NR_THREADS ? hypercall_worker : msr_worker,
						&w[i]), 0);
	}
	for (i = 0; i <= NR_THREADS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_uint_eq(w[i].failures, 0);
	}
	ck_assert_uint_eq(f->ipis, NR_THREADS * CALLS_EACH);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST


static Suite *hv_hypercall_suite(void)
{
	Suite *s = suite_create("hv_hypercall");
	TCase *tc = tcase_create("decode");

	tcase_add_loop_test(tc, test_decode_table, 0, sizeof(decode_rows) / sizeof(decode_rows[0]));
	tcase_add_loop_test(tc, test_reserved_bits, 0,
			    sizeof(valid_calls) / sizeof(valid_calls[0]));
	tcase_add_loop_test(tc, test_reserved_fields, 0,
			    sizeof(valid_calls) / sizeof(valid_calls[0]));
	tcase_add_test(tc, test_hypercall_needs_enabled_page);
	tcase_add_test(tc, test_host_failures);
	tcase_add_test(tc, test_no_read_before_decode);
	tcase_add_test(tc, test_concurrent_vcpus);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_hypercall_suite);
