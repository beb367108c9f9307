// SPDX-License-Identifier: MIT
/*
 * hv/ipi.c: SendSyntheticClusterIpi{,Ex} through hv_hypercall, each row one
 * call with the status and exactly the IPI (vector, set) it must send.
 */
#include <check.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

static const struct hc_row ipi_rows[] = {
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
};

START_TEST(test_ipi_table)
{
	fake_run_row(&ipi_rows[_i]);
}
END_TEST

static Suite *hv_ipi_suite(void)
{
	Suite *s = suite_create("hv_ipi");
	TCase *tc = tcase_create("calls");

	tcase_add_loop_test(tc, test_ipi_table, 0, sizeof(ipi_rows) / sizeof(ipi_rows[0]));
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_ipi_suite);
