// SPDX-License-Identifier: MIT
/*
 * The timing harness (bench.h). One loop, bench_loop(), times every block
 * of every arm -- the row, the empty body, the baseline -- at CPL0 or under
 * run_user() at CPL3, so the loop cost reported next to a row is exactly
 * the loop's own cost at that CPL, measured between the row's blocks.
 */
#include <minivmm/abi.h>

#include "lib/bench.h"
#include "lib/boot.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/string.h"
#include "lib/stats.h"
#include "lib/timing.h"
#include "lib/user.h"

#define BENCH_MAX_ROWS		64

BUILD_BUG_ON(BENCH_ROUNDS > MVM_RESULT_ROUNDS_MAX);

/* The three interleaved arms of a row: the row, the empty loop, the baseline. */
enum bench_arm { ARM_ROW, ARM_LOOP, ARM_BASE, NR_ARMS };

static u64 samples[NR_ARMS][BENCH_MAX_ITERS];

/* One block of one arm: n iterations of c's body into out[]. */
struct bench_loop {
	const struct bench_case *c;
	u64 *out;
	u64 n;			/* iterations to run */
	u64 deadline;		/* warm-up: stop once the TSC passes it; 0 = never */
	u64 done;		/* iterations completed */
	const char *why;	/* set when body() reported a problem */
	bool plain_tsc;		/* no lfence around rdtsc (see tsc_begin) */
	u32 cpl;		/* CPL the loop actually ran at */
};

/* A row being measured: its arms, the block layout, and what came of it. */
struct bench_rounds {
	const struct bench_case *arm[NR_ARMS];	/* NULL: arm not run */
	u64 pace[NR_ARMS];			/* warm-up cycles per iteration */
	u64 n;					/* iterations per arm */
	u32 rounds;
	u64 start[BENCH_ROUNDS + 1];		/* block k is [start[k], start[k + 1]) */
	u64 block_med[NR_ARMS][BENCH_ROUNDS];
	u64 scratch[BENCH_ROUNDS];
	u32 cpl;
	struct stats st;			/* of the row's samples */
	u64 overhead, body;
	u32 flags, ratio, ratio_lo, ratio_hi;
	u32 budget_us;				/* from struct bench */
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

/* The one timed loop: every arm of every row, at either CPL. */
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
		l->out[i] = t1 - t0;
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

/* One block of arm a into samples[a][first...]; NULL, or why it stopped. */
static const char *run_block(struct bench_rounds *m, enum bench_arm a, u64 first, u64 n)
{
	struct bench_loop l = { .c = m->arm[a], .out = &samples[a][first], .n = n };

	run_loop(&l);
	m->cpl = l.cpl;
	return l.why;
}

/* Warm up each arm (fills caches, wakes the other vCPUs) and learn its pace. */
static const char *warm_up(struct bench_rounds *m)
{
	for (u32 a = 0; a < NR_ARMS; a++) {
		struct bench_loop l = {
			.c = m->arm[a], .out = samples[a], .n = BENCH_WARMUP_ITERS,
		};
		u64 t0;

		if (!m->arm[a])
			continue;
		t0 = rdtsc();
		l.deadline = t0 + us_to_cycles(BENCH_WARMUP_US);
		run_loop(&l);
		if (l.why)
			return l.why;
		m->pace[a] = MAX((rdtsc() - t0) / MAX(l.done, 1ull), 1ull);
	}
	return NULL;
}

/* Iterations per arm: --iters, else what fits the row's budget at the warm-up's pace. */
static u64 iterations(const struct bench_rounds *m)
{
	static bool told;
	u64 per_round = 0, n;

	if (boot_info->iters) {
		if (boot_info->iters > BENCH_MAX_ITERS && !told) {
			printf("bench: --iters %u is more than the %u samples kept; using %u\n",
			       boot_info->iters, BENCH_MAX_ITERS, BENCH_MAX_ITERS);
			told = true;
		}
		return MIN((u64)boot_info->iters, (u64)BENCH_MAX_ITERS);
	}
	for (u32 a = 0; a < NR_ARMS; a++)
		per_round += m->arm[a] ? m->pace[a] : 0;
	n = us_to_cycles(m->budget_us) / MAX(per_round, 1ull);
	return MIN(MAX(n, (u64)BENCH_MIN_ITERS), (u64)BENCH_MAX_ITERS);
}

/*
 * Blocks in rounds, each round one block per arm, in alternating order
 * (row loop base, base loop row, ...) so no arm always follows another:
 * slow drifts of the host hit neighbouring blocks alike.
 */
static const char *run_rounds(struct bench_rounds *m)
{
	m->n = iterations(m);
	m->rounds = (u32)MIN(m->n, (u64)BENCH_ROUNDS);
	for (u32 k = 0; k <= m->rounds; k++)
		m->start[k] = m->n * k / m->rounds;
	for (u32 k = 0; k < m->rounds; k++)
		for (u32 i = 0; i < NR_ARMS; i++) {
			enum bench_arm a = k & 1 ? NR_ARMS - 1 - i : i;
			const char *why;

			if (!m->arm[a])
				continue;
			why = run_block(m, a, m->start[k], m->start[k + 1] - m->start[k]);
			if (why)
				return why;
		}
	return NULL;
}

/* Signed values sort as u64 once shifted by 2^63. */
#define SIGN_BIAS	(1ull << 63)

/* Per round: block median of arm a minus the loop's, biased; sorted into out[]. */
static void sorted_excess(struct bench_rounds *m, enum bench_arm a, u64 *out)
{
	for (u32 k = 0; k < m->rounds; k++)
		out[k] = m->block_med[a][k] - m->block_med[ARM_LOOP][k] + SIGN_BIAS;
	sort_u64(out, m->rounds);
}

/* Not above the loop in a quarter of the rounds or more: cannot be told from noise. */
static bool in_noise(const u64 *sorted_excess, u32 rounds)
{
	return percentile_sorted(sorted_excess, rounds, 25) <= SIGN_BIAS;
}

static u64 round_ratio(u64 row_med, u64 base_med, u64 loop_med)
{
	u64 r;

	if (row_med <= loop_med)
		return 0;
	if (base_med <= loop_med)
		return MVM_RATIO_INF;
	r = (row_med - loop_med) * MVM_RATIO_ONE / (base_med - loop_med);
	return MIN(r, (u64)MVM_RATIO_INF - 1);
}

static void summarise_ratio(struct bench_rounds *m)
{
	u64 *q = m->scratch;

	sorted_excess(m, ARM_BASE, q);
	if (in_noise(q, m->rounds))
		return;
	for (u32 k = 0; k < m->rounds; k++)
		q[k] = round_ratio(m->block_med[ARM_ROW][k], m->block_med[ARM_BASE][k],
				   m->block_med[ARM_LOOP][k]);
	sort_u64(q, m->rounds);
	m->ratio = (u32)percentile_sorted(q, m->rounds, 50);
	m->ratio_lo = (u32)percentile_sorted(q, m->rounds, 25);
	m->ratio_hi = (u32)percentile_sorted(q, m->rounds, 75);
	m->flags |= MVM_RESULT_RATIO;
}

/* Sorting is millions of instructions: all of it at CPL3 (native on pvm). */
static u64 summarise_user(void *arg)
{
	struct bench_rounds *m = arg;
	struct stats loop;

	for (u32 a = 0; a < NR_ARMS; a++)
		for (u32 k = 0; m->arm[a] && k < m->rounds; k++) {
			u64 *blk = &samples[a][m->start[k]];
			u64 len = m->start[k + 1] - m->start[k];

			sort_u64(blk, len);
			m->block_med[a][k] = percentile_sorted(blk, len, 50);
		}
	sorted_excess(m, ARM_ROW, m->scratch);
	if (in_noise(m->scratch, m->rounds)) {
		m->flags = MVM_RESULT_IN_NOISE;
	} else {
		m->flags = MVM_RESULT_BODY;
		m->body = percentile_sorted(m->scratch, m->rounds, 50) - SIGN_BIAS;
		if (m->arm[ARM_BASE])
			summarise_ratio(m);
	}
	stats_compute(samples[ARM_ROW], m->n, &m->st);
	stats_compute(samples[ARM_LOOP], m->n, &loop);
	m->overhead = loop.median;
	return 0;
}

static const char *empty_body(void *arg)
{
	(void)arg;
	return NULL;
}

/* Warm up, run the rounds, summarise. NULL, or why a body failed. */
static const char *measure(const struct bench *b, struct bench_rounds *m,
			   const struct bench_case *c, const struct bench_case *base,
			   const struct bench_case *loop)
{
	const char *why;

	*m = (struct bench_rounds){ .arm = { c, loop, base }, .budget_us = b->budget_us };
	why = warm_up(m);
	if (!why)
		why = run_rounds(m);
	if (why)
		return why;
	run_user(summarise_user, m, RUN_USER_IRQS_OFF);
	return NULL;
}

void bench_init(struct bench *b, const char *suite)
{
	*b = (struct bench){ .suite = suite, .budget_us = BENCH_BUDGET_US };
}

/* Returns the record's number (what baseline_id refers to). */
static u32 submit(const struct bench *b, const struct bench_case *c, const struct bench_rounds *m,
		  u32 baseline_id)
{
	struct mvm_result r;

	result_init(&r, b->suite, c->name, c->variant);
	strlcpy(r.state, c->state ? c->state : "", sizeof(r.state));
	result_set_stats(&r, &m->st);
	r.cpl = m->cpl;
	r.targets = c->targets;
	r.unit = MVM_UNIT_CYCLES;
	r.vmm_kind = c->vmm_kind;
	r.vmm_code = c->vmm_code;
	r.overhead = m->overhead;
	r.baseline_id = baseline_id;
	r.body = m->body;
	r.flags = m->flags;
	r.rounds = m->rounds;
	r.ratio = m->ratio;
	r.ratio_lo = m->ratio_lo;
	r.ratio_hi = m->ratio_hi;
	for (u32 k = 0; k < m->rounds; k++) {
		r.round_median[k] = m->block_med[ARM_ROW][k];
		r.round_loop[k] = m->block_med[ARM_LOOP][k];
	}
	return result_submit(&r);
}

/* Why row i cannot be measured (SKIP or FAIL decided by the caller), or NULL. */
static const char *row_problem(const struct bench_case *cases, u32 i, bool *fail)
{
	const struct bench_case *c = &cases[i];
	const struct bench_case *base = c->baseline ? &cases[c->baseline - 1] : NULL;

	*fail = true;
	if (c->cpl != 0 && c->cpl != 3)
		return "CPL is neither 0 nor 3";
	if (c->baseline > i)
		return "baseline is not an earlier row";
	if (base && base->cpl != c->cpl)
		return "baseline runs at another CPL";
	*fail = false;
	return c->setup ? c->setup(c->arg) : NULL;
}

static void print_row_fail(const char *what, const struct bench_case *c, const char *why)
{
	report_fail(what, "%s %s: %s", c->name, c->variant, why);
}

u32 bench_run_table(struct bench *b, const struct bench_case *cases, u32 n, const char *what)
{
	u32 ids[BENCH_MAX_ROWS] = { 0 };
	u32 measured = 0, skipped = 0, failed = 0;
	static struct bench_rounds m;	/* 4 KiB: not on the stack */

	if (n > BENCH_MAX_ROWS) {
		report_fail(what, "%u rows, the harness takes at most %u", n, BENCH_MAX_ROWS);
		return 1;
	}
	for (u32 i = 0; i < n; i++) {
		const struct bench_case *c = &cases[i];
		u32 base_id = c->baseline && c->baseline <= i ? ids[c->baseline - 1] : 0;
		const struct bench_case *base = base_id ? &cases[c->baseline - 1] : NULL;
		struct bench_case loop = { .name = "empty loop", .body = empty_body,
					   .cpl = c->cpl, .flags = c->flags };
		const char *why;
		bool fail;

		why = row_problem(cases, i, &fail);
		if (why && fail) {
			print_row_fail(what, c, why);
			failed++;
			continue;
		}
		if (why) {
			report_skip(what, "%s %s: %s", c->name, c->variant, why);
			skipped++;
			continue;
		}
		why = measure(b, &m, c, base, &loop);
		if (why) {
			print_row_fail(what, c, why);
			failed++;
			continue;
		}
		ids[i] = submit(b, c, &m, base_id);
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
