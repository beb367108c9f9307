// SPDX-License-Identifier: MIT
/* exit [STATUS]: leave at once through the exit port, for the VMM's tests. */
#include "lib/exit.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "suite.h"

static void suite_exit(const char *arg)
{
	u64 status = 0;

	if (arg && !parse_u64(arg, 255, &status)) {
		report_fail("status", "'%s' is not a number from 0 to 255", arg);
		guest_exit(EXIT_USAGE);
	}
	printf("exit: leaving with status %u\n", (u32)status);
	guest_exit((u32)status);
}

DEFINE_SUITE(90, suite_exit, "exit", false, "STATUS",
	     "exit at once with STATUS (default 0) through the exit port");
