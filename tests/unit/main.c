// SPDX-License-Identifier: MIT
/* One runner for every host unit suite (Check); suites register themselves (suites.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/suites.h"

int main(void)
{
	const struct unit_suite *u = __start_unit_suites;
	SRunner *sr;
	int failed;

	if (u == __stop_unit_suites) {
		fprintf(stderr, "unit: no suite registered\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(u->make());
	for (u++; u < __stop_unit_suites; u++)
		srunner_add_suite(sr, u->make());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
