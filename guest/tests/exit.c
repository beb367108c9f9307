// SPDX-License-Identifier: MIT
/* exit [STATUS]: leave at once through the exit port, for the VMM's tests. */
#include "lib/exit.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "suite.h"

/* Decimal 0..255 (a process exit status); -1 otherwise. */
static int parse_status(const char *s)
{
	int v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 255)
			return -1;
	}
	return v;
}

static void suite_exit(const char *arg)
{
	int status = arg ? parse_status(arg) : 0;

	if (status < 0) {
		report_fail("status", "'%s' is not a number from 0 to 255", arg);
		guest_exit(EXIT_USAGE);
	}
	printf("exit: leaving with status %d\n", status);
	guest_exit((u32)status);
}

DEFINE_SUITE(90, suite_exit, "exit", false, "STATUS",
	     "exit at once with STATUS (default 0) through the exit port");
