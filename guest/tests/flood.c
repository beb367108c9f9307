// SPDX-License-Identifier: MIT
/*
 * flood [N]: the same mistake N times (default 10000), the way a guest stuck
 * in a loop would make it: a 1-byte `out` of a record GPA, a control request
 * outside RAM, and an access to N different unclaimed ports. The VMM must
 * print only the first few of each kind, count the rest, and say the count
 * once at exit (docs/robustness.md); the integration case checks stderr
 * (tests/integration/cases.d/flood.sh). Runs at CPL0.
 */
#include <minivmm/abi.h>

#include "lib/io.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "suite.h"

#define FLOOD_DEFAULT		10000
#define FLOOD_MAX		50000	/* ports FLOOD_PORT_BASE + i stay below 64K */
#define FLOOD_PORT_BASE		0x1000	/* above every port minivmm claims */
#define FLOOD_CTRL_GPA		0xfffffff8u	/* far past RAM */

static void suite_flood(const char *arg)
{
	u64 n = FLOOD_DEFAULT;

	if (arg && !parse_u64(arg, FLOOD_MAX, &n)) {
		report_fail("count", "'%s' is not a number up to %u", arg, FLOOD_MAX);
		return;
	}
	for (u64 i = 0; i < n; i++)
		outb(MVM_PORT_RESULTS, 0);	/* rejected: not a 32-bit out */
	for (u64 i = 0; i < n; i++)
		outl(MVM_PORT_CTRL, FLOOD_CTRL_GPA);
	for (u64 i = 0; i < n; i++)
		outb((u16)(FLOOD_PORT_BASE + i), (u8)i);
	printf("flood: %u bad records, %u control requests outside RAM, %u unclaimed ports\n",
	       (u32)n, (u32)n, (u32)n);
	report_why(inb(MVM_PORT_NULL) == 0, "VMM still answers after the flood",
		   "null port read was not 0");
}

DEFINE_SUITE(63, suite_flood, "flood", false, "N",
	     "the same guest mistake N times: the VMM prints a few, counts the rest");
