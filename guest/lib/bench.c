// SPDX-License-Identifier: MIT
/*
 * The timing harness (bench.h). One loop, bench_loop(), times every case
 * and the empty body alike, at CPL0 or under run_user() at CPL3, so the
 * subtracted overhead is exactly the loop's own cost at that CPL.
 */
#include <minivmm/abi.h>

#include "lib/bench.h"
#include "lib/boot.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/stats.h"
#include "lib/timing.h"
#include "lib/user.h"

#define BENCH_MAX_ROWS		64

static u64 samples[BENCH_MAX_ITERS];

struct bench_loop {
	const struct bench_case *c;
	u64 n;			/* iterations to run */
	u64 deadline;		/* warm-up: stop once the TSC passes it; 0 = never */
	u64 done;		/* iterations completed */
	const char *why;	/* set when body() reported a problem */
	bool plain_tsc;		/* no lfence around rdtsc (see tsc_begin) */
	u32 cpl;		/* CPL the loop actually ran at */
	u64 overhead;		/* subtracted from every sample */
	struct stats st;
};

/*
 * Serialised reads: the lfence before waits for earlier instructions, the
 * one after keeps the timed work from starting early. kvm_pvm emulates CPL0
 * one instruction at a time (already in order) and lfence there is not
 * known to emulate (docs/guest.md), so CPL0 on pvm uses a plain rdtsc.
 */
static inline u64 tsc_begin(bool plain)
{
	u32 lo, hi;

	if (plain)
		return rdtsc();
	asm volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return lo | ((u64)hi << 32);
}

static inline u64 tsc_end(bool plain)
{
	return plain ? rdtsc() : rdtsc_ordered();
}

static void bench_loop(struct bench_loop *l)
{
	const struct bench_case *c = l->c;

	l->cpl = current_cpl();
	for (u64 i = 0; i < l->n; i++) {
		u64 t0, t1;

		if (l->deadline && i && rdtsc() > l->deadline)
			break;
		if (c->prep)
			c->prep(c->arg);
		t0 = tsc_begin(l->plain_tsc);
		l->why = c->body(c->arg);
		t1 = tsc_end(l->plain_tsc);
		if (l->why)
			break;
		samples[i] = t1 - t0;
		l->done = i + 1;
	}
}

static u64 loop_user(void *arg)
{
	bench_loop(arg);
	return 0;
}

static void run_loop(struct bench_loop *l)
{
	const struct bench_case *c = l->c;
	bool irqs = c->flags & BENCH_IRQS_ON;
	u64 saved;

	l->done = 0;
	l->why = NULL;
	l->plain_tsc = boot_backend == MVM_BACKEND_PVM && c->cpl == 0;
	if (c->cpl == 3) {
		run_user(loop_user, l, irqs ? RUN_USER_IRQS_ON : RUN_USER_IRQS_OFF);
		return;
	}
	saved = read_rflags();
	if (irqs)
		irq_enable();
	bench_loop(l);
	if (!(saved & X86_EFLAGS_IF))
		irq_disable();
}

/* Sorting 2^18 samples is millions of instructions: do it at CPL3 (native on pvm). */
static u64 summarise_user(void *arg)
{
	struct bench_loop *l = arg;

	for (u64 i = 0; i < l->done; i++)
		samples[i] = samples[i] > l->overhead ? samples[i] - l->overhead : 0;
	stats_compute(samples, l->done, &l->st);
	return 0;
}

static u64 iterations(u64 warm_cycles, u64 warm_iters)
{
	static bool told;
	u64 per_iter, n;

	if (boot_info->iters) {
		if (boot_info->iters > BENCH_MAX_ITERS && !told) {
			printf("bench: --iters %u is more than the %u samples kept; using %u\n",
			       boot_info->iters, BENCH_MAX_ITERS, BENCH_MAX_ITERS);
			told = true;
		}
		return MIN((u64)boot_info->iters, (u64)BENCH_MAX_ITERS);
	}
	per_iter = MAX(warm_cycles / MAX(warm_iters, 1ull), 1ull);
	n = us_to_cycles(BENCH_BUDGET_US) / per_iter;
	return MIN(MAX(n, (u64)BENCH_MIN_ITERS), (u64)BENCH_MAX_ITERS);
}

/* Warm up (and size the run from the warm-up's pace), then measure. */
static const char *measure(struct bench_loop *l, const struct bench_case *c, u64 overhead)
{
	u64 t0;

	*l = (struct bench_loop){ .c = c, .overhead = overhead, .n = BENCH_WARMUP_ITERS };
	t0 = rdtsc();
	l->deadline = t0 + us_to_cycles(BENCH_WARMUP_US);
	run_loop(l);
	if (l->why)
		return l->why;
	l->n = iterations(rdtsc() - t0, l->done);
	l->deadline = 0;
	run_loop(l);
	if (l->why)
		return l->why;
	run_user(summarise_user, l, RUN_USER_IRQS_OFF);
	return NULL;
}

static const char *empty_body(void *arg)
{
	(void)arg;
	return NULL;
}

static u64 empty_cost(struct bench *b, u32 cpl)
{
	struct bench_case empty = { .name = "empty", .body = empty_body, .cpl = cpl };
	struct bench_loop l;

	if (!b->have_empty[cpl]) {
		measure(&l, &empty, 0);
		b->empty[cpl] = l.st.median;
		b->have_empty[cpl] = true;
	}
	return b->empty[cpl];
}

void bench_init(struct bench *b, const char *suite)
{
	*b = (struct bench){ .suite = suite };
}

/* Returns the record's number (what baseline_id refers to). */
static u32 submit(const struct bench *b, const struct bench_case *c, const struct bench_loop *l,
		  u32 baseline_id)
{
	struct mvm_result r;

	result_init(&r, b->suite, c->name, c->variant);
	result_set_stats(&r, &l->st);
	r.cpl = l->cpl;
	r.targets = c->targets;
	r.unit = MVM_UNIT_CYCLES;
	r.vmm_kind = c->vmm_kind;
	r.vmm_code = c->vmm_code;
	r.overhead = l->overhead;
	r.baseline_id = baseline_id;
	result_submit(&r);
	return result_submitted();
}

u32 bench_run_table(struct bench *b, const struct bench_case *cases, u32 n, const char *what)
{
	u32 ids[BENCH_MAX_ROWS] = { 0 };
	u32 measured = 0, skipped = 0, failed = 0;
	struct bench_loop l;

	if (n > BENCH_MAX_ROWS) {
		report_fail(what, "%u rows, the harness takes at most %u", n, BENCH_MAX_ROWS);
		return 1;
	}
	for (u32 i = 0; i < n; i++) {
		const struct bench_case *c = &cases[i];
		const char *why = c->setup ? c->setup(c->arg) : NULL;
		u32 base = c->baseline && c->baseline <= i ? ids[c->baseline - 1] : 0;

		if (c->cpl != 0 && c->cpl != 3) {
			report_fail(what, "%s %s: CPL %u (the harness runs 0 or 3)", c->name,
				    c->variant, c->cpl);
			failed++;
			continue;
		}
		if (why) {
			report_skip(what, "%s %s: %s", c->name, c->variant, why);
			skipped++;
			continue;
		}
		why = measure(&l, c, empty_cost(b, c->cpl));
		if (why) {
			report_fail(what, "%s %s: iteration %lu: %s", c->name, c->variant,
				    l.done + 1, why);
			failed++;
			continue;
		}
		ids[i] = submit(b, c, &l, base);
		measured++;
	}
	if (!failed)
		report_pass("%s: %u case%s measured (%u skipped)", what, measured,
			    measured == 1 ? "" : "s", skipped);
	return failed;
}

bool bench_wait_acks(const u32 *counter, u32 start, u32 want)
{
	u64 deadline;

	if (READ_ONCE(*counter) - start >= want)
		return true;
	deadline = tsc_deadline(BENCH_ACK_TIMEOUT_US);
	while (READ_ONCE(*counter) - start < want) {
		if (rdtsc() > deadline)
			return READ_ONCE(*counter) - start >= want;
		cpu_relax();
	}
	return true;
}
