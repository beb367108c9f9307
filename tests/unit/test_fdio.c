// SPDX-License-Identifier: MIT
/*
 * fdio_write_all() against a signal: a write blocked on a full pipe is cut
 * by a handler without SA_RESTART (EINTR, nothing written). The old
 * console write loop gave up there and dropped the line; every byte must
 * arrive. The signals are sent until the write is seen to have ended, so
 * the test does not depend on when they land.
 */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/fdio.h"

struct drain {
	int rfd;
	pthread_t writer;
	atomic_bool done;
	atomic_uint interrupts;
	size_t got;
	size_t bad;
};

static atomic_uint handled;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

static void nap(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Interrupt the writer a few times while it is blocked, then read everything. */
static void *drain_main(void *arg)
{
	struct drain *d = arg;
	char buf[4096];
	ssize_t n;

	for (int i = 0; i < 20 && !atomic_load(&d->done); i++) {
		pthread_kill(d->writer, SIGUSR1);
		nap();
	}
	while ((n = read(d->rfd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			d->bad += buf[i] != (char)((d->got + (size_t)i) % 251);
		d->got += (size_t)n;
	}
	return NULL;
}

START_TEST(test_write_all_survives_eintr)
{
	static char data[256 * 1024];
	struct sigaction sa;
	struct drain d = { 0 };
	pthread_t t;
	int p[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: a blocked write returns EINTR */
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i % 251);
	ck_assert_int_eq(pipe(p), 0);
	d.rfd = p[0];
	d.writer = pthread_self();
	ck_assert_int_eq(pthread_create(&t, NULL, drain_main, &d), 0);
	/* 256 KiB into a 64 KiB pipe: it blocks until the reader starts reading. */
	ck_assert_int_eq(fdio_write_all(p[1], data, sizeof(data)), 0);
	atomic_store(&d.done, true);
	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
	ck_assert_uint_eq(d.got, sizeof(data));
	ck_assert_uint_eq(d.bad, 0);
	ck_assert_uint_ge(atomic_load(&handled), 1);	/* the signals did arrive */
}
END_TEST

START_TEST(test_write_all_error)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(fdio_write_all(p[1], "x", 1), -1);	/* EPIPE: reported, not spun on */
	close(p[1]);
	ck_assert_int_eq(fdio_write_all(-1, "x", 1), -1);
	ck_assert_int_eq(fdio_write_all(-1, "", 0), 0);		/* nothing to write: done */
}
END_TEST

static Suite *fdio_suite(void)
{
	Suite *s = suite_create("fdio");
	TCase *tc = tcase_create("write_all");

	tcase_add_test(tc, test_write_all_survives_eintr);
	tcase_add_test(tc, test_write_all_error);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(fdio_suite);
