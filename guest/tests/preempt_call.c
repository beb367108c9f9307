// SPDX-License-Identifier: MIT
/*
 * preempt-call: what it costs to ask vcpu_is_preempted(), reached three
 * ways (pvtime.h): inline load, plain C call, callee-saved-registers thunk
 * (the convention of Linux's pv_ops.lock.vcpu_is_preempted).
 *
 *  - tight loop: 100 calls per sample, with nothing else live, and again
 *    with ten values live across every call (the thunk's reason to exist:
 *    a plain call forces them into six callee-saved registers and the
 *    stack);
 *  - contended lock slow path: every vCPU on one ticket lock, the hook
 *    asked once per wait round; cycles per round against hook-less
 *    spinning.
 * All timed loops run at CPL3 (native on kvm_pvm) and say so in the
 * record. Records compare each variant with the previous one (ratio).
 */
#include <minivmm/abi.h>

#include "lib/bench.h"
#include "lib/boot.h"
#include "lib/printf.h"
#include "lib/pvlock_contend.h"
#include "lib/pvtime.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "suite.h"

#define SUITE		"preempt-call"
#define CALLS		100		/* calls per sample: cycles / 100 = per call */
#define WINDOW_MS	100		/* default per slow-path variant */
#define WINDOW_MS_MAX	60000

static u32 probe_cpu;			/* whose record the calls read */
static u64 sink;

#define DEFINE_TIGHT_BODY(fn, ask)					\
static const char *fn(void *arg)					\
{									\
	u32 cpu = READ_ONCE(probe_cpu), hits = 0;			\
									\
	(void)arg;							\
	for (u32 i = 0; i < CALLS; i++)					\
		hits += ask(cpu);					\
	WRITE_ONCE(sink, hits);						\
	return NULL;							\
}

/* Ten running values the caller keeps across each call. */
#define DEFINE_LIVE_BODY(fn, ask)					\
static const char *fn(void *arg)					\
{									\
	u32 cpu = READ_ONCE(probe_cpu);					\
	u64 a = READ_ONCE(sink) | 1, b = a * 3, c = a + 5, d = a ^ 7;	\
	u64 e = a << 2, f = a + 11, g = a * 13, h = a ^ 17;		\
	u64 k = a + 19, m = a * 23;					\
									\
	(void)arg;							\
	for (u64 i = 0; i < CALLS; i++) {				\
		u64 p = ask(cpu);					\
									\
		a += p ^ b;						\
		b ^= c + i;						\
		c += d >> 1;						\
		d ^= e + p;						\
		e += f;							\
		f ^= g >> 3;						\
		g += h;							\
		h ^= k + i;						\
		k += m;							\
		m ^= a;							\
	}								\
	WRITE_ONCE(sink, a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ k ^ m);	\
	return NULL;							\
}

static inline bool ask_nothing(u32 cpu)
{
	(void)cpu;
	return false;
}

DEFINE_TIGHT_BODY(tight_inline, vcpu_is_preempted_inline)
DEFINE_TIGHT_BODY(tight_call, vcpu_is_preempted)
DEFINE_TIGHT_BODY(tight_thunk, vcpu_is_preempted_thunked)
DEFINE_LIVE_BODY(live_none, ask_nothing)
DEFINE_LIVE_BODY(live_call, vcpu_is_preempted)
DEFINE_LIVE_BODY(live_thunk, vcpu_is_preempted_thunked)

static const struct bench_case tight_cases[] = {
	{ "is_preempted x100", "inline", tight_inline, .cpl = 3 },
	{ "is_preempted x100", "c-call", tight_call, .cpl = 3, .baseline = BENCH_ROW(0) },
	{ "is_preempted x100", "thunk", tight_thunk, .cpl = 3, .baseline = BENCH_ROW(1) },
	{ "is_preempted x100, 10 live", "no call", live_none, .cpl = 3 },
	{ "is_preempted x100, 10 live", "c-call", live_call, .cpl = 3,
	  .baseline = BENCH_ROW(3) },
	{ "is_preempted x100, 10 live", "thunk", live_thunk, .cpl = 3,
	  .baseline = BENCH_ROW(4) },
};

/* ---- the contended slow path ---- */

struct slow_variant {
	enum pvlock_wait wait;
	const char *variant;
};

static const struct slow_variant slow_variants[] = {
	{ PVLOCK_SPIN, "no hook" },
	{ PVLOCK_SPIN_CALL, "c-call" },
	{ PVLOCK_SPIN_THUNK, "thunk" },
};

static struct pvlock_contend run;
static struct stats episode_stats;

static u64 stats_user(void *arg)
{
	(void)arg;
	stats_compute(run.episodes, run.nr_episodes, &episode_stats);
	return 0;
}

/* Returns the record id, 0 if nothing was submitted. */
static u32 slow_path_one(const struct slow_variant *v, u64 window_ms, u32 baseline_id)
{
	struct mvm_result r;

	run.wait = v->wait;
	run.quota = 0;
	run.cs_work = 0;
	run.window_us = window_ms * 1000;
	run.keep_episodes = true;
	pvlock_contend_run(&run);
	printf("preempt-call: lock slow path, %s: %lu acquisitions (%lu waited, %lu rounds, "
	       "preempted seen %lu), %lu/s\n", v->variant, run.total, run.contended,
	       run.rounds, run.preempted_seen, pvlock_contend_rate(&run));
	report_why(run.counter == run.total, "lock slow path with hook: mutual exclusion",
		   "%s: counter %lu, acquisitions %lu", v->variant, run.counter, run.total);
	if (!run.nr_episodes) {
		report_skip("lock slow path", "%s: no vCPU ever waited", v->variant);
		return 0;
	}
	run_user(stats_user, NULL, RUN_USER_IRQS_OFF);
	result_init(&r, SUITE, "lock wait round", v->variant);
	result_set_stats(&r, &episode_stats);
	r.cpl = 3;
	r.targets = run.nr_cpus - 1;
	r.unit = MVM_UNIT_CYCLES;
	r.baseline_id = baseline_id;
	return result_submit(&r);
}

static void check_slow_path(u64 window_ms)
{
	u32 prev = 0;

	if (boot_nr_cpus < 2) {
		report_skip("lock slow path", "needs 2 vCPUs to contend");
		return;
	}
	for (u32 i = 0; i < ARRAY_SIZE(slow_variants); i++)
		prev = slow_path_one(&slow_variants[i], window_ms, prev);
}

static bool parse_window(const char *arg, u64 *ms)
{
	*ms = WINDOW_MS;
	if (!arg)
		return true;
	return parse_u64(arg, WINDOW_MS_MAX, ms) && *ms;
}

static void suite_preempt_call(const char *arg)
{
	struct bench b;
	char why[128];
	u64 window_ms;

	if (!report_why(parse_window(arg, &window_ms), "argument",
			"'%s' is not a window in ms (1..%u)", arg, WINDOW_MS_MAX))
		return;
	if (pvtime_enable_all(why, sizeof(why)))
		printf("preempt-call: steal time not registered (%s): "
		       "the calls read a zero record\n", why);
	probe_cpu = boot_nr_cpus - 1;
	printf("preempt-call: timed loops at CPL3; x100 rows are 100 calls per sample\n");
	bench_init(&b, SUITE);
	bench_run_table(&b, tight_cases, ARRAY_SIZE(tight_cases), "vcpu_is_preempted call cost");
	check_slow_path(window_ms);
}

DEFINE_SUITE(62, suite_preempt_call, "preempt-call", false, "MS",
	     "vcpu_is_preempted(): inline vs C call vs callee-saved thunk; in a lock slow path");
