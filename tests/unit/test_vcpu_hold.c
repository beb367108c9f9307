// SPDX-License-Identifier: MIT
/*
 * What a flush costs a caller depends on two vcpu_req.c rules: a target outside
 * KVM_RUN (held, preempted) is neither kicked nor waited for, and a held
 * vCPU sleeps out its hold (ending early only for a stop). No KVM needed:
 * the vCPUs here are never started, so no signal is sent.
 */
#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hv/hv.h"
#include "tests/unit/suites.h"
#include "vmm/hvhost.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"

struct fixture {
	struct vm *vm;
	struct vcpu *v;
};

static struct fixture make(void)
{
	struct fixture f = { calloc(1, sizeof(struct vm)), calloc(1, sizeof(struct vcpu)) };

	ck_assert_ptr_nonnull(f.vm);
	ck_assert_ptr_nonnull(f.v);
	f.v->vm = f.vm;
	return f;
}

static void unmake(struct fixture *f)
{
	free(f->v);
	free(f->vm);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_flush_outside_run_no_kick)
{
	struct fixture f = make();
	unsigned int ticket;
	bool must_wait = true;

	vcpu_flush_tlb_begin(f.v, &ticket, &must_wait);
	ck_assert(!must_wait);
	ck_assert_uint_eq(ticket, 1);
	ck_assert_uint_eq(f.v->stats.kicks_sent, 0);
	ck_assert_uint_eq(atomic_load(&f.v->requests), 0);
	/* The flush is still owed: flush_seq is ahead of flush_done. */
	ck_assert_uint_eq(atomic_load(&f.v->flush_seq), 1);
	ck_assert_uint_eq(atomic_load(&f.v->flush_done), 0);
	unmake(&f);
}
END_TEST

START_TEST(test_flush_in_run_kicks_and_counts)
{
	struct fixture f = make();
	unsigned int ticket;
	bool must_wait = false;

	atomic_store(&f.v->in_run, true);
	vcpu_flush_tlb_begin(f.v, &ticket, &must_wait);
	ck_assert(must_wait);
	vcpu_flush_tlb_begin(f.v, &ticket, &must_wait);
	ck_assert_uint_eq(ticket, 2);
	ck_assert_uint_eq(f.v->stats.kicks_sent, 2);
	ck_assert_uint_eq(atomic_load(&f.v->requests), VCPU_REQ_FLUSH);
	/* A stopping VM never makes a caller wait. */
	atomic_store(&f.vm->stopping, true);
	vcpu_flush_tlb_begin(f.v, &ticket, &must_wait);
	ck_assert(!must_wait);
	ck_assert_uint_eq(f.v->stats.kicks_sent, 2);
	unmake(&f);
}
END_TEST

START_TEST(test_hold_lasts_as_asked)
{
	struct fixture f = make();
	double t0 = now_s();

	vcpu_hold_out(f.v, 30000);
	ck_assert_msg(now_s() - t0 >= 0.030, "a 30 ms hold ended after %.4f s", now_s() - t0);
	unmake(&f);
}
END_TEST

/* Requests other than a stop (a new pause, a flush) do not end a hold. */
START_TEST(test_hold_not_ended_by_other_requests)
{
	struct fixture f = make();
	double t0 = now_s();

	atomic_store(&f.v->requests, VCPU_REQ_PAUSE | VCPU_REQ_FLUSH);
	vcpu_hold_out(f.v, 30000);
	ck_assert(now_s() - t0 >= 0.030);
	unmake(&f);
}
END_TEST

static void *holder(void *arg)
{
	vcpu_hold_out(arg, 10 * 1000 * 1000);
	return NULL;
}

START_TEST(test_hold_ended_by_stop)
{
	struct fixture f = make();
	struct timespec deadline;
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, holder, f.v), 0);
	/* Let it fall asleep first, then stop as vm_request_stop() does. */
	nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	atomic_store(&f.vm->stopping, true);
	vcpu_request(f.v, VCPU_REQ_STOP);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	/* Not a timing claim: without the wake the 10 s hold would run to its end. */
	ck_assert_msg(pthread_timedjoin_np(t, NULL, &deadline) == 0,
		      "a 10 s hold did not end within 5 s of a stop request");
	unmake(&f);
}
END_TEST

/* The flush host op: only the targets are asked, none outside KVM_RUN is kicked. */
START_TEST(test_fanout_asks_targets_only)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	struct hv_vpmask set;

	ck_assert_ptr_nonnull(vm);
	vm->cfg.nr_vcpus = 200;
	vm->vcpus = calloc(vm->cfg.nr_vcpus, sizeof(*vm->vcpus));
	ck_assert_ptr_nonnull(vm->vcpus);
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++)
		vm->vcpus[i].vm = vm;
	memset(&set, 0, sizeof(set));
	hv_vpmask_set(&set, 1);
	hv_vpmask_set(&set, 63);
	hv_vpmask_set(&set, 64);
	hv_vpmask_set(&set, 199);
	hv_vpmask_set(&set, 250);	/* past the VM: never touched */
	ck_assert_int_eq(hvhost_flush_vcpus(vm, 0, &set), 0);
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		ck_assert_uint_eq(atomic_load(&vm->vcpus[i].flush_seq), hv_vpmask_test(&set, i));
		ck_assert_uint_eq(vm->vcpus[i].stats.kicks_sent, 0);
	}
	free(vm->vcpus[0].flush_waits);
	free(vm->vcpus);
	free(vm);
}
END_TEST

/*
 * The kick target is published by the vCPU thread itself, before anything
 * it does on KVM: here its first ioctl fails (no vCPU fd), it stops the VM,
 * and by then `self` is its own ID and kickable is set, with no write from
 * this (the main) thread after pthread_create(). Signals are blocked here,
 * as vm_run() blocks them, so the stop's wake and kicks stay pending.
 */
START_TEST(test_thread_publishes_itself)
{
	struct fixture f = make();
	int quiet = open("/dev/null", O_WRONLY), saved = dup(STDERR_FILENO);
	sigset_t sigs;
	char err[160];

	sigemptyset(&sigs);
	sigaddset(&sigs, VCPU_KICK_SIGNAL);
	sigaddset(&sigs, VM_WAKE_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	pthread_mutex_init(&f.vm->out_lock, NULL);
	f.vm->cfg.nr_vcpus = 1;
	f.vm->vcpus = f.v;
	f.vm->main_thread = pthread_self();
	f.v->fd = -1;
	ck_assert(!atomic_load(&f.v->kickable));
	dup2(quiet, STDERR_FILENO);	/* its crash report: KVM_SET_SIGNAL_MASK, EBADF */
	ck_assert_int_eq(vcpu_start(f.v, err, sizeof(err)), 0);
	ck_assert(f.v->joinable);
	ck_assert_int_eq(pthread_join(f.v->join_id, NULL), 0);
	dup2(saved, STDERR_FILENO);
	ck_assert(atomic_load(&f.vm->stopping));
	ck_assert_int_eq(atomic_load(&f.vm->exit_status), 3);
	ck_assert(atomic_load(&f.v->kickable));
	ck_assert(pthread_equal(f.v->self, f.v->join_id));
	close(quiet);
	close(saved);
	unmake(&f);
}
END_TEST

/* A thread that ends lets everyone go: no flush or pause is waited for, no kick sent. */
START_TEST(test_release_frees_waiters)
{
	struct fixture f = make();
	unsigned int ticket;
	bool must_wait;
	sigset_t kick;
	int sig = 0;

	sigemptyset(&kick);
	sigaddset(&kick, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &kick, NULL);
	atomic_store(&f.v->kickable, true);
	atomic_store(&f.v->in_run, true);
	f.v->self = pthread_self();
	vcpu_flush_tlb_begin(f.v, &ticket, &must_wait);
	ck_assert(must_wait);
	ck_assert_int_eq(sigwait(&kick, &sig), 0);	/* the kick reached `self` */
	ck_assert_int_eq(sig, VCPU_KICK_SIGNAL);
	atomic_store(&f.v->in_run, false);
	vcpu_req_release(f.v);
	ck_assert(!atomic_load(&f.v->kickable));
	ck_assert_uint_eq(atomic_load(&f.v->flush_done), ticket);
	ck_assert_uint_eq(atomic_load(&f.v->pause_ack), 1);
	vcpu_flush_tlb_wait(f.v, ticket);	/* returns at once */
	unmake(&f);
}
END_TEST

static Suite *vcpu_hold_suite(void)
{
	Suite *s = suite_create("vcpu_hold");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_flush_outside_run_no_kick);
	tcase_add_test(tc, test_flush_in_run_kicks_and_counts);
	tcase_add_test(tc, test_hold_lasts_as_asked);
	tcase_add_test(tc, test_hold_not_ended_by_other_requests);
	tcase_add_test(tc, test_hold_ended_by_stop);
	tcase_add_test(tc, test_fanout_asks_targets_only);
	tcase_add_test(tc, test_thread_publishes_itself);
	tcase_add_test(tc, test_release_frees_waiters);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(vcpu_hold_suite);
