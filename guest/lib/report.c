// SPDX-License-Identifier: MIT
#include "lib/atomic.h"
#include "lib/exit.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/timing.h"

static const char *suite;
static u32 passed, failed, skipped;
static u32 finishing;

void report_set_suite(const char *name)
{
	WRITE_ONCE(suite, name);
}

/* "PASS: suite: " then the caller's name. */
static void line_start(const char *verdict)
{
	const char *s = READ_ONCE(suite);

	if (s)
		printf("%s: %s: ", verdict, s);
	else
		printf("%s: ", verdict);
}

static void line_why(const char *why_fmt, va_list ap)
{
	printf(" (");
	vprintf(why_fmt, ap);
	printf(")\n");
}

static bool vreport(bool pass, const char *fmt, va_list ap)
{
	atomic_inc(pass ? &passed : &failed);
	line_start(pass ? "PASS" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	return pass;
}

bool report(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(pass, fmt, ap);
	va_end(ap);
	return pass;
}

void report_pass(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(true, fmt, ap);
	va_end(ap);
}

static void report_with_why(const char *verdict, u32 *counter, const char *name,
			    const char *why_fmt, va_list ap)
{
	atomic_inc(counter);
	line_start(verdict);
	printf("%s", name);
	line_why(why_fmt, ap);
}

bool report_why(bool pass, const char *name, const char *why_fmt, ...)
{
	va_list ap;

	if (pass) {
		report_pass("%s", name);
		return true;
	}
	va_start(ap, why_fmt);
	report_with_why("FAIL", &failed, name, why_fmt, ap);
	va_end(ap);
	return false;
}

void report_fail(const char *name, const char *why_fmt, ...)
{
	va_list ap;

	va_start(ap, why_fmt);
	report_with_why("FAIL", &failed, name, why_fmt, ap);
	va_end(ap);
}

void report_skip(const char *name, const char *why_fmt, ...)
{
	va_list ap;

	va_start(ap, why_fmt);
	report_with_why("SKIP", &skipped, name, why_fmt, ap);
	va_end(ap);
}

u32 report_failed_count(void)
{
	return READ_ONCE(failed);
}

__noreturn void report_finish(void)
{
	u32 f;

	/*
	 * One summary only. A second caller (another vCPU failing at the same
	 * time, or a fault while printing it) gives the first a second to
	 * finish, then exits on its own.
	 */
	if (atomic_xchg(&finishing, 1)) {
		udelay(1000000);
		guest_exit(EXIT_FAIL);
	}
	f = READ_ONCE(failed);
	printf("%u passed, %u failed", READ_ONCE(passed), f);
	if (READ_ONCE(skipped))
		printf(", %u skipped", READ_ONCE(skipped));
	printf("\n");
	guest_exit(f ? EXIT_FAIL : EXIT_PASS);
}

__noreturn void report_abort(void)
{
	atomic_inc(&failed);
	report_finish();
}
