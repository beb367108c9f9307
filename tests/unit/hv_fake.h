/* SPDX-License-Identifier: MIT */
/*
 * The fake host the hv/ unit tests drive the Hyper-V layer through: a byte
 * array as guest RAM, fixed XMM values per vCPU, and a record of every
 * flush, IPI and crash report the layer asked for, a TSC per vCPU; the partition configurations; and the
 * table-row form of one hypercall with its expected outcome, which
 * test_hv_flush.c, test_hv_ipi.c and test_hv_hypercall.c each keep a table of.
 */
#ifndef TESTS_UNIT_HV_FAKE_H
#define TESTS_UNIT_HV_FAKE_H

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "hv/hv.h"
#include "minivmm/abi.h"

#define RAM_SIZE	(1ull << 20)
#define NR_VCPUS	130		/* three banks: 0, 1 and a partial bank 2 */
#define NR_SMALL	4
#define CALLER		1		/* the vCPU issuing the hypercalls */
#define PAGE_GPA	0x1000ull	/* where the hypercall page goes */
#define IN_GPA		0x2000ull	/* default input block */
#define OS_ID		0x8100000000000000ull	/* open source, Linux-like */

#define FAST		HV_HCALL_FAST_BIT
#define VAR(n)		((uint64_t)(n) << HV_HCALL_VARHEAD_SHIFT)
#define REPS(n)		((uint64_t)(n) << HV_HCALL_REP_COUNT_SHIFT)
#define START(n)	((uint64_t)(n) << HV_HCALL_REP_START_SHIFT)
#define VTL(b)		((uint64_t)(b) << 32)	/* HV_INPUT_VTL in the first qword */

#define ALLP		HV_FLUSH_ALL_PROCESSORS
#define ALL_AS		HV_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES
#define NON_GLOBAL	HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY

#define SET_ALL130	{ ~0ull, ~0ull, 0x3 }
#define SET_ALL4	{ 0xf }

#define ST_OK		HV_STATUS_SUCCESS
#define ST_CODE		HV_STATUS_INVALID_HYPERCALL_CODE
#define ST_INPUT	HV_STATUS_INVALID_HYPERCALL_INPUT
#define ST_ALIGN	HV_STATUS_INVALID_ALIGNMENT
#define ST_PARAM	HV_STATUS_INVALID_PARAMETER
#define ST_DENIED	HV_STATUS_ACCESS_DENIED
#define ST_VP		HV_STATUS_INVALID_VP_INDEX
#define ST_NO_RES	0x1d

#define RESULT_MASK	(0xffffull | (0xfffull << HV_HCALL_RESULT_REPS_SHIFT))

struct fake_host {
	uint8_t *ram;
	uint8_t xmm[NR_VCPUS][HV_HCALL_XMM_COUNT][16];
	int xmm_ret, flush_ret, ipi_ret;
	pthread_mutex_t lock;
	unsigned int reads, writes, xmm_reads;
	unsigned int flushes, flush_caller;
	struct hv_vpmask flushed;
	unsigned int ipis;
	struct hv_vpmask ipi_set;
	uint32_t ipi_vector;
	unsigned int crashes, crash_vcpu;	/* the crash MSRs' report (guest_crash) */
	uint64_t crash_p[HV_CRASH_PARAMS];
	uint64_t tsc[NR_VCPUS], ns;		/* what read_clock gives each vCPU */
	int clock_ret;
	unsigned int clock_reads;
	bool tsc_stable;			/* what tsc_stable answers */
};

extern const struct hv_host_ops fake_ops;

struct fake_host *fake_new(void);
void fake_free(struct fake_host *f);
/* Put little-endian qwords into guest RAM. */
void fake_put(struct fake_host *f, uint64_t gpa, const uint64_t *q, size_t n);
/* XMM input as qwords: qword i is the low (even i) or high half of XMM i/2. */
void fake_set_xmm(struct fake_host *f, unsigned int vcpu, const uint64_t *q, size_t n);

enum cfg_kind {
	CFG_FULL,		/* 130 vCPUs, XMM input, every hint */
	CFG_NOXMM,		/* as FULL without XMM input */
	CFG_SMALL,		/* 4 vCPUs */
	CFG_NOHINTS,		/* nothing advertised in 0x40000004 */
	CFG_NOEX,		/* flush and IPI, but no Ex masks */
};

struct hv_config fake_cfg(enum cfg_kind kind);
struct hv *fake_hv(struct fake_host *f, const struct hv_config *cfg);
/* A hv with the hypercall interface established, as a guest would. */
struct hv *fake_hv_enabled(struct fake_host *f, const struct hv_config *cfg);
/* One hypercall from CALLER. */
struct hv_hcall_out fake_call(struct hv *hv, uint64_t rcx, uint64_t rdx, uint64_t r8);

/* The hypercall page as hv/page.c writes it, plain and spilling XMM0-5. */
extern const uint8_t fake_page_plain[], fake_page_spill[];
extern const size_t fake_page_plain_len, fake_page_spill_len;

/* ---- a hypercall as a table row ------------------------------------------ */

struct hc_row {
	const char *name;
	enum cfg_kind cfg;
	uint64_t rcx, rdx, r8;
	uint64_t xmm[12];		/* XMM0 low, XMM0 high, XMM1 low, ... */
	uint64_t mem[16];		/* placed at rdx, if it lies in RAM */
	unsigned int nmem;
	bool ud;
	uint16_t status;
	unsigned int reps;
	enum hv_encoding enc;
	bool flush;
	uint64_t flush_set[3];
	bool ipi;
	uint64_t ipi_set[3];
	uint32_t vector;
};

#define MEM(...)	.mem = { __VA_ARGS__ }, \
			.nmem = sizeof((uint64_t[]){ __VA_ARGS__ }) / 8
#define REG		.enc = HV_ENC_REGULAR
#define RFAST		.enc = HV_ENC_FAST
#define XFAST		.enc = HV_ENC_XMM_FAST
#define FLUSHED(...)	.flush = true, .flush_set = __VA_ARGS__
#define IPI(v, ...)	.ipi = true, .vector = (v), .ipi_set = __VA_ARGS__

#define GVA1		0x7000ull
#define GVA2		0x400005ull	/* 6 pages from 0x400000 */

/* Issue the row's call on a fresh partition and check every part of its outcome. */
void fake_run_row(const struct hc_row *r);

#endif
