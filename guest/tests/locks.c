// SPDX-License-Identifier: MIT
/*
 * locks: a ticket lock three ways under (over)commit (lib/pvlock.h):
 * plain spinning, spinning that halts once the vCPU being served is seen
 * preempted (pv), and halting at once (the unlocker kicks the next waiter
 * with an IPI; never a hypercall).
 *
 *  - mutual exclusion: every vCPU takes the lock a fixed number of times
 *    (--iters, default 1000) and increments a shared counter
 *    non-atomically inside; the counter must equal the total, per variant;
 *  - pv waiters halt on a held-out holder: vCPU 1 holds the lock, the VMM
 *    holds vCPU 1 out (MVM_CTRL_PAUSE_VCPU, preempted flag published);
 *    vCPU 0 waiting with the pv policy must see it preempted, halt, and be
 *    woken by vCPU 1's kick once it runs and unlocks;
 *  - cost (not with `check`): uncontended acquire+release, warm and with
 *    every lock line flushed (cold), native unlock vs pv unlock;
 *  - throughput (not with `check`): all vCPUs contend for MS ms (default
 *    200) per variant: acquisitions/s and the per-vCPU spread (fairness).
 * Spinning and the lock loop run at CPL3 (native on kvm_pvm); HLT and the
 * kick's ICR write need CPL0, so halting waiters and kicking unlockers step
 * down to CPL0 for exactly that (pvlock_run()).
 */
#include <minivmm/abi.h>

#include "lib/apic.h"
#include "lib/bench.h"
#include "lib/boot.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/pvlock_contend.h"
#include "lib/pvtime.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/smp.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "suite.h"

#define SUITE		"locks"
#define CHECK_QUOTA	1000		/* acquisitions per vCPU without --iters */
#define CHECK_CS_WORK	2000		/* a long critical section: contention is likely */
#define WINDOW_MS	200
#define WINDOW_MS_MAX	60000
#define HOLD_US		50000
#define HOLD_ATTEMPTS	3
#define TAKEN_WAIT_US	2000000

static const enum pvlock_wait variants[] = { PVLOCK_SPIN, PVLOCK_PV, PVLOCK_HALT };

static struct pvlock_contend run;

/* ---- mutual exclusion ---- */

static void check_exclusion(void)
{
	u64 quota = boot_info->iters ? boot_info->iters : CHECK_QUOTA;

	for (u32 i = 0; i < ARRAY_SIZE(variants); i++) {
		const char *name = pvlock_wait_name(variants[i]);

		run.wait = variants[i];
		run.quota = quota;
		run.cs_work = CHECK_CS_WORK;
		run.keep_episodes = false;
		pvlock_contend_run(&run);
		report(run.counter == run.total && run.total == quota * run.nr_cpus,
		       "mutual exclusion, %s: counter %lu, %lu acquisitions, expected %u x %lu "
		       "(%lu waited, preempted seen %lu, %lu halts, %lu kicks)", name, run.counter,
		       run.total, run.nr_cpus, quota, run.contended, run.preempted_seen, run.halts,
		       run.kicks);
	}
}

/* ---- pv waiters and a held-out holder ---- */

static struct pvlock hold_lock;

struct holder {
	u32 taken;
	u32 release;
	u32 kicked;		/* the vCPU its unlock kicked, or PVLOCK_NO_CPU */
	u32 done;
};

/* On vCPU 1, CPL0: take the lock, keep it until told, unlock and kick. */
static void hold_lock_on_cpu(void *arg)
{
	struct holder *h = arg;
	u32 cpu;

	pvlock_lock(&hold_lock, smp_id());
	store_release(&h->taken, 1);
	while (!load_acquire(&h->release))
		cpu_relax();
	cpu = pvlock_unlock_pv(&hold_lock);
	if (cpu != PVLOCK_NO_CPU)
		apic_send_ipi(percpu[cpu].apic_id, PVLOCK_KICK_VECTOR);
	h->kicked = cpu;
	store_release(&h->done, 1);
}

struct hold_try {
	s32 status;
	bool taken;
	u64 issued, finished;
	struct pvlock_worker w;
	u64 kicks;
	struct holder h;
};

static void hold_try_once(struct hold_try *t)
{
	static u64 counter;
	u64 kicks0 = pvlock_kicks_received(0);

	pvlock_init(&hold_lock);
	memset(&t->h, 0, sizeof(t->h));
	smp_call(1, hold_lock_on_cpu, &t->h, false);
	t->taken = wait_until(load_acquire(&t->h.taken), TAKEN_WAIT_US);
	if (!t->taken) {
		store_release(&t->h.release, 1);	/* whenever it gets there */
		return;
	}
	t->issued = rdtsc();
	t->status = mvm_ctrl(MVM_CTRL_PAUSE_VCPU, 1, HOLD_US);
	/* vCPU 1 can only see this once the hold is over. */
	store_release(&t->h.release, 1);
	t->w = (struct pvlock_worker){
		.lock = &hold_lock, .wait = PVLOCK_PV, .counter = &counter, .quota = 1,
	};
	pvlock_run(&t->w);
	t->finished = rdtsc();
	smp_wait(1);
	t->kicks = pvlock_kicks_received(0) - kicks0;
}

static void check_pv_halts_on_held_holder(void)
{
	static struct hold_try t;
	u32 attempt;

	if (boot_nr_cpus < 2 || !(boot_info->features & MVM_F_PVTIME)) {
		report_skip("pv waiter halts while the holder is held out",
			    boot_nr_cpus < 2 ? "needs 2 vCPUs" : "no steal time (MVM_F_PVTIME)");
		return;
	}
	for (attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
		hold_try_once(&t);
		if (!t.taken || t.status || t.w.halts)
			break;
		/* It never halted: fine only if we came too late to see the hold. */
		if (t.finished - t.issued < us_to_cycles(HOLD_US) * 8 / 10)
			break;
	}
	if (!report_why(t.taken && !t.status, "vCPU 1 holds the lock, the VMM holds vCPU 1 out",
			"%s", t.taken ? "pause request refused" : "vCPU 1 never took the lock"))
		return;
	if (attempt > HOLD_ATTEMPTS) {
		report_skip("pv waiter halts while the holder is held out",
			    "vCPU 0 never looked inside the %u ms hold (host too busy)",
			    HOLD_US / 1000);
		return;
	}
	report_why(t.w.acquired == 1 && t.w.preempted_seen && t.w.halts && t.h.kicked == 0 &&
		   t.kicks, "pv waiter saw the holder preempted, halted, and was kicked awake",
		   "acquired %lu, preempted seen %lu, halts %lu, holder kicked vCPU %d, "
		   "kicks taken %lu",
		   t.w.acquired, t.w.preempted_seen, t.w.halts, (int)t.h.kicked, t.kicks);
}

/* ---- cost: uncontended, CPL3 ---- */

static struct pvlock cost_lock;

static const char *lock_native(void *arg)
{
	(void)arg;
	pvlock_lock(&cost_lock, 0);
	pvlock_unlock(&cost_lock);
	return NULL;
}

static const char *lock_pv(void *arg)
{
	(void)arg;
	pvlock_lock(&cost_lock, 0);
	return pvlock_unlock_pv(&cost_lock) == PVLOCK_NO_CPU ? NULL : "kick with nobody waiting";
}

static inline void clflush(const volatile void *p)
{
	asm volatile("clflush (%0)" : : "r"(p) : "memory");
}

/* Every line either unlock touches: the words, the ticket slot, the sleeper. */
static void flush_lock_lines(void *arg)
{
	(void)arg;
	clflush(&cost_lock.next);
	clflush(&cost_lock.ticket_cpu[cost_lock.next % PVLOCK_SLOTS]);
	clflush(&cost_lock.ticket_cpu[(cost_lock.next + 1) % PVLOCK_SLOTS]);
	clflush(&cost_lock.sleeper[0]);
	asm volatile("mfence" ::: "memory");
}

static const struct bench_case cost_cases[] = {
	{ "acquire+release warm", "native", lock_native, .cpl = 3 },
	{ "acquire+release warm", "pv unlock", lock_pv, .cpl = 3, .baseline = BENCH_ROW(0) },
	{ "acquire+release cold", "native", lock_native, .prep = flush_lock_lines, .cpl = 3 },
	{ "acquire+release cold", "pv unlock", lock_pv, .prep = flush_lock_lines, .cpl = 3,
	  .baseline = BENCH_ROW(2) },
};

/* ---- throughput ---- */

static u64 rates[GUEST_MAX_VCPUS];
static struct stats rate_stats;

static u64 rate_stats_user(void *arg)
{
	(void)arg;
	stats_compute(rates, run.nr_cpus, &rate_stats);
	return 0;
}

static u32 submit_rate(const char *name, const char *variant, u64 iters, const struct stats *s,
		       u32 baseline_id)
{
	struct mvm_result r;

	result_init(&r, SUITE, name, variant);
	result_set_stats(&r, s);
	r.iters = iters;
	r.cpl = 3;
	r.unit = MVM_UNIT_PER_SEC;
	r.targets = run.nr_cpus;
	r.baseline_id = baseline_id;
	return result_submit(&r);
}

/* Only the totals get a ratio: a median of a handful of per-vCPU rates is noise. */
static void throughput_one(enum pvlock_wait wait, u64 window_ms, u32 *base)
{
	const char *name = pvlock_wait_name(wait);
	struct stats total;
	u32 id;
	u64 rate;

	run.wait = wait;
	run.quota = 0;
	run.cs_work = 0;
	run.window_us = window_ms * 1000;
	run.keep_episodes = false;
	pvlock_contend_run(&run);
	report_why(run.counter == run.total, "mutual exclusion under load",
		   "%s: counter %lu, acquisitions %lu", name, run.counter, run.total);
	rate = pvlock_contend_rate(&run);
	for (u32 cpu = 0; cpu < run.nr_cpus; cpu++)
		rates[cpu] = pvlock_contend_cpu_rate(&run, cpu);
	run_user(rate_stats_user, NULL, RUN_USER_IRQS_OFF);
	printf("locks: %s: %lu/s over %lu ms, per-vCPU share min/max %lu%% (%lu..%lu); "
	       "%lu waited, preempted seen %lu, %lu halts, %lu kicks\n", name, rate,
	       cycles_to_ns(run.elapsed) / 1000000,
	       run.max_share ? run.min_share * 100 / run.max_share : 0, run.min_share,
	       run.max_share, run.contended, run.preempted_seen, run.halts, run.kicks);
	total = (struct stats){ .n = run.total, .min = rate, .median = rate, .p90 = rate,
				.p99 = rate, .max = rate, .mean = rate };
	id = submit_rate("acquire/s, all vCPUs", name, MAX(run.total, 1ull), &total, *base);
	submit_rate("acquire/s, per vCPU", name, MAX(run.total, 1ull), &rate_stats, 0);
	if (!*base)
		*base = id;
}

static void check_throughput(u64 window_ms)
{
	u32 base = 0;

	printf("locks: %u vCPUs on %u host CPUs%s; spinning at CPL3, hlt and kicks at CPL0%s\n",
	       boot_nr_cpus, boot_info->host_cpus,
	       boot_info->features & MVM_F_OVERCOMMIT ? " (overcommitted)" : "",
	       boot_backend == MVM_BACKEND_PVM ?
	       "; kvm_pvm never sets preempted itself, so pv-spin halts only on VMM holds" : "");
	for (u32 i = 0; i < ARRAY_SIZE(variants); i++)
		throughput_one(variants[i], window_ms, &base);
}

/* "check", or a window in ms, or nothing. */
static bool parse_arg(const char *arg, bool *check_only, u64 *ms)
{
	*check_only = false;
	*ms = WINDOW_MS;
	if (!arg)
		return true;
	if (!strcmp(arg, "check")) {
		*check_only = true;
		return true;
	}
	return parse_u64(arg, WINDOW_MS_MAX, ms) && *ms;
}

static void suite_locks(const char *arg)
{
	struct bench b;
	char why[128];
	bool check_only;
	u64 window_ms;

	if (!report_why(parse_arg(arg, &check_only, &window_ms), "argument",
			"'%s' is neither 'check' nor a window in ms (1..%u)", arg, WINDOW_MS_MAX))
		return;
	if (pvtime_enable_all(why, sizeof(why)))
		printf("locks: no steal time (%s): pv waiters never see a preempted holder\n", why);
	pvlock_setup();
	check_exclusion();
	check_pv_halts_on_held_holder();
	if (check_only)
		return;
	bench_init(&b, SUITE);
	bench_run_table(&b, cost_cases, ARRAY_SIZE(cost_cases), "uncontended lock cost");
	check_throughput(window_ms);
}

DEFINE_SUITE(61, suite_locks, "locks", false, "check|MS",
	     "ticket lock: spin vs pv-spin+hlt vs hlt+ipi; exclusion, cost, throughput, fairness");
