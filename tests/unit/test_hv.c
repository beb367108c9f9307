// SPDX-License-Identifier: MIT
/*
 * Unit tests of the Hyper-V layer (hv/) through a fake host: a byte array
 * as guest RAM, fixed XMM values per vCPU, and a record of every flush and
 * IPI the layer asked for.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- the fake host ---------------------------------------------------- */

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
};

static bool ram_range_ok(uint64_t gpa, size_t len)
{
	return len <= RAM_SIZE && gpa <= RAM_SIZE - len;
}

static int fake_read_gpa(void *opaque, uint64_t gpa, void *dst, size_t len)
{
	struct fake_host *f = opaque;

	__atomic_add_fetch(&f->reads, 1, __ATOMIC_RELAXED);
	if (!ram_range_ok(gpa, len))
		return -1;
	memcpy(dst, f->ram + gpa, len);
	return 0;
}

static int fake_write_gpa(void *opaque, uint64_t gpa, const void *src, size_t len)
{
	struct fake_host *f = opaque;

	f->writes++;
	if (!ram_range_ok(gpa, len))
		return -1;
	memcpy(f->ram + gpa, src, len);
	return 0;
}

static int fake_read_xmm(void *opaque, unsigned int vcpu, uint8_t xmm[HV_HCALL_XMM_COUNT][16])
{
	struct fake_host *f = opaque;

	f->xmm_reads++;
	if (f->xmm_ret || vcpu >= NR_VCPUS)
		return -1;
	memcpy(xmm, f->xmm[vcpu], sizeof(f->xmm[vcpu]));
	return 0;
}

static int fake_flush_vcpus(void *opaque, unsigned int caller, const struct hv_vpmask *set)
{
	struct fake_host *f = opaque;

	pthread_mutex_lock(&f->lock);
	f->flushes++;
	f->flush_caller = caller;
	f->flushed = *set;
	pthread_mutex_unlock(&f->lock);
	return f->flush_ret;
}

static int fake_send_ipi(void *opaque, const struct hv_vpmask *set, uint32_t vector)
{
	struct fake_host *f = opaque;

	pthread_mutex_lock(&f->lock);
	f->ipis++;
	f->ipi_set = *set;
	f->ipi_vector = vector;
	pthread_mutex_unlock(&f->lock);
	return f->ipi_ret;
}

static const struct hv_host_ops fake_ops = {
	.read_gpa = fake_read_gpa,
	.write_gpa = fake_write_gpa,
	.read_xmm = fake_read_xmm,
	.flush_vcpus = fake_flush_vcpus,
	.send_ipi = fake_send_ipi,
};

static struct fake_host *fake_new(void)
{
	struct fake_host *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(f);
	f->ram = calloc(1, RAM_SIZE);
	ck_assert_ptr_nonnull(f->ram);
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

static void fake_free(struct fake_host *f)
{
	pthread_mutex_destroy(&f->lock);
	free(f->ram);
	free(f);
}

/* Put little-endian qwords into guest RAM. */
static void fake_put(struct fake_host *f, uint64_t gpa, const uint64_t *q, size_t n)
{
	ck_assert(ram_range_ok(gpa, n * 8));
	memcpy(f->ram + gpa, q, n * 8);
}

/* XMM input as qwords: qword i is the low (even i) or high half of XMM i/2. */
static void fake_set_xmm(struct fake_host *f, unsigned int vcpu, const uint64_t *q, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(&f->xmm[vcpu][i / 2][(i % 2) * 8], &q[i], 8);
}

/* ---- configurations ------------------------------------------------------ */

enum cfg_kind {
	CFG_FULL,		/* 130 vCPUs, XMM input, every hint */
	CFG_NOXMM,		/* as FULL without XMM input */
	CFG_SMALL,		/* 4 vCPUs */
	CFG_NOHINTS,		/* nothing advertised in 0x40000004 */
	CFG_NOEX,		/* flush and IPI, but no Ex masks */
};

static struct hv_config cfg_of(enum cfg_kind kind)
{
	struct hv_config cfg = {
		.nr_vcpus = NR_VCPUS,
		.xmm_input = true,
		.flush_hint = true,
		.ipi_hint = true,
		.ex_hint = true,
	};

	switch (kind) {
	case CFG_FULL:
		break;
	case CFG_NOXMM:
		cfg.xmm_input = false;
		break;
	case CFG_SMALL:
		cfg.nr_vcpus = NR_SMALL;
		break;
	case CFG_NOHINTS:
		cfg.flush_hint = cfg.ipi_hint = cfg.ex_hint = false;
		break;
	case CFG_NOEX:
		cfg.ex_hint = false;
		break;
	}
	return cfg;
}

static struct hv *hv_new(struct fake_host *f, const struct hv_config *cfg)
{
	struct hv *hv = hv_create(cfg, &fake_ops, f);

	ck_assert_ptr_nonnull(hv);
	return hv;
}

/* A hv with the hypercall interface established, as a guest would. */
static struct hv *hv_new_enabled(struct fake_host *f, const struct hv_config *cfg)
{
	struct hv *hv = hv_new(f, cfg);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	return hv;
}

static struct hv_hcall_out call(struct hv *hv, uint64_t rcx, uint64_t rdx, uint64_t r8)
{
	struct hv_hcall_in in = { .rcx = rcx, .rdx = rdx, .r8 = r8 };
	struct hv_hcall_out out;

	memset(&out, 0xa5, sizeof(out));
	hv_hypercall(hv, CALLER, &in, &out);
	return out;
}

/* ---- the hypercall table ----------------------------------------------- */

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

static const struct hc_row hc_rows[] = {
	/* FlushVirtualAddressSpace (0x2) */
	{ "space/regular/mask", .rcx = 0x2, .rdx = IN_GPA, MEM(0x5000, 0, 0x5), REG,
	  FLUSHED({ 0x5 }) },
	{ "space/regular/all-processors", .rcx = 0x2, .rdx = IN_GPA, MEM(0, ALLP, 0), REG,
	  FLUSHED(SET_ALL130) },
	{ "space/regular/all-processors-ignores-mask", .cfg = CFG_SMALL, .rcx = 0x2,
	  .rdx = IN_GPA, MEM(0, ALLP, 1ull << 63), REG, FLUSHED(SET_ALL4) },
	{ "space/regular/zero-mask-flushes-nothing", .rcx = 0x2, .rdx = IN_GPA, MEM(0, 0, 0),
	  REG },
	{ "space/regular/all-as-non-global", .rcx = 0x2, .rdx = IN_GPA,
	  MEM(0, ALL_AS | NON_GLOBAL, 0x2), REG, FLUSHED({ 0x2 }) },
	{ "space/regular/flag-extended-range", .rcx = 0x2, .rdx = IN_GPA,
	  MEM(0, HV_FLUSH_USE_EXTENDED_RANGE_FORMAT, 1), REG, .status = ST_PARAM },
	{ "space/regular/absent-vp", .cfg = CFG_SMALL, .rcx = 0x2, .rdx = IN_GPA,
	  MEM(0, 0, 0x11), REG, .status = ST_VP },
	{ "space/xmm", .rcx = 0x2 | FAST, .rdx = 0x5000, .r8 = ALL_AS, .xmm = { 0x2 }, XFAST,
	  FLUSHED({ 0x2 }) },
	{ "space/xmm/not-advertised", .cfg = CFG_NOXMM, .rcx = 0x2 | FAST, .r8 = ALLP, XFAST,
	  .ud = true },
	{ "space/rep-count", .rcx = 0x2 | REPS(1), .rdx = IN_GPA, MEM(0, ALLP, 0), REG,
	  .status = ST_INPUT },
	{ "space/rep-start", .rcx = 0x2 | START(1), .rdx = IN_GPA, MEM(0, ALLP, 0), REG,
	  .status = ST_INPUT },
	{ "space/var-header", .rcx = 0x2 | VAR(1), .rdx = IN_GPA, MEM(0, ALLP, 0, 0), REG,
	  .status = ST_INPUT },
	{ "space/not-advertised", .cfg = CFG_NOHINTS, .rcx = 0x2, .rdx = IN_GPA,
	  MEM(0, ALLP, 0), REG, .status = ST_DENIED },

	/* FlushVirtualAddressList (0x3) */
	{ "list/regular/2-reps", .rcx = 0x3 | REPS(2), .rdx = IN_GPA,
	  MEM(0, 0, 0x8, GVA1, GVA2), REG, .reps = 2, FLUSHED({ 0x8 }) },
	{ "list/regular/rep-start-absolute", .rcx = 0x3 | REPS(3) | START(1), .rdx = IN_GPA,
	  MEM(0, 0, 0x1, GVA1, GVA2, GVA1), REG, .reps = 3, FLUSHED({ 0x1 }) },
	{ "list/regular/rep-count-0", .rcx = 0x3, .rdx = IN_GPA, MEM(0, 0, 1), REG,
	  .status = ST_INPUT },
	{ "list/regular/start-eq-count", .rcx = 0x3 | REPS(2) | START(2), .rdx = IN_GPA,
	  MEM(0, 0, 1, GVA1, GVA2), REG, .status = ST_INPUT },
	{ "list/regular/non-global-flag", .rcx = 0x3 | REPS(1), .rdx = IN_GPA,
	  MEM(0, NON_GLOBAL, 1, GVA1), REG, .status = ST_PARAM },
	{ "list/regular/page-cross", .rcx = 0x3 | REPS(1), .rdx = IN_GPA + 0xff0, REG,
	  .status = ST_ALIGN },
	{ "list/regular/4095-reps", .rcx = 0x3 | REPS(4095), .rdx = IN_GPA, REG,
	  .status = ST_ALIGN },
	{ "list/regular/whole-page", .rcx = 0x3 | REPS(509), .rdx = IN_GPA, MEM(0, ALLP, 0),
	  REG, .reps = 509, FLUSHED(SET_ALL130) },
	{ "list/var-header", .rcx = 0x3 | REPS(1) | VAR(1), .rdx = IN_GPA,
	  MEM(0, 0, 1, 0, GVA1), REG, .status = ST_INPUT },
	{ "list/xmm/2-reps", .rcx = 0x3 | FAST | REPS(2), .xmm = { 0x4, GVA1, GVA2 }, XFAST,
	  .reps = 2, FLUSHED({ 0x4 }) },
	{ "list/xmm/11-reps-fit", .rcx = 0x3 | FAST | REPS(11), .xmm = { 0x1 }, XFAST,
	  .reps = 11, FLUSHED({ 0x1 }) },
	{ "list/xmm/12-reps-too-big", .rcx = 0x3 | FAST | REPS(12), .xmm = { 0x1 }, XFAST,
	  .status = ST_INPUT },
	{ "list/xmm/not-advertised", .cfg = CFG_NOXMM, .rcx = 0x3 | FAST | REPS(1), XFAST,
	  .ud = true },

	/* SendSyntheticClusterIpi (0xb) */
	{ "ipi/regular", .rcx = 0xb, .rdx = IN_GPA, MEM(0x40, 0x6), REG, IPI(0x40, { 0x6 }) },
	{ "ipi/regular/vector-ff", .rcx = 0xb, .rdx = IN_GPA, MEM(0xff, 0x1), REG,
	  IPI(0xff, { 0x1 }) },
	{ "ipi/regular/vector-high-bits", .rcx = 0xb, .rdx = IN_GPA, MEM(0x10000040, 0x1),
	  REG, .status = ST_PARAM },
	{ "ipi/regular/vtl-1", .rcx = 0xb, .rdx = IN_GPA, MEM(0x40 | VTL(0x11), 0x1), REG,
	  .status = ST_PARAM },
	{ "ipi/fast", .rcx = 0xb | FAST, .rdx = 0x41, .r8 = 0x1, RFAST, IPI(0x41, { 0x1 }) },
	{ "ipi/fast/without-xmm-input", .cfg = CFG_NOXMM, .rcx = 0xb | FAST, .rdx = 0x41,
	  .r8 = 0x3, RFAST, IPI(0x41, { 0x3 }) },
	{ "ipi/fast/vector-0f", .rcx = 0xb | FAST, .rdx = 0x0f, .r8 = 0x1, RFAST,
	  .status = ST_PARAM },
	{ "ipi/fast/vector-10", .rcx = 0xb | FAST, .rdx = 0x10, .r8 = 0x1, RFAST,
	  IPI(0x10, { 0x1 }) },
	{ "ipi/fast/vector-100", .rcx = 0xb | FAST, .rdx = 0x100, .r8 = 0x1, RFAST,
	  .status = ST_PARAM },
	{ "ipi/fast/vtl-1", .rcx = 0xb | FAST, .rdx = 0x40 | VTL(0x11), .r8 = 0x1, RFAST,
	  .status = ST_PARAM },
	{ "ipi/fast/vtl-0-explicit", .rcx = 0xb | FAST, .rdx = 0x40 | VTL(0x10), .r8 = 0x1,
	  RFAST, IPI(0x40, { 0x1 }) },
	{ "ipi/fast/vtl-not-used", .rcx = 0xb | FAST, .rdx = 0x40 | VTL(0x05), .r8 = 0x1,
	  RFAST, IPI(0x40, { 0x1 }) },
	{ "ipi/fast/absent-vp", .cfg = CFG_SMALL, .rcx = 0xb | FAST, .rdx = 0x40, .r8 = 0x10,
	  RFAST, .status = ST_VP },
	{ "ipi/fast/all-64-bits", .rcx = 0xb | FAST, .rdx = 0x40, .r8 = ~0ull, RFAST,
	  IPI(0x40, { ~0ull }) },
	{ "ipi/fast/zero-mask", .rcx = 0xb | FAST, .rdx = 0x40, .r8 = 0, RFAST },
	{ "ipi/fast/rep-count", .rcx = 0xb | FAST | REPS(1), .rdx = 0x40, .r8 = 1, RFAST,
	  .status = ST_INPUT },
	{ "ipi/fast/var-header", .rcx = 0xb | FAST | VAR(1), .rdx = 0x40, .r8 = 1, RFAST,
	  .status = ST_INPUT },
	{ "ipi/not-advertised", .cfg = CFG_NOHINTS, .rcx = 0xb | FAST, .rdx = 0x40, .r8 = 1,
	  RFAST, .status = ST_DENIED },

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

	/* SendSyntheticClusterIpiEx (0x15) */
	{ "ipiex/regular/banks-0-2", .rcx = 0x15 | VAR(2), .rdx = IN_GPA,
	  MEM(0x50, 0, 0x5, 0x1, 0x2), REG, IPI(0x50, { 0x1, 0, 0x2 }) },
	{ "ipiex/regular/bank-1", .rcx = 0x15 | VAR(1), .rdx = IN_GPA, MEM(0x50, 0, 0x2, 0x1),
	  REG, IPI(0x50, { 0, 0x1, 0 }) },
	{ "ipiex/regular/set-all", .rcx = 0x15, .rdx = IN_GPA, MEM(0x50, 1, 0), REG,
	  IPI(0x50, SET_ALL130) },
	{ "ipiex/regular/set-all-bank-ignored", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50, 1, 0x1, ~0ull), REG, IPI(0x50, SET_ALL130) },
	{ "ipiex/regular/set-all-bank-mismatch", .rcx = 0x15, .rdx = IN_GPA, MEM(0x50, 1, 0x1),
	  REG, .status = ST_INPUT },
	{ "ipiex/regular/bank-count-mismatch", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50, 0, 0x3, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "ipiex/regular/format-2", .rcx = 0x15, .rdx = IN_GPA, MEM(0x50, 2, 0), REG,
	  .status = ST_PARAM },
	{ "ipiex/regular/absent-vp-130", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50, 0, 0x4, 0x4), REG, .status = ST_VP },
	{ "ipiex/regular/empty-bank-63", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50, 0, 1ull << 63, 0), REG },
	{ "ipiex/regular/empty-sparse", .rcx = 0x15, .rdx = IN_GPA, MEM(0x50, 0, 0), REG },
	{ "ipiex/regular/vector-0f", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x0f, 0, 0x1, 0x1), REG, .status = ST_PARAM },
	{ "ipiex/regular/vtl-1", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50 | VTL(0x12), 0, 0x1, 0x1), REG, .status = ST_PARAM },
	{ "ipiex/var-header-65", .rcx = 0x15 | VAR(65), .rdx = IN_GPA, REG,
	  .status = ST_INPUT },
	{ "ipiex/xmm/bank-1", .rcx = 0x15 | FAST | VAR(1), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0x2, 0x1 }, XFAST, IPI(0x50, { 0, 0x1, 0 }) },
	{ "ipiex/xmm/banks-0-1", .rcx = 0x15 | FAST | VAR(2), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0x3, 0x4, 0x8000000000000000ull }, XFAST,
	  IPI(0x50, { 0x4, 0x8000000000000000ull, 0 }) },
	{ "ipiex/xmm/set-all", .rcx = 0x15 | FAST, .rdx = 0x50, .r8 = 1, XFAST,
	  IPI(0x50, SET_ALL130) },
	{ "ipiex/xmm/11-banks-fit", .rcx = 0x15 | FAST | VAR(11), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0x7ff, 0x1 }, XFAST, IPI(0x50, { 0x1 }) },
	{ "ipiex/xmm/12-banks-too-big", .rcx = 0x15 | FAST | VAR(12), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0xfff, 0x1 }, XFAST, .status = ST_INPUT },
	{ "ipiex/xmm/not-advertised", .cfg = CFG_NOXMM, .rcx = 0x15 | FAST, .rdx = 0x50,
	  .r8 = 1, XFAST, .ud = true },
	{ "ipiex/rep-count", .rcx = 0x15 | FAST | REPS(1), .rdx = 0x50, .r8 = 1, XFAST,
	  .status = ST_INPUT },
	{ "ipiex/no-ex-hint", .cfg = CFG_NOEX, .rcx = 0x15 | FAST, .rdx = 0x50, .r8 = 1, XFAST,
	  .status = ST_DENIED },

	/* FlushVirtualAddressSpaceEx (0x13) */
	{ "spaceex/regular/one-bank", .rcx = 0x13 | VAR(1), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x2, 0x3), REG, FLUSHED({ 0, 0x3, 0 }) },
	{ "spaceex/regular/two-banks", .rcx = 0x13 | VAR(2), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x3, 0x4, 0x2), REG, FLUSHED({ 0x4, 0x2, 0 }) },
	{ "spaceex/regular/set-all", .rcx = 0x13, .rdx = IN_GPA, MEM(0, 0, 1, 0), REG,
	  FLUSHED(SET_ALL130) },
	{ "spaceex/regular/all-processors-flag", .rcx = 0x13 | VAR(1), .rdx = IN_GPA,
	  MEM(0, ALLP, 0, 0x1, 0x1), REG, FLUSHED(SET_ALL130) },
	{ "spaceex/regular/all-processors-ignores-format", .rcx = 0x13, .rdx = IN_GPA,
	  MEM(0, ALLP, 7, 0), REG, FLUSHED(SET_ALL130) },
	{ "spaceex/regular/all-processors-still-checks-banks", .rcx = 0x13, .rdx = IN_GPA,
	  MEM(0, ALLP, 0, 0x1), REG, .status = ST_INPUT },
	{ "spaceex/regular/bank-count-mismatch", .rcx = 0x13 | VAR(2), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "spaceex/regular/empty-set", .rcx = 0x13, .rdx = IN_GPA, MEM(0, 0, 0, 0), REG },
	{ "spaceex/rep-count", .rcx = 0x13 | REPS(1), .rdx = IN_GPA, MEM(0, 0, 1, 0), REG,
	  .status = ST_INPUT },
	{ "spaceex/xmm/one-bank", .rcx = 0x13 | FAST | VAR(1), .rdx = 0, .r8 = 0,
	  .xmm = { 0, 0x1, 0x4 }, XFAST, FLUSHED({ 0x4 }) },
	{ "spaceex/xmm/set-all", .rcx = 0x13 | FAST, .xmm = { 1, 0 }, XFAST,
	  FLUSHED(SET_ALL130) },
	{ "spaceex/xmm/not-advertised", .cfg = CFG_NOXMM, .rcx = 0x13 | FAST, XFAST,
	  .ud = true },

	/* FlushVirtualAddressListEx (0x14) */
	{ "listex/regular", .rcx = 0x14 | VAR(1) | REPS(2), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, 0x2, GVA1, GVA2), REG, .reps = 2, FLUSHED({ 0x2 }) },
	{ "listex/regular/set-all", .rcx = 0x14 | REPS(1), .rdx = IN_GPA,
	  MEM(0, ALL_AS, 1, 0, GVA1), REG, .reps = 1, FLUSHED(SET_ALL130) },
	{ "listex/regular/non-global-flag", .rcx = 0x14 | VAR(1) | REPS(1), .rdx = IN_GPA,
	  MEM(0, NON_GLOBAL, 0, 0x1, 0x1, GVA1), REG, .status = ST_PARAM },
	{ "listex/regular/bank-count-mismatch", .rcx = 0x14 | REPS(1), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, GVA1), REG, .status = ST_INPUT },
	{ "listex/regular/rep-count-0", .rcx = 0x14 | VAR(1), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "listex/regular/page-cross", .rcx = 0x14 | VAR(1) | REPS(1), .rdx = IN_GPA + 0xfd8,
	  REG, .status = ST_ALIGN },
	{ "listex/xmm", .rcx = 0x14 | FAST | VAR(1) | REPS(1), .xmm = { 0, 0x4, 0x1, GVA1 },
	  XFAST, .reps = 1, FLUSHED({ 0, 0, 0x1 }) },
	{ "listex/xmm/set-all", .rcx = 0x14 | FAST | REPS(1), .xmm = { 1, 0, GVA1 }, XFAST,
	  .reps = 1, FLUSHED(SET_ALL130) },
	{ "listex/xmm/exact-fit", .rcx = 0x14 | FAST | VAR(2) | REPS(8),
	  .xmm = { 0, 0x3, 0x1, 0x1 }, XFAST, .reps = 8, FLUSHED({ 0x1, 0x1, 0 }) },
	{ "listex/xmm/too-big", .rcx = 0x14 | FAST | VAR(2) | REPS(9),
	  .xmm = { 0, 0x3, 0x1, 0x1 }, XFAST, .status = ST_INPUT },
	{ "listex/no-ex-hint", .cfg = CFG_NOEX, .rcx = 0x14 | REPS(1), .rdx = IN_GPA,
	  MEM(0, 0, 1, 0, GVA1), REG, .status = ST_DENIED },

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

	/*
	 * ReservedZ fields of the input block, each call in each of its
	 * encodings: a row with the field set, then the same input with it
	 * zero. Every bit of each field is covered by test_reserved_fields.
	 */
	{ "rsvdz/space/regular/flags-4", .rcx = 0x2, .rdx = IN_GPA, MEM(0, 1ull << 4, 0x1),
	  REG, .status = ST_INPUT },
	{ "rsvdz/space/regular/flags-63", .rcx = 0x2, .rdx = IN_GPA, MEM(0, 1ull << 63, 0x1),
	  REG, .status = ST_INPUT },
	{ "rsvdz/space/regular/zero", .rcx = 0x2, .rdx = IN_GPA, MEM(0, 0, 0x1), REG,
	  FLUSHED({ 0x1 }) },
	{ "rsvdz/space/xmm/flags-63", .rcx = 0x2 | FAST, .r8 = 1ull << 63, .xmm = { 0x1 },
	  XFAST, .status = ST_INPUT },
	{ "rsvdz/space/xmm/zero", .rcx = 0x2 | FAST, .r8 = 0, .xmm = { 0x1 }, XFAST,
	  FLUSHED({ 0x1 }) },
	{ "rsvdz/list/regular/flags-5", .rcx = 0x3 | REPS(1), .rdx = IN_GPA,
	  MEM(0, 1ull << 5, 0x1, GVA1), REG, .status = ST_INPUT },
	{ "rsvdz/list/regular/zero", .rcx = 0x3 | REPS(1), .rdx = IN_GPA,
	  MEM(0, 0, 0x1, GVA1), REG, .reps = 1, FLUSHED({ 0x1 }) },
	{ "rsvdz/list/xmm/flags-32", .rcx = 0x3 | FAST | REPS(1), .r8 = 1ull << 32,
	  .xmm = { 0x1, GVA1 }, XFAST, .status = ST_INPUT },
	{ "rsvdz/list/xmm/zero", .rcx = 0x3 | FAST | REPS(1), .r8 = 0, .xmm = { 0x1, GVA1 },
	  XFAST, .reps = 1, FLUSHED({ 0x1 }) },
	{ "rsvdz/spaceex/regular/flags-4", .rcx = 0x13 | VAR(1), .rdx = IN_GPA,
	  MEM(0, 1ull << 4, 0, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "rsvdz/spaceex/regular/zero", .rcx = 0x13 | VAR(1), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, 0x1), REG, FLUSHED({ 0x1 }) },
	{ "rsvdz/spaceex/xmm/flags-63", .rcx = 0x13 | FAST | VAR(1), .r8 = 1ull << 63,
	  .xmm = { 0, 0x1, 0x1 }, XFAST, .status = ST_INPUT },
	{ "rsvdz/spaceex/xmm/zero", .rcx = 0x13 | FAST | VAR(1), .r8 = 0,
	  .xmm = { 0, 0x1, 0x1 }, XFAST, FLUSHED({ 0x1 }) },
	{ "rsvdz/listex/regular/flags-40", .rcx = 0x14 | VAR(1) | REPS(1), .rdx = IN_GPA,
	  MEM(0, 1ull << 40, 0, 0x1, 0x1, GVA1), REG, .status = ST_INPUT },
	{ "rsvdz/listex/regular/zero", .rcx = 0x14 | VAR(1) | REPS(1), .rdx = IN_GPA,
	  MEM(0, 0, 0, 0x1, 0x1, GVA1), REG, .reps = 1, FLUSHED({ 0x1 }) },
	{ "rsvdz/listex/xmm/flags-4", .rcx = 0x14 | FAST | VAR(1) | REPS(1), .r8 = 1ull << 4,
	  .xmm = { 0, 0x1, 0x1, GVA1 }, XFAST, .status = ST_INPUT },
	{ "rsvdz/listex/xmm/zero", .rcx = 0x14 | FAST | VAR(1) | REPS(1), .r8 = 0,
	  .xmm = { 0, 0x1, 0x1, GVA1 }, XFAST, .reps = 1, FLUSHED({ 0x1 }) },
	/* A ReservedZ flag outranks an unsupported defined one. */
	{ "rsvdz/list/regular/flags-63-and-non-global", .rcx = 0x3 | REPS(1), .rdx = IN_GPA,
	  MEM(0, (1ull << 63) | NON_GLOBAL, 0x1, GVA1), REG, .status = ST_INPUT },

	/* SendIpi{,Ex}: HV_INPUT_VTL bits 7:5 and bytes 5..7 (RDX 63:37 when fast) */
	{ "rsvdz/ipi/regular/vtl-bit-5", .rcx = 0xb, .rdx = IN_GPA,
	  MEM(0x40 | VTL(0x20), 0x1), REG, .status = ST_INPUT },
	{ "rsvdz/ipi/regular/byte-5", .rcx = 0xb, .rdx = IN_GPA, MEM(0x40 | 1ull << 40, 0x1),
	  REG, .status = ST_INPUT },
	{ "rsvdz/ipi/regular/byte-7", .rcx = 0xb, .rdx = IN_GPA, MEM(0x40 | 0x80ull << 56, 0x1),
	  REG, .status = ST_INPUT },
	{ "rsvdz/ipi/regular/zero", .rcx = 0xb, .rdx = IN_GPA, MEM(0x40, 0x1), REG,
	  IPI(0x40, { 0x1 }) },
	{ "rsvdz/ipi/fast/vtl-bit-7", .rcx = 0xb | FAST, .rdx = 0x40 | VTL(0x80), .r8 = 0x1,
	  RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/byte-5", .rcx = 0xb | FAST, .rdx = 0x40 | 0xffull << 40, .r8 = 0x1,
	  RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/byte-6", .rcx = 0xb | FAST, .rdx = 0x40 | 0x01ull << 48, .r8 = 0x1,
	  RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/byte-7", .rcx = 0xb | FAST, .rdx = 0x40 | 0x80ull << 56, .r8 = 0x1,
	  RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/bytes-5-7", .rcx = 0xb | FAST, .rdx = 0x40 | 0xffffffull << 40,
	  .r8 = 0x1, RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/zero", .rcx = 0xb | FAST, .rdx = 0x40, .r8 = 0x1, RFAST,
	  IPI(0x40, { 0x1 }) },
	/* Malformed input outranks a bad vector and an unusable target VTL. */
	{ "rsvdz/ipi/fast/byte-5-and-vector-0", .rcx = 0xb | FAST, .rdx = 1ull << 40,
	  .r8 = 0x1, RFAST, .status = ST_INPUT },
	{ "rsvdz/ipi/fast/vtl-bit-6-and-vtl-1", .rcx = 0xb | FAST, .rdx = 0x40 | VTL(0x51),
	  .r8 = 0x1, RFAST, .status = ST_INPUT },
	{ "rsvdz/ipiex/regular/vtl-bit-6", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50 | VTL(0x40), 0, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "rsvdz/ipiex/regular/byte-6", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50 | 0x10ull << 48, 0, 0x1, 0x1), REG, .status = ST_INPUT },
	{ "rsvdz/ipiex/regular/zero", .rcx = 0x15 | VAR(1), .rdx = IN_GPA,
	  MEM(0x50, 0, 0x1, 0x1), REG, IPI(0x50, { 0x1 }) },
	{ "rsvdz/ipiex/xmm/vtl-bit-5", .rcx = 0x15 | FAST | VAR(1), .rdx = 0x50 | VTL(0x20),
	  .r8 = 0, .xmm = { 0x1, 0x1 }, XFAST, .status = ST_INPUT },
	{ "rsvdz/ipiex/xmm/byte-7", .rcx = 0x15 | FAST | VAR(1), .rdx = 0x50 | 0x01ull << 56,
	  .r8 = 0, .xmm = { 0x1, 0x1 }, XFAST, .status = ST_INPUT },
	{ "rsvdz/ipiex/xmm/zero", .rcx = 0x15 | FAST | VAR(1), .rdx = 0x50, .r8 = 0,
	  .xmm = { 0x1, 0x1 }, XFAST, IPI(0x50, { 0x1 }) },

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

static void check_set(const char *row, const char *what, const struct hv_vpmask *got,
		      const uint64_t want[3])
{
	size_t i;

	for (i = 0; i < sizeof(got->bits) / sizeof(got->bits[0]); i++) {
		uint64_t w = i < 3 ? want[i] : 0;

		ck_assert_msg(got->bits[i] == w, "%s: %s bank %zu is %#llx, want %#llx",
			      row, what, i, (unsigned long long)got->bits[i],
			      (unsigned long long)w);
	}
}

static void check_outcome(const struct hc_row *r, const struct fake_host *f,
			  const struct hv_hcall_out *out)
{
	ck_assert_msg(out->inject_ud == r->ud, "%s: inject_ud %d", r->name, out->inject_ud);
	ck_assert_msg(out->enc == r->enc, "%s: encoding %d, want %d", r->name, out->enc, r->enc);
	ck_assert_msg(out->code == (r->rcx & 0xffff), "%s: code %#x", r->name, out->code);
	if (r->ud) {
		ck_assert_msg(out->rax == 0, "%s: rax %#llx with #UD", r->name,
			      (unsigned long long)out->rax);
	} else {
		ck_assert_msg((out->rax & ~RESULT_MASK) == 0, "%s: stray rax bits %#llx",
			      r->name, (unsigned long long)out->rax);
		ck_assert_msg((out->rax & 0xffff) == r->status, "%s: status %#llx, want %#x",
			      r->name, (unsigned long long)(out->rax & 0xffff), r->status);
		ck_assert_msg(out->rax >> 32 == r->reps, "%s: reps %llu, want %u", r->name,
			      (unsigned long long)(out->rax >> 32), r->reps);
	}
	ck_assert_msg(f->flushes == (r->flush ? 1u : 0u), "%s: %u flushes", r->name,
		      f->flushes);
	if (r->flush) {
		ck_assert_msg(f->flush_caller == CALLER, "%s: caller %u", r->name,
			      f->flush_caller);
		check_set(r->name, "flush", &f->flushed, r->flush_set);
	}
	ck_assert_msg(f->ipis == (r->ipi ? 1u : 0u), "%s: %u IPI calls", r->name, f->ipis);
	if (r->ipi) {
		ck_assert_msg(f->ipi_vector == r->vector, "%s: vector %#x", r->name,
			      f->ipi_vector);
		check_set(r->name, "IPI", &f->ipi_set, r->ipi_set);
	}
}

START_TEST(test_hypercall_table)
{
	const struct hc_row *r = &hc_rows[_i];
	struct hv_config cfg = cfg_of(r->cfg);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
	struct hv_hcall_out out;

	if (r->nmem)
		fake_put(f, r->rdx, r->mem, r->nmem);
	fake_set_xmm(f, CALLER, r->xmm, 12);
	out = call(hv, r->rcx, r->rdx, r->r8);
	check_outcome(r, f, &out);
	/* XMM are fetched only for an XMM-fast call that got that far. */
	if (r->enc != HV_ENC_XMM_FAST || r->ud)
		ck_assert_msg(f->xmm_reads == 0, "%s: read XMM", r->name);
	hv_destroy(hv);
	fake_free(f);
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
		return call(hv, rcx, IN_GPA, 0);
	}
	if (n > 2)
		memcpy(xmm, in + 2, (n - 2) * 8);
	fake_set_xmm(f, CALLER, xmm, 12);
	return call(hv, rcx, in[0], in[1]);
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);
	struct hv_hcall_out out;

	out = call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(out.inject_ud);
	ck_assert_uint_eq(out.rax, 0);
	ck_assert_uint_eq(f->ipis, 0);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID), HV_MSR_OK);
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      PAGE_GPA | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	out = call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(!out.inject_ud);
	ck_assert_uint_eq(out.rax, HV_STATUS_SUCCESS);
	ck_assert_uint_eq(f->ipis, 1);

	/* Clearing the guest OS identity takes the interface away again. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0), HV_MSR_OK);
	out = call(hv, 0xb | FAST, 0x40, 1);
	ck_assert(out.inject_ud);
	ck_assert_uint_eq(f->ipis, 1);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_host_failures)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
	const uint64_t flush_all[] = { 0, ALLP, 0 };
	struct hv_hcall_out out;

	fake_put(f, IN_GPA, flush_all, 3);
	f->flush_ret = -1;
	out = call(hv, 0x2, IN_GPA, 0);
	ck_assert_uint_eq(out.rax, ST_NO_RES);
	ck_assert_uint_eq(f->flushes, 1);

	/* A failed rep call reports no reps. */
	out = call(hv, 0x3 | FAST | REPS(1), 0, ALLP);
	ck_assert_uint_eq(out.rax, ST_NO_RES);

	f->ipi_ret = -1;
	out = call(hv, 0xb | FAST, 0x40, 1);
	ck_assert_uint_eq(out.rax, ST_NO_RES);
	ck_assert_uint_eq(f->ipis, 1);

	f->xmm_ret = -1;
	out = call(hv, 0x15 | FAST, 0x40, 1);
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
	struct hv_config cfg = cfg_of(CFG_NOHINTS);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);

	call(hv, 0x2, IN_GPA, 0);		/* access denied */
	call(hv, 0x1234, IN_GPA, 0);		/* unknown */
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
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

/* ---- CPUID -------------------------------------------------------------- */

START_TEST(test_cpuid_full)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);
	struct hv_cpuid_leaf l[8];
	char vendor[13] = { 0 };

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 8), 6);
	ck_assert_uint_eq(l[0].function, 0x40000000);
	ck_assert_uint_eq(l[0].eax, 0x40000005);
	memcpy(vendor, &l[0].ebx, 4);
	memcpy(vendor + 4, &l[0].ecx, 4);
	memcpy(vendor + 8, &l[0].edx, 4);
	ck_assert_str_eq(vendor, "Microsoft Hv");
	ck_assert_uint_eq(l[1].function, 0x40000001);
	ck_assert_uint_eq(l[1].eax, 0x31237648);	/* "Hv#1" */
	ck_assert_uint_eq(l[2].function, 0x40000002);
	ck_assert_uint_eq(l[2].eax | l[2].ebx | l[2].ecx | l[2].edx, 0);
	ck_assert_uint_eq(l[3].function, 0x40000003);
	ck_assert_uint_eq(l[3].eax, (1u << 5) | (1u << 6));
	ck_assert_uint_eq(l[3].ebx, 0);
	ck_assert_uint_eq(l[3].edx, 1u << 4);
	ck_assert_uint_eq(l[4].function, 0x40000004);
	ck_assert_uint_eq(l[4].eax, (1u << 2) | (1u << 10) | (1u << 11));
	ck_assert_uint_eq(l[4].ebx, 0xffffffffu);
	ck_assert_uint_eq(l[5].function, 0x40000005);
	ck_assert_uint_eq(l[5].eax, NR_VCPUS);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_cpuid_options)
{
	struct hv_config cfg = {
		.nr_vcpus = 3, .ipi_hint = true, .ex_hint = false, .flush_hint = false,
	};
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);
	struct hv_cpuid_leaf l[6];

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 6), 6);
	ck_assert_uint_eq(l[3].edx, 0);			/* no XMM input */
	ck_assert_uint_eq(l[4].eax, 1u << 10);		/* IPI hint only */
	ck_assert_uint_eq(l[5].eax, 3);
	/* A short table gets the first leaves only. */
	memset(l, 0, sizeof(l));
	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 2), 2);
	ck_assert_uint_eq(l[1].function, 0x40000001);
	ck_assert_uint_eq(l[2].function, 0);
	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 0), 0);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

/* ---- MSRs and the hypercall page ----------------------------------------- */

static const uint8_t page_plain[] = { 0xe6, MVM_PORT_HCALL, 0xc3 };

static const uint8_t page_spill[] = {
	0xf7, 0xc1, 0x00, 0x00, 0x01, 0x00, 0x74, 0x06, 0x66, 0x83, 0xf9, 0x0b, 0x75, 0x03,
	0xe6, MVM_PORT_HCALL, 0xc3,
	0x48, 0x8d, 0x64, 0x24, 0x80,
	0xf3, 0x0f, 0x7f, 0x04, 0x24,
	0xf3, 0x0f, 0x7f, 0x4c, 0x24, 0x10,
	0xf3, 0x0f, 0x7f, 0x54, 0x24, 0x20,
	0xf3, 0x0f, 0x7f, 0x5c, 0x24, 0x30,
	0xf3, 0x0f, 0x7f, 0x64, 0x24, 0x40,
	0xf3, 0x0f, 0x7f, 0x6c, 0x24, 0x50,
	0xe6, MVM_PORT_HCALL,
	0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,
	0xc3,
};

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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);

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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);

	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA | HV_HYPERCALL_ENABLE);
	check_page(f, PAGE_GPA, page_plain, sizeof(page_plain));
	/* Moving the page writes it at the new place. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      0x7000 | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	check_page(f, 0x7000, page_plain, sizeof(page_plain));
	/* The last page of RAM is a page like any other. */
	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL,
				      (RAM_SIZE - 4096) | HV_HYPERCALL_ENABLE), HV_MSR_OK);
	check_page(f, RAM_SIZE - 4096, page_plain, sizeof(page_plain));
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_page_spill)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv;

	cfg.xmm_spill = true;
	hv = hv_new_enabled(f, &cfg);
	check_page(f, PAGE_GPA, page_spill, sizeof(page_spill));
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_needs_os_id)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);

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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_GUEST_OS_ID, 0), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), PAGE_GPA);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_GUEST_OS_ID), 0);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_outside_ram)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
	uint64_t val = 0x3000 | 0xffc | HV_HYPERCALL_ENABLE;

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, val), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), val);
	check_page(f, 0x3000, page_plain, sizeof(page_plain));
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_hypercall_locked)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new_enabled(f, &cfg);
	uint64_t locked = 0x4000 | HV_HYPERCALL_LOCKED | HV_HYPERCALL_ENABLE;
	unsigned int writes;

	ck_assert_int_eq(hv_msr_write(hv, 0, HV_X64_MSR_HYPERCALL, locked), HV_MSR_OK);
	ck_assert_uint_eq(msr_get(hv, HV_X64_MSR_HYPERCALL), locked);
	check_page(f, 0x4000, page_plain, sizeof(page_plain));
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
	ck_assert_uint_eq(call(hv, 0xb | FAST, 0x40, 1).rax, HV_STATUS_SUCCESS);
	hv_destroy(hv);
	fake_free(f);
}
END_TEST

START_TEST(test_msr_vp_index)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);
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
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	struct hv *hv = hv_new(f, &cfg);
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

START_TEST(test_page_disassembly)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct fake_host *f = fake_new();
	char path[] = "/tmp/hv-page-XXXXXX";
	char cmd[128], line[256], insn[128];
	size_t nr = 0;
	FILE *p;
	int fd;

	cfg.xmm_spill = true;
	hv_destroy(hv_new_enabled(f, &cfg));
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, f->ram + PAGE_GPA, sizeof(page_spill)),
			 (ssize_t)sizeof(page_spill));
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

/* ---- creation and names ------------------------------------------------ */

START_TEST(test_create_rejects)
{
	struct hv_config cfg = cfg_of(CFG_FULL);
	struct hv_host_ops ops = fake_ops;
	struct hv *hv;

	cfg.nr_vcpus = 0;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.nr_vcpus = HV_MAX_VP_INDEX + 1;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	cfg.nr_vcpus = HV_MAX_VP_INDEX;
	hv = hv_create(&cfg, &fake_ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);

	ops.read_xmm = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	cfg.xmm_input = false;
	hv = hv_create(&cfg, &ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
	ops.flush_vcpus = NULL;
	ck_assert_ptr_null(hv_create(&cfg, &ops, NULL));
	ck_assert_ptr_null(hv_create(NULL, &fake_ops, NULL));
	hv_destroy(NULL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(hv_call_name(0x2), "FlushVirtualAddressSpace");
	ck_assert_str_eq(hv_call_name(0x3), "FlushVirtualAddressList");
	ck_assert_str_eq(hv_call_name(0xb), "SendSyntheticClusterIpi");
	ck_assert_str_eq(hv_call_name(0x13), "FlushVirtualAddressSpaceEx");
	ck_assert_str_eq(hv_call_name(0x14), "FlushVirtualAddressListEx");
	ck_assert_str_eq(hv_call_name(0x15), "SendSyntheticClusterIpiEx");
	ck_assert_ptr_null(hv_call_name(0x1));
	ck_assert_ptr_null(hv_call_name(0xffff));
	ck_assert_str_eq(hv_encoding_name(HV_ENC_REGULAR), "regular");
	ck_assert_str_eq(hv_encoding_name(HV_ENC_FAST), "fast");
	ck_assert_str_eq(hv_encoding_name(HV_ENC_XMM_FAST), "xmm-fast");
	ck_assert_ptr_null(hv_encoding_name(HV_ENC_COUNT));
}
END_TEST

Suite *hv_suite(void)
{
	Suite *s = suite_create("hv");
	TCase *tc;

	tc = tcase_create("hypercall");
	tcase_add_loop_test(tc, test_hypercall_table, 0, sizeof(hc_rows) / sizeof(hc_rows[0]));
	tcase_add_loop_test(tc, test_reserved_bits, 0,
			    sizeof(valid_calls) / sizeof(valid_calls[0]));
	tcase_add_loop_test(tc, test_reserved_fields, 0,
			    sizeof(valid_calls) / sizeof(valid_calls[0]));
	tcase_add_test(tc, test_hypercall_needs_enabled_page);
	tcase_add_test(tc, test_host_failures);
	tcase_add_test(tc, test_no_read_before_decode);
	tcase_add_test(tc, test_concurrent_vcpus);
	suite_add_tcase(s, tc);

	tc = tcase_create("cpuid");
	tcase_add_test(tc, test_cpuid_full);
	tcase_add_test(tc, test_cpuid_options);
	suite_add_tcase(s, tc);

	tc = tcase_create("msr");
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
	tcase_add_test(tc, test_page_disassembly);
	suite_add_tcase(s, tc);

	tc = tcase_create("core");
	tcase_add_test(tc, test_create_rejects);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
