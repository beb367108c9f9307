// SPDX-License-Identifier: MIT
/*
 * The Ex calls' HV_VP_SET decoder at its edges, for partitions of up to
 * 4096 VPs: bank 63 (the last a valid-bank mask can name), banks past the
 * partition's last VP, the partial last bank, and more banks listed than
 * the input holds. Each case checks the TLFS status and exactly the set
 * handed to the host (or that nothing was).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "minivmm/abi.h"
#include "tests/unit/suites.h"

#define RAM_SIZE	(64ull << 10)
#define CALLER		0
#define PAGE_GPA	0x1000ull
#define IN_GPA		0x2000ull
#define OS_ID		0x8100000000000000ull
#define VECTOR		0x50

#define FAST		HV_HCALL_FAST_BIT
#define VAR(n)		((uint64_t)(n) << HV_HCALL_VARHEAD_SHIFT)
#define REPS(n)		((uint64_t)(n) << HV_HCALL_REP_COUNT_SHIFT)
#define SPARSE		HV_GENERIC_SET_SPARSE_4K

struct edge_host {
	uint8_t ram[RAM_SIZE];
	uint64_t xmm[12];		/* XMM0 low, XMM0 high, ... */
	unsigned int ipis, flushes;
	struct hv_vpmask set;
};

static int edge_read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	struct edge_host *h = opaque;

	if (len > RAM_SIZE || gpa > RAM_SIZE - len)
		return -1;
	memcpy(dst, h->ram + gpa, len);
	return 0;
}

static int edge_write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	struct edge_host *h = opaque;

	if (len > RAM_SIZE || gpa > RAM_SIZE - len)
		return -1;
	memcpy(h->ram + gpa, src, len);
	return 0;
}

static int edge_read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	struct edge_host *h = opaque;

	(void)vcpu;
	memcpy(xmm, h->xmm, sizeof(h->xmm));
	return 0;
}

static int edge_flush(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	struct edge_host *h = opaque;

	(void)caller;
	h->flushes++;
	h->set = *set;
	return 0;
}

static int edge_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	struct edge_host *h = opaque;

	ck_assert_uint_eq(vector, VECTOR);
	h->ipis++;
	h->set = *set;
	return 0;
}

static const struct hv_host_ops edge_ops = {
	.read_gpa = edge_read_gpa,
	.write_gpa = edge_write_gpa,
	.read_xmm = edge_read_xmm,
	.flush_vcpus = edge_flush,
	.send_ipi = edge_ipi,
};

static struct edge_host *host;
static struct hv *hv;

/* nr_vcpus vCPUs whose VP indexes start at vp_base. */
static void start_at(unsigned int nr_vcpus, unsigned int vp_base)
{
	struct hv_config cfg = {
		.nr_vcpus = nr_vcpus, .vp_base = vp_base, .xmm_input = true,
		.flush_hint = true, .ipi_hint = true, .ex_hint = true,
	};

	host = calloc(1, sizeof(*host));
	ck_assert_ptr_nonnull(host);
	hv = hv_create(&cfg, &edge_ops, host);
	ck_assert_ptr_nonnull(hv);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
}

static void start(unsigned int nr_vcpus)
{
	start_at(nr_vcpus, 0);
}

static void stop(void)
{
	hv_destroy(hv);
	free(host);
	hv = NULL;
	host = NULL;
}

/* Place qwords at gpa, make the call, return the status (RAX bits 15:0). */
static uint16_t call_mem(uint64_t rcx, uint64_t gpa, const uint64_t *q, size_t n)
{
	struct hv_hcall_in in = { .rcx = rcx, .rdx = gpa, .r8 = 0 };
	struct hv_hcall_out out;

	if (n)
		memcpy(host->ram + gpa, q, n * 8);
	hv_hypercall(hv, CALLER, &in, &out);
	ck_assert(!out.inject_ud);
	return out.rax & 0xffff;
}

/* XMM-fast: q[0] in RDX, q[1] in R8, the rest in XMM0..5. */
static uint16_t call_xmm(uint64_t rcx, const uint64_t *q, size_t n)
{
	struct hv_hcall_in in = { .rcx = rcx | FAST, .rdx = q[0], .r8 = n > 1 ? q[1] : 0 };
	struct hv_hcall_out out;

	memset(host->xmm, 0, sizeof(host->xmm));
	if (n > 2)
		memcpy(host->xmm, q + 2, (n - 2) * 8);
	hv_hypercall(hv, CALLER, &in, &out);
	ck_assert(!out.inject_ud);
	return out.rax & 0xffff;
}

static void assert_set(unsigned int bank, uint64_t bits)
{
	for (unsigned int b = 0; b < HV_MAX_VP_INDEX / 64; b++)
		ck_assert_msg(host->set.bits[b] == (b == bank ? bits : 0),
			      "bank %u is %#llx", b, (unsigned long long)host->set.bits[b]);
}

/* 4096 VPs: bank 63 holds VPs 4032..4095, the last of them reachable. */
START_TEST(test_bank63_in_a_4096_vp_partition)
{
	uint64_t ipi[] = { VECTOR, SPARSE, 1ull << 63, 1ull << 63 };
	uint64_t flush[] = { 0, 0, SPARSE, 1ull << 63, 0x5 };

	start(4096);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(1), IN_GPA, ipi, 4), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->ipis, 1);
	assert_set(63, 1ull << 63);
	ck_assert(hv_vpmask_test(&host->set, 4095));
	ck_assert_uint_eq(call_xmm(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX | VAR(1), flush, 5),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->flushes, 1);
	assert_set(63, 0x5);
	stop();
}
END_TEST

/* 1024 VPs: a non-empty bank 63 names absent VPs; an empty one names none. */
START_TEST(test_bank63_past_the_partition)
{
	uint64_t full[] = { VECTOR, SPARSE, 1ull << 63, 1 };
	uint64_t empty[] = { VECTOR, SPARSE, 1 | 1ull << 63, 0x2, 0 };

	start(1024);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(1), IN_GPA, full, 4),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(host->ipis, 0);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(2), IN_GPA, empty, 5),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->ipis, 1);
	assert_set(0, 0x2);
	stop();
}
END_TEST

/*
 * A valid-bank mask naming banks past the last VP: the first bank past a
 * whole last bank, and the partial last bank's first absent bit. The call
 * fails as a whole; nothing is delivered or flushed.
 */
START_TEST(test_banks_past_the_vcpus)
{
	uint64_t past[] = { VECTOR, SPARSE, 1 | 1ull << 16, 0x1, 0x1 };
	uint64_t partial_ok[] = { 0, 0, SPARSE, 1ull << 15, 1ull << 39 };
	uint64_t partial_bad[] = { 0, 0, SPARSE, 1ull << 15, 1ull << 40 };

	start(1024);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(2), IN_GPA, past, 5),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(host->ipis, 0);
	stop();

	start(1000);	/* bank 15 holds VPs 960..999: bits 0..39 */
	ck_assert_uint_eq(call_mem(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX | VAR(1), IN_GPA,
				   partial_ok, 5), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->flushes, 1);
	assert_set(15, 1ull << 39);
	ck_assert_uint_eq(call_mem(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX | VAR(1), IN_GPA,
				   partial_bad, 5), HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(host->flushes, 1);
	stop();
}
END_TEST

/* All 64 banks listed in one regular block: 16 real, 48 empty ones past the VPs. */
START_TEST(test_all_64_banks_listed)
{
	uint64_t in[3 + 64] = { VECTOR, SPARSE, ~0ull };

	start(1024);
	for (unsigned int b = 0; b < 16; b++)
		in[3 + b] = 1ull << b;
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(64), IN_GPA, in, 67),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->ipis, 1);
	for (unsigned int b = 0; b < 16; b++)
		ck_assert_uint_eq(host->set.bits[b], 1ull << b);
	for (unsigned int b = 16; b < 64; b++)
		ck_assert_uint_eq(host->set.bits[b], 0);
	in[3 + 63] = 1;	/* VP 4032: absent */
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(64), IN_GPA, in, 67),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(host->ipis, 1);
	stop();
}
END_TEST

/*
 * More banks listed than the input holds: a mask naming three banks with a
 * variable header of two; 65 banks (more than a mask can name); a block
 * whose banks run past its page; an XMM-fast SendIpiEx naming 12 banks
 * (11 fit in RDX, R8 and XMM0-5 after the vector and the set header); an
 * XMM-fast FlushSpaceEx naming 11 (10 fit).
 */
START_TEST(test_more_banks_than_the_input_holds)
{
	uint64_t three[] = { VECTOR, SPARSE, 0x7, 1, 1, 1 };
	uint64_t q[14] = { VECTOR, SPARSE, 0xfff, 1 };
	uint64_t f[14] = { 0, 0, SPARSE, 0x7ff, 1 };

	start(1024);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(2), IN_GPA, three, 6),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(65), IN_GPA, three, 6),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(3), IN_GPA + 0x1000 - 32, three, 4),
			  HV_STATUS_INVALID_ALIGNMENT);
	ck_assert_uint_eq(call_xmm(HVCALL_SEND_IPI_EX | VAR(12), q, 14),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	q[2] = 0x7ff;
	ck_assert_uint_eq(call_xmm(HVCALL_SEND_IPI_EX | VAR(11), q, 14), HV_STATUS_SUCCESS);
	assert_set(0, 1);
	ck_assert_uint_eq(call_xmm(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX | VAR(11), f, 14),
			  HV_STATUS_INVALID_HYPERCALL_INPUT);
	ck_assert_uint_eq(host->flushes, 0);
	f[3] = 0x3ff;
	ck_assert_uint_eq(call_xmm(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX | VAR(10), f, 14),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->flushes, 1);
	ck_assert_uint_eq(host->ipis, 1);
	stop();
}
END_TEST

/* SET_ALL in a 1000-VP partition: 15 full banks and 40 bits of bank 15. */
START_TEST(test_set_all_partial_last_bank)
{
	uint64_t all[] = { VECTOR, HV_GENERIC_SET_ALL, 0 };

	start(1000);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX, IN_GPA, all, 3), HV_STATUS_SUCCESS);
	for (unsigned int b = 0; b < 15; b++)
		ck_assert_uint_eq(host->set.bits[b], ~0ull);
	ck_assert_uint_eq(host->set.bits[15], (1ull << 40) - 1);
	ck_assert_uint_eq(host->set.bits[16], 0);
	stop();
}
END_TEST

/*
 * VP indexes from 64 (--hv-vp-base 64), 2 vCPUs: VPs 64 and 65 are vCPUs 0
 * and 1, so an Ex set's bank 1 reaches them and bank 0 names no VP; a
 * non-Ex 64-bit mask (VPs 0..63) can only be empty; SET_ALL and the
 * all-processors flush are still every vCPU.
 */
START_TEST(test_vp_base_64)
{
	uint64_t ex_ok[] = { VECTOR, SPARSE, 1ull << 1, 0x2 };
	uint64_t ex_low[] = { VECTOR, SPARSE, 1 | 1ull << 1, 0x1, 0x2 };
	uint64_t ex_past[] = { VECTOR, SPARSE, 1ull << 1, 0x4 };
	uint64_t all[] = { VECTOR, HV_GENERIC_SET_ALL, 0 };
	uint64_t flush_all[] = { 0, HV_FLUSH_ALL_PROCESSORS, 0 };

	start_at(2, 64);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(1), IN_GPA, ex_ok, 4), HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->ipis, 1);
	assert_set(0, 0x2);	/* VP 65 = vCPU 1 */
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(2), IN_GPA, ex_low, 5),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX | VAR(1), IN_GPA, ex_past, 4),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(host->ipis, 1);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI, IN_GPA, (uint64_t[]){ VECTOR, 0x1 }, 2),
			  HV_STATUS_INVALID_VP_INDEX);
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI, IN_GPA, (uint64_t[]){ VECTOR, 0 }, 2),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->ipis, 1);	/* an empty set delivers nothing */
	ck_assert_uint_eq(call_mem(HVCALL_SEND_IPI_EX, IN_GPA, all, 3), HV_STATUS_SUCCESS);
	assert_set(0, 0x3);
	ck_assert_uint_eq(call_mem(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, IN_GPA, flush_all, 3),
			  HV_STATUS_SUCCESS);
	ck_assert_uint_eq(host->flushes, 1);
	assert_set(0, 0x3);
	ck_assert_uint_eq(hv_msr_read(hv, 1, HV_X64_MSR_VP_INDEX, &ex_ok[0]), HV_MSR_OK);
	ck_assert_uint_eq(ex_ok[0], 65);
	stop();
}
END_TEST

/* The walk over a set's bits the VMM's flush and IPI fan-out use. */
START_TEST(test_vpmask_next_walk)
{
	static const unsigned int vps[] = { 0, 63, 64, 130, 4095 };
	struct hv_vpmask m;
	unsigned int got[8], n = 0;

	memset(&m, 0, sizeof(m));
	ck_assert_uint_eq(hv_vpmask_next(&m, 0, HV_MAX_VP_INDEX), HV_MAX_VP_INDEX);
	for (unsigned int i = 0; i < sizeof(vps) / sizeof(vps[0]); i++)
		hv_vpmask_set(&m, vps[i]);
	for (unsigned int vp = hv_vpmask_next(&m, 0, HV_MAX_VP_INDEX); vp < HV_MAX_VP_INDEX;
	     vp = hv_vpmask_next(&m, vp + 1, HV_MAX_VP_INDEX)) {
		ck_assert_uint_lt(n, 8);
		got[n++] = vp;
	}
	ck_assert_uint_eq(n, 5);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_uint_eq(got[i], vps[i]);
	/* From inside a word, at a word's end, and clipped by the VM's size. */
	ck_assert_uint_eq(hv_vpmask_next(&m, 1, HV_MAX_VP_INDEX), 63);
	ck_assert_uint_eq(hv_vpmask_next(&m, 65, HV_MAX_VP_INDEX), 130);
	ck_assert_uint_eq(hv_vpmask_next(&m, 131, 200), 200);
	ck_assert_uint_eq(hv_vpmask_next(&m, 64, 64), 64);
	ck_assert_uint_eq(hv_vpmask_next(&m, 0, 63), 0);
	ck_assert_uint_eq(hv_vpmask_next(&m, 1, 63), 63);
}
END_TEST

static Suite *vpset_suite(void)
{
	Suite *s = suite_create("vpset");
	TCase *tc = tcase_create("edges");

	tcase_add_test(tc, test_bank63_in_a_4096_vp_partition);
	tcase_add_test(tc, test_bank63_past_the_partition);
	tcase_add_test(tc, test_banks_past_the_vcpus);
	tcase_add_test(tc, test_all_64_banks_listed);
	tcase_add_test(tc, test_more_banks_than_the_input_holds);
	tcase_add_test(tc, test_set_all_partial_last_bank);
	tcase_add_test(tc, test_vp_base_64);
	tcase_add_test(tc, test_vpmask_next_walk);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(vpset_suite);
