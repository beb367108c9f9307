/* SPDX-License-Identifier: MIT */
/*
 * Host unit suites register themselves, as guest suites do (guest/suite.h):
 * each tests/unit/test_<module>.c ends with UNIT_SUITE(its_suite_fn), which
 * puts the function in the unit_suites section; main.c runs every entry the
 * linker collected there. Adding a test file edits nothing else.
 */
#ifndef TESTS_UNIT_SUITES_H
#define TESTS_UNIT_SUITES_H

#include <check.h>

struct unit_suite {
	Suite *(*make)(void);
};

#define UNIT_SUITE(fn)								\
	static const struct unit_suite unit_suite_##fn				\
	__attribute__((used, aligned(sizeof(void *)), section("unit_suites"))) = { fn }

/* Defined by the linker around the section (its name is a C identifier). */
extern const struct unit_suite __start_unit_suites[], __stop_unit_suites[];

#endif
