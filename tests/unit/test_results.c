// SPDX-License-Identifier: MIT
/*
 * Result records: validation, formatting, the VMM's numbering, and the
 * ids as the report and --json show them after a rejected record.
 */
#include <check.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/report.h"
#include "vmm/results.h"

static struct mvm_result good_record(void)
{
	struct mvm_result r;

	memset(&r, 0, sizeof(r));
	r.abi_version = MVM_ABI_VERSION;
	r.size = sizeof(r);
	strcpy(r.suite, "vmexit");
	strcpy(r.name, "cpuid");
	r.iters = 10;
	r.min = 1;
	r.median = 2;
	r.p90 = 3;
	r.p99 = 4;
	r.max = 5;
	r.mean = 3;
	return r;
}

START_TEST(test_results_validate)
{
	struct mvm_result r = good_record();
	char why[128];

	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.median = 6;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "out of order"));
	r = good_record();
	memset(r.name, 'x', sizeof(r.name));
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "not NUL-terminated"));
	r = good_record();
	r.abi_version = 99;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = good_record();
	r.iters = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = good_record();
	r.cpl = 4;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
}
END_TEST

/* Names reach a terminal and the JSON: printable ASCII only. */
START_TEST(test_results_validate_printable)
{
	static const char *const bad[] = { "caf\xc3\xa9", "\x1b[2J", "a\nb", "\x7f" };
	struct mvm_result r = good_record();
	char why[128];

	strcpy(r.name, " ~ all of 0x20-0x7e is fine");
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (int field = 0; field < 4; field++) {
			char *const f[] = { r.suite, r.name, r.variant, r.state };

			r = good_record();
			strcpy(f[field], bad[i]);
			ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
			ck_assert_str_eq(why, "a name with a byte outside printable ASCII");
		}
	}
}
END_TEST

/*
 * Every reason, with the record guest/tests/hostile_records.c spoils the
 * same way: on stderr the VMM names only the first few rejections.
 */
START_TEST(test_results_validate_reasons)
{
	static const struct {
		const char *why;
		bool fill;		/* memset the field, else store val in it */
		size_t off, len;
		uint64_t val;
	} cases[] = {
#define SPOIL(fill, f, v, w) \
	{ w, fill, offsetof(struct mvm_result, f), sizeof(((struct mvm_result *)0)->f), v }
		SPOIL(false, abi_version, MVM_ABI_VERSION + 1, "ABI version differs from the VMM's"),
		SPOIL(false, size, 0xffffffff, "record size differs from the VMM's"),
		SPOIL(true, suite, 0, "suite name empty or not NUL-terminated"),
		SPOIL(true, suite, 'x', "suite name empty or not NUL-terminated"),
		SPOIL(true, name, 0, "case name empty or not NUL-terminated"),
		SPOIL(true, variant, 'x', "variant not NUL-terminated"),
		SPOIL(true, state, 'x', "state not NUL-terminated"),
		SPOIL(false, unit, MVM_UNIT_PER_SEC + 1, "unknown unit"),
		SPOIL(false, cpl, 4, "CPL above 3"),
		SPOIL(false, iters, 0, "zero iterations"),
		SPOIL(false, p99, 6, "statistics out of order"),
		SPOIL(false, mean, 0, "mean outside [min, max]"),
		SPOIL(false, mean, 6, "mean outside [min, max]"),
#undef SPOIL
	};
	char why[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mvm_result r = good_record();
		uint8_t *field = (uint8_t *)&r + cases[i].off;

		if (cases[i].fill)
			memset(field, (int)cases[i].val, cases[i].len);
		else	/* a u32 or u64 field: the low bytes of val (little-endian) */
			memcpy(field, &cases[i].val, cases[i].len);
		ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
		ck_assert_msg(strstr(why, cases[i].why), "case %zu: '%s', expected '%s'", i, why,
			      cases[i].why);
	}
}
END_TEST

/* A record from the interleaved harness: body, ratio and its spread. */
static struct mvm_result rounds_record(void)
{
	struct mvm_result r = good_record();

	r.flags = MVM_RESULT_BODY | MVM_RESULT_RATIO;
	r.body = 2;
	r.baseline_id = 1;
	r.rounds = 32;
	r.ratio = 10600;
	r.ratio_lo = 10200;
	r.ratio_hi = 10900;
	for (int k = 0; k < 32; k++) {
		r.round_median[k] = 2 + (k & 1);
		r.round_loop[k] = 1;
	}
	return r;
}

START_TEST(test_results_validate_rounds)
{
	struct mvm_result r = rounds_record();
	char why[128];

	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.ratio_hi = MVM_RATIO_INF;	/* a round whose baseline was in the noise */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r = rounds_record();
	r.ratio_lo = 10700;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "interquartile"));
	r = rounds_record();
	r.baseline_id = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.rounds = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags |= MVM_RESULT_IN_NOISE;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags = MVM_RESULT_IN_NOISE;	/* a body in the noise but a value set */
	r.ratio = r.ratio_lo = r.ratio_hi = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "without MVM_RESULT_BODY"));
	r.body = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.ratio = 10000;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.body = 6;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.flags |= 1u << 7;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.id = 1;	/* ids are the VMM's */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
}
END_TEST

/* ABI 4's per-round block medians: inside the row's range, nothing past `rounds`. */
START_TEST(test_results_validate_round_values)
{
	struct mvm_result r = rounds_record();
	char why[128];

	r.rounds = 20;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "per-round value past the record's rounds");
	for (int k = 20; k < 32; k++)
		r.round_median[k] = r.round_loop[k] = 0;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
	r.round_loop[20] = 1;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.round_median[5] = 6;	/* above max */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "a round's median outside [min, max]");
	r.round_median[5] = 0;	/* below min */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	r = rounds_record();
	r.rounds = 33;
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "more rounds than the record holds values for");
	r = rounds_record();
	r.round_loop[0] = 999;	/* the loop's block medians are not bounded by the row's */
	ck_assert_int_eq(results_validate(&r, why, sizeof(why)), 0);
}
END_TEST

START_TEST(test_results_format)
{
	struct mvm_result r = rounds_record();
	char buf[64];

	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.060x [1.020-1.090]");
	r.ratio_lo = 9995;	/* rounds to three decimals */
	r.ratio_hi = MVM_RATIO_INF;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.060x [1.000-inf]");
	r.ratio = 123456;
	r.ratio_hi = 4000000;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "12.346x [1.000-400.000]");
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2");
	r.flags = MVM_RESULT_IN_NOISE;
	results_format_ratio(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "in noise");
	r.flags = 0;
	results_format_body(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-");
}
END_TEST

START_TEST(test_results_add)
{
	struct results res;
	struct mvm_result r = good_record();
	char why[128];

	results_init(&res);
	for (int i = 0; i < 200; i++) {
		r.iters = (uint64_t)i + 1;
		ck_assert_int_eq(results_add(&res, &r, why, sizeof(why)), 0);
		ck_assert_uint_eq(r.id, (uint32_t)i + 1);
	}
	ck_assert_uint_eq(res.n, 200);
	ck_assert_uint_eq(res.recs[199].iters, 200);
	ck_assert_uint_eq(res.recs[199].id, 200);
	r.baseline_id = 201;	/* not yet a record */
	ck_assert_int_eq(results_add(&res, &r, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "baseline is not an earlier accepted record");
	ck_assert_uint_eq(res.n, 200);
	r.baseline_id = 200;
	ck_assert_int_eq(results_add(&res, &r, why, sizeof(why)), 0);
	results_free(&res);
}
END_TEST


#define RAM	(1u << 20)

/* A guest that submits through the port's path: the id it gets back, as the guest reads it. */
static uint32_t guest_submit(struct vm *vm, uint64_t gpa, const struct mvm_result *r, char *why)
{
	uint32_t id = 0;

	ck_assert_int_eq(mem_write(&vm->mem, gpa, r, sizeof(*r)), 0);
	ck_assert_uint_eq(results_take(&vm->results, &vm->mem, gpa, why, 128),
			  mem_read(&vm->mem, gpa + offsetof(struct mvm_result, id), &id, 4) ? 0 : id);
	return id;
}

static void ids_vm(struct vm *vm)
{
	char err[128];

	memset(vm, 0, sizeof(*vm));
	ck_assert_int_eq(mem_init(&vm->mem, RAM, err, sizeof(err)), 0);
	results_init(&vm->results);
	bus_init(&vm->bus);
	vm->tsc_khz = 1000000;
}

static void ids_vm_free(struct vm *vm)
{
	bus_destroy(&vm->bus);
	results_free(&vm->results);
	mem_free(&vm->mem);
}

/*
 * A row, a rejected record, the baseline, then a row compared with it
 * through the id the VMM handed back (as guest/lib/bench.c does). When
 * the guest counted submitted records, the rejected one shifted every
 * later baseline by one: the label named the wrong row.
 */
static void submit_around_a_rejection(struct vm *vm)
{
	struct mvm_result r = good_record();
	char why[128];
	uint32_t base;

	strcpy(r.name, "first");
	ck_assert_uint_eq(guest_submit(vm, 0x1000, &r, why), 1);
	r.iters = 0;				/* rejected */
	ck_assert_uint_eq(guest_submit(vm, 0x2000, &r, why), 0);
	ck_assert_str_eq(why, "zero iterations");
	r = good_record();
	strcpy(r.name, "base");
	strcpy(r.variant, "kvm");
	strcpy(r.state, "halted");
	base = guest_submit(vm, RAM - sizeof(r), &r, why);	/* the last bytes of RAM */
	ck_assert_uint_eq(base, 2);
	r = rounds_record();
	strcpy(r.name, "row");
	r.vmm_kind = MVM_VMM_HCALL;
	r.vmm_code = MVM_VMM_HCALL_CODE(HVCALL_SEND_IPI, MVM_HV_ENC_FAST);
	r.baseline_id = 3;	/* the guest's count of submitted records: no such row yet */
	ck_assert_uint_eq(guest_submit(vm, 0x3000, &r, why), 0);
	ck_assert_str_eq(why, "baseline is not an earlier accepted record");
	r.baseline_id = base;
	ck_assert_uint_eq(guest_submit(vm, 0x3000, &r, why), 3);
	ck_assert_uint_eq(results_take(&vm->results, &vm->mem, RAM - sizeof(r) + 1, why, 128), 0);
	ck_assert_str_eq(why, "record does not lie inside guest RAM");
	ck_assert_uint_eq(vm->results.n, 3);
}

START_TEST(test_results_ids_report)
{
	struct vm vm;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ids_vm(&vm);
	submit_around_a_rejection(&vm);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	report_results(&vm, f);
	fclose(f);
	ck_assert_msg(strstr(text, "1.060x [1.020-1.090] base kvm halted (32 rounds)"), "%s", text);
	ck_assert_msg(strstr(text, " base                         kvm          halted "), "%s", text);
	free(text);
	ids_vm_free(&vm);
}
END_TEST

START_TEST(test_results_ids_json)
{
	struct vm vm;
	json_t *doc, *recs;
	char buf[1 << 16];
	ssize_t n;

	ids_vm(&vm);
	submit_around_a_rejection(&vm);
	vm.json_fd = memfd_create("report", 0);
	ck_assert_int_ge(vm.json_fd, 0);
	n = dup(vm.json_fd);
	ck_assert_int_eq(report_json(&vm, "memfd", 0), 0);	/* closes json_fd */
	ck_assert_int_ge(lseek((int)n, 0, SEEK_SET), 0);
	buf[read((int)n, buf, sizeof(buf) - 1)] = 0;
	close((int)n);
	doc = json_loads(buf, 0, NULL);
	ck_assert_ptr_nonnull(doc);
	recs = json_object_get(doc, "results");
	ck_assert_uint_eq(json_array_size(recs), 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(recs, i), "id")),
				 (json_int_t)i + 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(recs, 1), "case")), "base");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(recs, 1), "state")), "halted");
	ck_assert(json_is_null(json_object_get(json_array_get(recs, 0), "state")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(recs, 2), "baseline")), 2);
	/* Names, not codes: what scripts match against the "vmm" section. */
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(recs, 2), "vmm_stat")),
			 "hypercall");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(recs, 2), "call")),
			 "SendSyntheticClusterIpi");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(recs, 2), "encoding")),
			 "fast");
	ck_assert(json_is_null(json_object_get(json_array_get(recs, 0), "vmm_stat")));
	ck_assert_ptr_null(json_object_get(json_array_get(recs, 0), "call"));
	json_decref(doc);
	ids_vm_free(&vm);
}
END_TEST

/*
 * A value jansson refuses (a string that is not UTF-8: guest names are
 * checked on arrival, so here a record added past the check) must fail
 * the write, not leave a document with a hole that reads as complete.
 */
START_TEST(test_report_json_refused_value)
{
	struct mvm_result r = good_record();
	struct vm vm;
	char why[128];
	int fd;

	ids_vm(&vm);
	ck_assert_int_eq(results_add(&vm.results, &r, why, sizeof(why)), 0);
	strcpy(r.name, "caf\xe9");	/* Latin-1, not UTF-8 */
	ck_assert_int_eq(results_add(&vm.results, &r, why, sizeof(why)), 0);
	vm.json_fd = memfd_create("report", 0);
	fd = dup(vm.json_fd);
	ck_assert_int_eq(report_json(&vm, "memfd", 0), -1);
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 0);	/* nothing written */
	close(fd);
	ids_vm_free(&vm);
}
END_TEST

static Suite *results_suite(void)
{
	Suite *s = suite_create("results");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_results_validate);
	tcase_add_test(tc, test_results_validate_reasons);
	tcase_add_test(tc, test_results_validate_printable);
	tcase_add_test(tc, test_results_validate_rounds);
	tcase_add_test(tc, test_results_validate_round_values);
	tcase_add_test(tc, test_results_format);
	tcase_add_test(tc, test_results_add);
	tcase_add_test(tc, test_results_ids_report);
	tcase_add_test(tc, test_results_ids_json);
	tcase_add_test(tc, test_report_json_refused_value);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(results_suite);
