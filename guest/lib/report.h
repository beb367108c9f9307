/* SPDX-License-Identifier: MIT */
/*
 * Test reporting, one line per check, prefixed with the running suite:
 *
 *	PASS: smoke: ipi to cpu 1
 *	FAIL: smoke: ipi to cpu 2 (0 interrupts after 1000000 us, expected 1)
 *	SKIP: vmcall: native instruction (backend pvm livelocks)
 *
 * then, printed once at the end by vCPU 0:
 *
 *	7 passed, 1 failed, 1 skipped
 *
 * (", N skipped" only when something was skipped). Any vCPU and any CPL may
 * report; the counters are atomic.
 */
#ifndef GUEST_LIB_REPORT_H
#define GUEST_LIB_REPORT_H

#include "lib/types.h"

/* The suite name that prefixes report lines; NULL for none. */
void report_set_suite(const char *name);

/* PASS/FAIL with a formatted name. Returns `pass`. */
bool report(bool pass, const char *fmt, ...) __printf(2, 3);

/* PASS: name, or FAIL: name (why) with a formatted why. Returns `pass`. */
bool report_why(bool pass, const char *name, const char *why_fmt, ...) __printf(3, 4);

void report_pass(const char *fmt, ...) __printf(1, 2);
void report_fail(const char *name, const char *why_fmt, ...) __printf(2, 3);
void report_skip(const char *name, const char *why_fmt, ...) __printf(2, 3);

u32 report_failed_count(void);

/* Print "N passed, N failed[, N skipped]" (once) and exit 0 or 1. */
__noreturn void report_finish(void);

/* Count one more failure, then report_finish(): for fatal errors. */
__noreturn void report_abort(void);

#endif /* GUEST_LIB_REPORT_H */
