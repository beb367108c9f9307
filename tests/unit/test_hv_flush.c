// SPDX-License-Identifier: MIT
/*
 * hv/flush.c: FlushVirtualAddress{Space,List}{,Ex} through hv_hypercall,
 * each row one call with the status and exactly the flush it must cause.
 */
#include <check.h>

#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

static const struct hc_row flush_rows[] = {
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
};

START_TEST(test_flush_table)
{
	fake_run_row(&flush_rows[_i]);
}
END_TEST

static Suite *hv_flush_suite(void)
{
	Suite *s = suite_create("hv_flush");
	TCase *tc = tcase_create("calls");

	tcase_add_loop_test(tc, test_flush_table, 0, sizeof(flush_rows) / sizeof(flush_rows[0]));
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_flush_suite);
