// SPDX-License-Identifier: MIT
/* Naming what KVM failed to emulate, from the bytes its exit carries. */
#include <check.h>
#include <linux/kvm.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/emufail.h"

static void emulation_exit(struct kvm_run *run, const unsigned char *insn, size_t n)
{
	memset(run, 0, sizeof(*run));
	run->exit_reason = KVM_EXIT_INTERNAL_ERROR;
	run->emulation_failure.suberror = KVM_INTERNAL_ERROR_EMULATION;
	run->emulation_failure.ndata = 4;
	run->emulation_failure.flags = KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES;
	run->emulation_failure.insn_size = n;
	memcpy(run->emulation_failure.insn_bytes, insn, n);
}

/* Linux 6.1's SLUB on kvm_pvm: lock cmpxchg16b 0x20(%rbp), then a jz. */
START_TEST(test_lock_rexw_cmpxchg16b)
{
	static const unsigned char b[] = { 0xf0, 0x48, 0x0f, 0xc7, 0x4d, 0x20, 0x74 };

	ck_assert_str_eq(emufail_insn_name(b, sizeof(b)), "cmpxchg16b");
	ck_assert_str_eq(emufail_insn_name(b + 1, sizeof(b) - 1), "cmpxchg16b");
}
END_TEST

START_TEST(test_cmpxchg8b_without_rexw)
{
	static const unsigned char b[] = { 0xf0, 0x0f, 0xc7, 0x4d, 0x20 };

	ck_assert_str_eq(emufail_insn_name(b, sizeof(b)), "cmpxchg8b");
}
END_TEST

/* 0f c7 with a register operand (mod 3) or another /reg is not cmpxchg. */
START_TEST(test_other_0f_c7_forms_unnamed)
{
	static const unsigned char rdrand[] = { 0x48, 0x0f, 0xc7, 0xf0 };
	static const unsigned char vmptrld[] = { 0x0f, 0xc7, 0x30 };

	ck_assert_ptr_null(emufail_insn_name(rdrand, sizeof(rdrand)));
	ck_assert_ptr_null(emufail_insn_name(vmptrld, sizeof(vmptrld)));
}
END_TEST

START_TEST(test_int3_xsave_xgetbv)
{
	static const unsigned char int3[] = { 0xcc, 0x90, 0x90 };
	static const unsigned char xsave[] = { 0x0f, 0xae, 0x27 };
	static const unsigned char xgetbv[] = { 0x0f, 0x01, 0xd0 };

	ck_assert_str_eq(emufail_insn_name(int3, sizeof(int3)), "int3");
	ck_assert_str_eq(emufail_insn_name(xsave, sizeof(xsave)), "xsave");
	ck_assert_str_eq(emufail_insn_name(xgetbv, sizeof(xgetbv)), "xgetbv");
}
END_TEST

/* Prefixes alone, or an opcode cut off, name nothing and read no further. */
START_TEST(test_truncated_names_nothing)
{
	static const unsigned char b[] = { 0xf0, 0x48, 0x0f, 0xc7 };

	ck_assert_ptr_null(emufail_insn_name(b, 2));
	ck_assert_ptr_null(emufail_insn_name(b, 3));
	ck_assert_ptr_null(emufail_insn_name(b, 4));
	ck_assert_ptr_null(emufail_insn_name(b, 0));
}
END_TEST

START_TEST(test_describe_bytes_name_and_pvm_reason)
{
	static const unsigned char b[] = { 0xcc, 0x90, 0x90 };
	struct kvm_run run;
	char buf[320];

	emulation_exit(&run, b, sizeof(b));
	emufail_describe(&run, MVM_BACKEND_SVM, buf, sizeof(buf));
	ck_assert_str_eq(buf, ", instruction bytes cc 90 90 (int3)");
	emufail_describe(&run, MVM_BACKEND_PVM, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, ", instruction bytes cc 90 90 (int3); kvm_pvm runs guest CPL0"));
}
END_TEST

/* No bytes flag, no bytes, or an oversized length from KVM. */
START_TEST(test_describe_without_bytes_or_oversized)
{
	static const unsigned char b[15] = { 0x90 };
	struct kvm_run run;
	char buf[320];

	emulation_exit(&run, b, sizeof(b));
	run.emulation_failure.flags = 0;
	ck_assert_uint_eq(emufail_describe(&run, MVM_BACKEND_PVM, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	emulation_exit(&run, b, sizeof(b));
	run.emulation_failure.insn_size = 200;
	emufail_describe(&run, MVM_BACKEND_VMX, buf, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), strlen(", instruction bytes") + 15 * 3);
}
END_TEST

/* A small buffer truncates, NUL-terminated, and says how much it kept. */
START_TEST(test_describe_small_buffer)
{
	static const unsigned char b[] = { 0xcc };
	struct kvm_run run;
	char buf[8];

	emulation_exit(&run, b, sizeof(b));
	ck_assert_uint_eq(emufail_describe(&run, MVM_BACKEND_PVM, buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, ", instr");
}
END_TEST

/* kvm-unit-tests' memory.flat on kvm_pvm stops at clwb (66 0f ae 33). */
START_TEST(test_cache_line_writebacks)
{
	static const unsigned char clwb[] = { 0x66, 0x0f, 0xae, 0x33 };
	static const unsigned char clflushopt[] = { 0x66, 0x0f, 0xae, 0x3b };
	static const unsigned char clflush[] = { 0x0f, 0xae, 0x3b };
	static const unsigned char sfence[] = { 0x0f, 0xae, 0xf8 };	/* register form: a fence */

	ck_assert_str_eq(emufail_insn_name(clwb, sizeof(clwb)), "clwb");
	ck_assert_str_eq(emufail_insn_name(clflushopt, sizeof(clflushopt)), "clflushopt");
	ck_assert_str_eq(emufail_insn_name(clflush, sizeof(clflush)), "clflush");
	ck_assert_ptr_null(emufail_insn_name(sfence, sizeof(sfence)));
}
END_TEST

static Suite *emufail_suite(void)
{
	Suite *s = suite_create("emufail");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_lock_rexw_cmpxchg16b);
	tcase_add_test(tc, test_cmpxchg8b_without_rexw);
	tcase_add_test(tc, test_other_0f_c7_forms_unnamed);
	tcase_add_test(tc, test_int3_xsave_xgetbv);
	tcase_add_test(tc, test_truncated_names_nothing);
	tcase_add_test(tc, test_describe_bytes_name_and_pvm_reason);
	tcase_add_test(tc, test_describe_without_bytes_or_oversized);
	tcase_add_test(tc, test_describe_small_buffer);
	tcase_add_test(tc, test_cache_line_writebacks);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(emufail_suite);
