// SPDX-License-Identifier: MIT
/*
 * make bench: what minivmm's own side costs to decode a full sparse VP set
 * of a 1024-VP partition (16 banks, every bit set), alone and as part of a
 * whole SendSyntheticClusterIpiEx (input read from guest RAM, decode,
 * reserved-bit checks, the set handed to a host that does nothing with it).
 * Batches of calls timed with CLOCK_MONOTONIC; the median batch, per call.
 * Prints one line per row: NAME median_ns=X min_ns=Y max_ns=Z.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hv/internal.h"
#include "tests/bench/timing.h"

#define VPS		1024u
#define BANKS		(VPS / 64)
#define BATCH		20000
#define BATCHES		31
#define RAM		(16u << 10)
#define IN_GPA		0x2000u

static uint8_t ram[RAM];
static volatile uint64_t sink;	/* the results go somewhere the compiler cannot drop */

static int read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	(void)opaque;
	if (len > RAM || gpa > RAM - len)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

static int write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	(void)opaque;
	if (len > RAM || gpa > RAM - len)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

static int read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	(void)opaque;
	(void)vcpu;
	memset(xmm, 0, HV_HCALL_XMM_COUNT * 16);
	return 0;
}

static int flush_nop(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	(void)opaque;
	(void)caller;
	sink += set->bits[BANKS - 1];
	return 0;
}

static int ipi_nop(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	(void)opaque;
	sink += set->bits[BANKS - 1] + vector;
	return 0;
}

static const struct hv_host_ops ops = {
	.read_gpa = read_gpa, .write_gpa = write_gpa, .read_xmm = read_xmm,
	.flush_vcpus = flush_nop, .send_ipi = ipi_nop,
};

static void report(const char *name, double *per_call)
{
	qsort(per_call, BATCHES, sizeof(*per_call), cmp_double);
	printf("%s median_ns=%.1f min_ns=%.1f max_ns=%.1f\n", name, per_call[BATCHES / 2],
	       per_call[0], per_call[BATCHES - 1]);
}

/* The block: vector, then the HV_VP_SET (format, valid banks, 16 full banks). */
static void put_input(uint64_t *q)
{
	q[0] = 0x50;
	q[1] = HV_GENERIC_SET_SPARSE_4K;
	q[2] = (1ull << BANKS) - 1;
	for (unsigned int b = 0; b < BANKS; b++)
		q[3 + b] = ~0ull;
}

int main(void)
{
	struct hv_config cfg = { .nr_vcpus = VPS, .xmm_input = true, .flush_hint = true,
				 .ipi_hint = true, .ex_hint = true };
	struct hv *hv = hv_create(&cfg, &ops, NULL);
	uint64_t q[3 + BANKS];
	struct hv_call call = { .code = HVCALL_SEND_IPI_EX, .var_qwords = BANKS,
				.in = (const uint8_t *)q, .in_len = sizeof(q) };
	struct hv_hcall_in in = { .rcx = HVCALL_SEND_IPI_EX |
					 ((uint64_t)BANKS << HV_HCALL_VARHEAD_SHIFT),
				  .rdx = IN_GPA };
	struct hv_hcall_out out;
	struct hv_vpmask set;
	double t[BATCHES];

	if (!hv || hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0x8100000000000000ull) ||
	    hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, 0x1000 | HV_HYPERCALL_ENABLE)) {
		fprintf(stderr, "bench-vpset: cannot set up the Hyper-V layer\n");
		return 1;
	}
	put_input(q);
	memcpy(ram + IN_GPA, q, sizeof(q));
	/* The set starts at offset 8 of the block, after the vector. */
	if (hv_vpset_parse(hv, &call, 8, &set) != HV_STATUS_SUCCESS || set.bits[BANKS - 1] != ~0ull) {
		fprintf(stderr, "bench-vpset: the full set did not decode\n");
		return 1;
	}
	for (unsigned int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (unsigned int i = 0; i < BATCH; i++) {
			hv_vpset_parse(hv, &call, 8, &set);
			sink += set.bits[i % BANKS];
		}
		t[b] = (now_ns() - t0) / BATCH;
	}
	report("vpset-decode-1024", t);
	hv_hypercall(hv, 0, &in, &out);
	if ((out.rax & 0xffff) != HV_STATUS_SUCCESS) {
		fprintf(stderr, "bench-vpset: SendIpiEx returned %#llx\n", (unsigned long long)out.rax);
		return 1;
	}
	for (unsigned int b = 0; b < BATCHES; b++) {
		double t0 = now_ns();

		for (unsigned int i = 0; i < BATCH; i++)
			hv_hypercall(hv, 0, &in, &out);
		t[b] = (now_ns() - t0) / BATCH;
	}
	report("sendipiex-1024-whole-call", t);
	hv_destroy(hv);
	return 0;
}
