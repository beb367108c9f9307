// SPDX-License-Identifier: MIT
/* The guest-message limiter: exact counts, also from concurrent callers. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/ratelimit.h"

#define THREADS		8
#define CALLS_PER_THREAD 100000

START_TEST(test_first_burst_then_counted)
{
	struct ratelimit rl;

	ratelimit_init(&rl);
	for (unsigned int i = 0; i + 1 < RATELIMIT_BURST; i++)
		ck_assert_int_eq(ratelimit_check(&rl, GMSG_RECORD_REJECTED), RATELIMIT_SAY);
	ck_assert_int_eq(ratelimit_check(&rl, GMSG_RECORD_REJECTED), RATELIMIT_SAY_LAST);
	ck_assert_uint_eq(ratelimit_suppressed(&rl, GMSG_RECORD_REJECTED), 0);
	for (unsigned int i = 0; i < 9995; i++)
		ck_assert_int_eq(ratelimit_check(&rl, GMSG_RECORD_REJECTED), RATELIMIT_QUIET);
	ck_assert_uint_eq(ratelimit_seen(&rl, GMSG_RECORD_REJECTED), 9995 + RATELIMIT_BURST);
	ck_assert_uint_eq(ratelimit_suppressed(&rl, GMSG_RECORD_REJECTED), 9995);
	/* Kinds have budgets of their own. */
	ck_assert_uint_eq(ratelimit_seen(&rl, GMSG_UNCLAIMED), 0);
	ck_assert_int_eq(ratelimit_check(&rl, GMSG_UNCLAIMED), RATELIMIT_SAY);
}
END_TEST

struct caller {
	struct ratelimit *rl;
	unsigned int said, last;
};

static void *call_many(void *arg)
{
	struct caller *c = arg;

	for (unsigned int i = 0; i < CALLS_PER_THREAD; i++) {
		enum ratelimit_verdict v = ratelimit_check(c->rl, GMSG_UNCLAIMED);

		c->said += v != RATELIMIT_QUIET;
		c->last += v == RATELIMIT_SAY_LAST;
	}
	return NULL;
}

START_TEST(test_concurrent_callers_exact)
{
	struct ratelimit rl;
	struct caller c[THREADS];
	pthread_t t[THREADS];
	unsigned int said = 0, last = 0;

	ratelimit_init(&rl);
	for (unsigned int i = 0; i < THREADS; i++) {
		c[i] = (struct caller){ .rl = &rl };
		ck_assert_int_eq(pthread_create(&t[i], NULL, call_many, &c[i]), 0);
	}
	for (unsigned int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		said += c[i].said;
		last += c[i].last;
	}
	ck_assert_uint_eq(said, RATELIMIT_BURST);
	ck_assert_uint_eq(last, 1);
	ck_assert_uint_eq(ratelimit_seen(&rl, GMSG_UNCLAIMED), THREADS * CALLS_PER_THREAD);
	ck_assert_uint_eq(ratelimit_suppressed(&rl, GMSG_UNCLAIMED),
			  THREADS * CALLS_PER_THREAD - RATELIMIT_BURST);
}
END_TEST

START_TEST(test_summary_names_suppressed_kinds_only)
{
	struct ratelimit rl;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ratelimit_init(&rl);
	for (unsigned int i = 0; i < RATELIMIT_BURST + 1234; i++)
		ratelimit_check(&rl, GMSG_RECORD_REJECTED);
	for (unsigned int i = 0; i < RATELIMIT_BURST; i++)
		ratelimit_check(&rl, GMSG_UNCLAIMED);	/* all printed: no summary */
	for (unsigned int i = 0; i < RATELIMIT_BURST + 1; i++)
		ratelimit_check(&rl, GMSG_CTRL_OUTSIDE_RAM);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ratelimit_summary(&rl, f);
	fclose(f);
	ck_assert_str_eq(text,
		"minivmm: warning: 1234 more 'result record rejected' messages suppressed\n"
		"minivmm: warning: 1 more 'control request outside RAM' message suppressed\n");
	free(text);
}
END_TEST

/* ratelimit_say() writes to stderr: point fd 2 at a file for the test. */
START_TEST(test_say_prints_burst_and_one_note)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char path[] = "/tmp/minivmm-ratelimit-XXXXXX";
	struct ratelimit rl;
	char buf[4096];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	unsigned int lines = 0;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ratelimit_init(&rl);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	for (unsigned int i = 0; i < 100; i++)
		ratelimit_say(&rl, &lock, GMSG_EXIT_STATUS, "vCPU 0: status %u", 256 + i);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	for (char *p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_uint_eq(lines, RATELIMIT_BURST + 1);
	ck_assert_ptr_nonnull(strstr(buf, "minivmm: warning: vCPU 0: status 256\n"));
	ck_assert_ptr_null(strstr(buf, "status 261"));
	ck_assert_ptr_nonnull(strstr(buf, "further 'guest exit status too big' messages are counted"));
	ck_assert_uint_eq(ratelimit_suppressed(&rl, GMSG_EXIT_STATUS), 100 - RATELIMIT_BURST);
}
END_TEST

static Suite *ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("guest messages");

	tcase_add_test(tc, test_first_burst_then_counted);
	tcase_add_test(tc, test_concurrent_callers_exact);
	tcase_add_test(tc, test_summary_names_suppressed_kinds_only);
	tcase_add_test(tc, test_say_prints_burst_and_one_note);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(ratelimit_suite);
