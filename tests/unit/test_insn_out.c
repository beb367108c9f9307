// SPDX-License-Identifier: MIT
/*
 * insn_out_locate() against a fake KVM. No one machine shows both
 * behaviours, so the fake models each: where RIP is at the exit and whether
 * the completing KVM_RUN moves it, per backend and instruction form.
 */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/insn_out.h"

#define HCALL_PORT	0xf9
#define CODE_BASE	0x10000ull	/* guest address of buf[0] */

enum backend { VMX_SVM, PVM };

struct form {
	const char *name;
	uint8_t bytes[8];
	unsigned int len;
	unsigned int size;
	bool string, rep;
};

static const struct form forms[] = {
	{ "out %al,$0xf9",	{ 0xe6, 0xf9 },		2, 1, false, false },
	{ "out %eax,$0xf9",	{ 0xe7, 0xf9 },		2, 4, false, false },
	{ "out %ax,$0xf9",	{ 0x66, 0xe7, 0xf9 },	3, 2, false, false },
	{ "out %al,%dx",	{ 0xee },		1, 1, false, false },
	{ "out %eax,%dx",	{ 0xef },		1, 4, false, false },
	{ "out %ax,%dx",	{ 0x66, 0xef },		2, 2, false, false },
	{ "outsb",		{ 0x6e },		1, 1, true, false },
	{ "outsl",		{ 0x6f },		1, 4, true, false },
	{ "rep outsb",		{ 0xf3, 0x6e },		2, 1, true, true },
	{ "rep outsw",		{ 0xf3, 0x66, 0x6f },	3, 2, true, true },
};

/* Instructions the OUT may follow; several end in a byte that looks like a prefix. */
static const struct {
	uint8_t bytes[8];
	unsigned int len;
} before[] = {
	{ { 0x90 }, 1 },				/* nop */
	{ { 0xb0, 0x66 }, 2 },				/* mov $0x66,%al */
	{ { 0x48, 0x83, 0xc0, 0x40 }, 4 },		/* add $0x40,%rax */
	{ { 0xb1, 0xf3 }, 2 },				/* mov $0xf3,%cl */
	{ { 0x66, 0xba, 0xf9, 0x00 }, 4 },		/* mov $0xf9,%dx */
	{ { 0xb1, 0x2e }, 2 },				/* mov $0x2e,%cl */
};

/* A code page: filler, then `pre`, then the OUT at `at`, then `ret`. */
struct page {
	uint8_t buf[64];
	unsigned int at;
};

static void place(struct page *pg, const uint8_t *pre, unsigned int pre_len,
		  const struct form *f)
{
	memset(pg->buf, 0xcc, sizeof(pg->buf));
	pg->at = 32;
	memcpy(pg->buf + pg->at - pre_len, pre, pre_len);
	memcpy(pg->buf + pg->at, f->bytes, f->len);
	pg->buf[pg->at + f->len] = 0xc3;
}

/* What the exit looks like to the VMM on `b`, from the docs' measured table. */
static struct insn_out_exit fake_exit(const struct page *pg, const struct form *f,
				      enum backend b)
{
	bool fast_path = b == VMX_SVM && !f->string;
	bool rip_on = fast_path || f->rep;
	unsigned int rip_off = pg->at + (rip_on ? 0 : f->len);
	struct insn_out_exit e = {
		.rip = CODE_BASE + rip_off,
		.code = pg->buf + rip_off - INSN_OUT_MAX_LEN,
		.nr_before = INSN_OUT_MAX_LEN,
		.nr_after = INSN_OUT_MAX_LEN,
		.port = HCALL_PORT,
		.size = f->size,
		.dx = HCALL_PORT,
		.mode64 = true,
		/* Only the fast path's completion skips the instruction. */
		.rip_moved = fast_path,
	};

	return e;
}

START_TEST(test_lands_on_first_byte)
{
	const enum backend backends[] = { VMX_SVM, PVM };

	for (unsigned int b = 0; b < 2; b++)
		for (unsigned int i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
			for (unsigned int j = 0; j < sizeof(before) / sizeof(before[0]); j++) {
				struct page pg;
				struct insn_out_exit e;
				uint64_t rip = 0;

				place(&pg, before[j].bytes, before[j].len, &forms[i]);
				e = fake_exit(&pg, &forms[i], backends[b]);
				ck_assert_msg(insn_out_locate(&e, &rip) == 0 &&
					      rip == CODE_BASE + pg.at,
					      "%s on %s after filler %u: got 0x%llx, want 0x%llx",
					      forms[i].name, b ? "PVM" : "VMX/SVM", j,
					      (unsigned long long)rip,
					      (unsigned long long)(CODE_BASE + pg.at));
			}
}
END_TEST

/* Exit RIP just past `bytes` (placed after nops), nothing moved: the PVM case. */
static int locate_past(const uint8_t *bytes, unsigned int len, uint16_t port,
		       unsigned int size, uint16_t dx, uint64_t *rip)
{
	uint8_t buf[32];
	struct insn_out_exit e = {
		.rip = CODE_BASE + 16,
		.code = buf + 16 - INSN_OUT_MAX_LEN,
		.nr_before = INSN_OUT_MAX_LEN,
		.nr_after = 8,
		.port = port,
		.size = size,
		.dx = dx,
		.mode64 = true,
	};

	memset(buf, 0x90, sizeof(buf));
	memcpy(buf + 16 - len, bytes, len);
	buf[16] = 0xc3;
	return insn_out_locate(&e, rip);
}

START_TEST(test_refuses_what_does_not_fit)
{
	static const uint8_t garbage[] = { 0x0f, 0x0b, 0x48, 0x89, 0xc7, 0x31, 0xc0 };
	static const uint8_t out_f8[] = { 0xe6, 0xf8 };
	static const uint8_t out_eax[] = { 0xe7, 0xf9 };
	static const uint8_t out_ax_dx[] = { 0x66, 0xef };
	static const uint8_t out_dx[] = { 0xee };
	static const uint8_t lock_out[] = { 0xf0, 0xee };
	uint64_t rip = 0x1234;

	ck_assert_int_eq(locate_past(garbage, sizeof(garbage), HCALL_PORT, 1, HCALL_PORT, &rip), -1);
	/* port mismatch: imm8 is 0xf8, the exit says 0xf9 */
	ck_assert_int_eq(locate_past(out_f8, 2, HCALL_PORT, 1, HCALL_PORT, &rip), -1);
	/* size mismatch, both ways */
	ck_assert_int_eq(locate_past(out_eax, 2, HCALL_PORT, 1, HCALL_PORT, &rip), -1);
	ck_assert_int_eq(locate_past(out_eax, 2, HCALL_PORT, 2, HCALL_PORT, &rip), -1);
	ck_assert_int_eq(locate_past(out_ax_dx, 2, HCALL_PORT, 1, HCALL_PORT, &rip), -1);
	/* a DX form whose DX is not the exit's port */
	ck_assert_int_eq(locate_past(out_dx, 1, HCALL_PORT, 1, 0x3f8, &rip), -1);
	/* LOCK is not a prefix of OUT; the bare `ee` after it still decodes */
	ck_assert_int_eq(locate_past(lock_out, 2, HCALL_PORT, 1, HCALL_PORT, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 15);
	rip = 0x1234;
	ck_assert_int_eq(locate_past(garbage, sizeof(garbage), HCALL_PORT, 1, HCALL_PORT, &rip), -1);
	ck_assert_uint_eq(rip, 0x1234);	/* untouched on failure */
}
END_TEST

/* The readable window stops at a page boundary (the page before is not mapped). */
START_TEST(test_page_boundary)
{
	static const uint8_t code[] = { 0xe6, 0xf9, 0xc3 };
	struct insn_out_exit e = {
		.rip = 0x200002,	/* past `e6 f9` at 0x200000, a page start */
		.code = code,
		.nr_before = 2,
		.nr_after = 1,
		.port = HCALL_PORT,
		.size = 1,
		.mode64 = true,
	};
	uint64_t rip = 0;

	ck_assert_int_eq(insn_out_locate(&e, &rip), 0);
	ck_assert_uint_eq(rip, 0x200000);
	/* Only the imm8 is readable: the opcode is out of reach, so no answer. */
	e.code = code + 1;
	e.nr_before = 1;
	ck_assert_int_eq(insn_out_locate(&e, &rip), -1);
	/* RIP at a page start with nothing readable before it. */
	e.code = code + 2;
	e.nr_before = 0;
	ck_assert_int_eq(insn_out_locate(&e, &rip), -1);
	/* Nothing can start below address 0. */
	e.code = code;
	e.nr_before = 2;
	e.rip = 1;
	ck_assert_int_eq(insn_out_locate(&e, &rip), -1);
	/* A `rep outsb` whose second byte is past the readable end is not seen. */
	{
		static const uint8_t rep_cut[] = { 0x90, 0xf3 };
		struct insn_out_exit r = {
			.rip = 0x200fff, .code = rep_cut, .nr_before = 1, .nr_after = 1,
			.port = HCALL_PORT, .size = 1, .dx = HCALL_PORT, .mode64 = true,
		};

		ck_assert_int_eq(insn_out_locate(&r, &rip), -1);
	}
}
END_TEST

/* The documented ambiguity rules (vmm/insn_out.c, docs/robustness.md). */
START_TEST(test_ambiguity_rules)
{
	/* `out %al,%dx` then `rep outsb`, same port and size: rule 1, the rep outsb. */
	static const uint8_t dx_then_rep[] = { 0xee, 0xf3, 0x6e };
	/* Redundant REX.W and segment override: rule 2, the opcode byte. */
	static const uint8_t rex_out[] = { 0x48, 0xe7, 0xf9 };
	static const uint8_t seg_outsb[] = { 0x64, 0x6e };
	/* `out %al,$0xee` with DX = 0xee reads as `out %al,%dx`. */
	static const uint8_t imm_ee[] = { 0xe6, 0xee };
	struct insn_out_exit e = {
		.rip = CODE_BASE + 1,
		.code = dx_then_rep,
		.nr_before = 1,
		.nr_after = 2,
		.port = HCALL_PORT,
		.size = 1,
		.dx = HCALL_PORT,
		.mode64 = true,
	};
	uint64_t rip = 0;

	ck_assert_int_eq(insn_out_locate(&e, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 1);
	ck_assert_int_eq(locate_past(rex_out, 3, HCALL_PORT, 4, HCALL_PORT, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 14);
	ck_assert_int_eq(locate_past(seg_outsb, 2, HCALL_PORT, 1, HCALL_PORT, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 15);
	ck_assert_int_eq(locate_past(imm_ee, 2, 0xee, 1, 0xee, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 15);
	/* With DX elsewhere the imm8 form is the only reading. */
	ck_assert_int_eq(locate_past(imm_ee, 2, 0xee, 1, 0x3f8, &rip), 0);
	ck_assert_uint_eq(rip, CODE_BASE + 14);
}
END_TEST

/* Exit RIP just past `bytes`, nothing moved, in the given code mode. */
static int locate_mode(const uint8_t *bytes, unsigned int len, unsigned int size,
		       bool mode64, bool opsize16, uint64_t *rip)
{
	uint8_t buf[8];
	struct insn_out_exit e = {
		.rip = 0x7c08, .code = buf, .nr_before = sizeof(buf), .port = HCALL_PORT,
		.size = size, .dx = HCALL_PORT, .mode64 = mode64, .opsize16 = opsize16,
	};

	memset(buf, 0x90, sizeof(buf));
	memcpy(buf + sizeof(buf) - len, bytes, len);
	return insn_out_locate(&e, rip);
}

START_TEST(test_modes)
{
	static const uint8_t out_dx_w[] = { 0xef };
	static const uint8_t out_dx_66[] = { 0x66, 0xef };
	static const uint8_t rexw_after_66[] = { 0x66, 0x48, 0xef };
	static const uint8_t rex_after_66[] = { 0x66, 0x40, 0xef };
	struct insn_out_exit e = { 0 };
	uint64_t rip = 0;

	/* 64-bit: REX.W beats 0x66 (and I/O stays 32-bit), so no size-2 reading. */
	ck_assert_int_eq(locate_mode(rexw_after_66, 3, 2, true, false, &rip), -1);
	ck_assert_int_eq(locate_mode(rexw_after_66, 3, 4, true, false, &rip), 0);
	ck_assert_uint_eq(rip, 0x7c07);	/* shortest reading: `ef` */
	/* A REX without W keeps the 0x66 before it. */
	ck_assert_int_eq(locate_mode(rex_after_66, 3, 2, true, false, &rip), 0);
	ck_assert_uint_eq(rip, 0x7c05);
	/* 32-bit code: 0x40 is `inc %eax`, an opcode, so `66 40 ef` is no OUT. */
	ck_assert_int_eq(locate_mode(rex_after_66, 3, 2, false, false, &rip), -1);
	/* 16-bit code: no prefix means 16 bits, 0x66 means 32. */
	ck_assert_int_eq(locate_mode(out_dx_w, 1, 2, false, true, &rip), 0);
	ck_assert_uint_eq(rip, 0x7c07);
	ck_assert_int_eq(locate_mode(out_dx_66, 2, 4, false, true, &rip), 0);
	ck_assert_uint_eq(rip, 0x7c06);
	ck_assert_int_eq(locate_mode(out_dx_66, 2, 2, false, true, &rip), 0);
	ck_assert_uint_eq(rip, 0x7c07);	/* the 0x66 read as the previous byte */
	/* RIP moved: KVM skipped it, the exit RIP is the answer, no bytes needed. */
	e = (struct insn_out_exit){ .rip = 0xabc, .port = HCALL_PORT, .size = 1,
				    .rip_moved = true };
	ck_assert_int_eq(insn_out_locate(&e, &rip), 0);
	ck_assert_uint_eq(rip, 0xabc);
	e.rip_moved = false;
	ck_assert_int_eq(insn_out_locate(&e, &rip), -1);
}
END_TEST

static Suite *insn_out_suite(void)
{
	Suite *s = suite_create("insn_out");
	TCase *tc = tcase_create("locate");

	tcase_add_test(tc, test_lands_on_first_byte);
	tcase_add_test(tc, test_refuses_what_does_not_fit);
	tcase_add_test(tc, test_page_boundary);
	tcase_add_test(tc, test_ambiguity_rules);
	tcase_add_test(tc, test_modes);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(insn_out_suite);
