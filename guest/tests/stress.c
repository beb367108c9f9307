// SPDX-License-Identifier: MIT
/*
 * stress [SECONDS]: every vCPU floods every vCPU (itself included) with
 * IPIs and TLB flushes through all encodings for SECONDS (default 2), then
 * the books must balance: each (sender, target) pair delivered exactly what
 * was sent, every call returned its one right result, nothing stalled.
 * Overcommit (more vCPUs than host CPUs) is the interesting case. Records
 * go to the VMM while the storm runs, to load the results path too.
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/bootmem.h"
#include "lib/hv.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/smp.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "suite.h"
#include "tests/stress.h"

#define DEFAULT_SECONDS		2
#define MAX_SECONDS		3600
#define STALL_SECONDS		10
/*
 * Overcommitted, every vCPU waits its turn for a host CPU behind the
 * others, and a flush waits for each target's turn: the limit grows with
 * vCPUs per host CPU past 16 (a second each), or a slow host would look stuck.
 */
#define STALL_FREE_RATIO	16
#define REPORT_WAIT_US		2000000
#define CALIBRATE_NS		20000000	/* 20 ms of APIC timer */
#define CALIBRATE_MAX_US	2000000

/* A whole number of seconds, 1..MAX_SECONDS; 0 when it is not one. */
static u32 parse_seconds(const char *arg)
{
	u64 v;

	if (!arg)
		return DEFAULT_SECONDS;
	return parse_u64(arg, MAX_SECONDS, &v) ? (u32)v : 0;
}

/*
 * The TSC rate seen against KVM's APIC timer, which counts real
 * nanoseconds (1 GHz bus), polled (no interrupt needed). The stall limit
 * uses the larger of this and tsc_khz: a nested host was once seen to
 * report 106 MHz for a TSC running at about 2 GHz, which turned 10 s into
 * half a second. 0 when the timer did not count.
 */
static u64 measured_tsc_khz(void)
{
	u64 t0, t1;

	wrmsr(MSR_X2APIC_TIMER_DIV, TIMER_DIV_1);
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_MASKED | STRESS_TIMER_VEC);
	t0 = rdtsc();
	wrmsr(MSR_X2APIC_TIMER_INIT, CALIBRATE_NS);
	while (rdmsr(MSR_X2APIC_TIMER_CUR) && rdtsc() - t0 < us_to_cycles(CALIBRATE_MAX_US))
		cpu_relax();
	t1 = rdtsc();
	wrmsr(MSR_X2APIC_TIMER_INIT, 0);
	return t1 - t0 < us_to_cycles(CALIBRATE_MAX_US) ? (t1 - t0) / (CALIBRATE_NS / 1000000) : 0;
}

static u32 stall_seconds(void)
{
	u32 per_cpu = boot_nr_cpus / MAX(boot_info->host_cpus, 1u);

	return STALL_SECONDS + (per_cpu > STALL_FREE_RATIO ? per_cpu - STALL_FREE_RATIO : 0);
}

static void setup(u32 seconds)
{
	u64 khz = measured_tsc_khz();

	/* Boot memory comes zeroed: clear it only for a second run. */
	if (!stress_cpus)
		stress_cpus = bootmem_must_alloc((u64)boot_nr_cpus * sizeof(*stress_cpus),
						 __alignof__(struct stress_cpu), "stress counters");
	else
		memset(stress_cpus, 0, (u64)boot_nr_cpus * sizeof(*stress_cpus));
	stress_ops_init(boot_nr_cpus);
	memset(&stress_ctl, 0, sizeof(stress_ctl));
	stress_ctl.nr = boot_nr_cpus;
	stress_ctl.nr_banks = (boot_nr_cpus + 63) / 64;
	stress_ctl.xmm = hv_xmm_input_available() && (boot_info->features & MVM_F_HV_XMM_INPUT);
	stress_ctl.run_cycles = us_to_cycles(seconds * 1000000ull);
	stress_ctl.stall_cycles = MAX(khz, tsc_khz) * 1000 * stall_seconds();
	printf("stress: TSC %lu kHz against the APIC timer, %lu kHz from the VMM\n", khz, tsc_khz);
	/* Each vCPU starts its turns elsewhere: every encoding runs early on. */
	for (u32 t = 0; t < stress_ctl.nr; t++) {
		stress_cpus[t].rng = (rdtsc() ^ (0x9e3779b97f4a7c15ull * (t + 1))) | 1;
		stress_cpus[t].ipi_turn = t;
		stress_cpus[t].flush_turn = t;
	}
}

static void check_counts(void)
{
	u64 sent = 0, got = 0;
	u32 bad_s = 0, bad_t = 0, bad = 0;

	u32 pairs = 0, bad_k = 0;

	for (u32 s = 0; s < stress_ctl.nr; s++)
		for (u32 k = 0; k < stress_cpus[s].nr_peers; k++) {
			u32 t = stress_cpus[s].peer[k];
			u32 a = stress_cpus[s].sent[k], b = stress_cpus[t].recv[s % 64];

			sent += a;
			got += b;
			pairs++;
			if (a != b && !bad++) {
				bad_s = s;
				bad_t = t;
				bad_k = k;
			}
		}
	report_why(!bad && sent, "every (sender, target) pair: deliveries == sends",
		   "%u pairs differ; first: vCPU %u -> %u sent %u, counted %u (totals %lu / %lu)",
		   bad, bad_s, bad_t, stress_cpus[bad_s].sent[bad_k],
		   stress_cpus[bad_t].recv[bad_s % 64], sent, got);
	printf("stress: %lu IPIs sent, %lu delivered, %u (sender, target) pairs\n", sent, got,
	       pairs);
}

static void check_results(void)
{
	u64 bad = 0;
	u32 who = 0;

	for (u32 t = stress_ctl.nr; t-- > 0;)
		if (stress_cpus[t].bad_calls) {
			bad += stress_cpus[t].bad_calls;
			who = t;
		}
	report_why(!bad, "every hypercall returned SUCCESS with all reps",
		   "%lu did not; vCPU %u first: %s result 0x%lx, expected 0x%lx", bad, who,
		   stress_op_name(stress_cpus[who].bad_op), stress_cpus[who].bad_rax,
		   stress_cpus[who].bad_want);
}

static void op_split(u32 t, u64 *ipis, u64 *flushes)
{
	*ipis = *flushes = 0;
	for (u32 op = 0; op < NR_STRESS_OPS; op++)
		*(op < NR_IPI_OPS ? ipis : flushes) += stress_cpus[t].ops[op];
}

static void check_coverage(void)
{
	u32 missing_op = NR_STRESS_OPS, idle = stress_ctl.nr, records = 0;
	u64 ipis, flushes;

	for (u32 op = 0; op < NR_STRESS_OPS; op++) {
		u64 n = 0;

		for (u32 t = 0; t < stress_ctl.nr; t++)
			n += stress_cpus[t].ops[op];
		printf("stress: %-22s %lu calls\n", stress_op_name(op), n);
		if (!n && stress_op_available(op))
			missing_op = op;
	}
	report_why(missing_op == NR_STRESS_OPS, "every call in every offered encoding was made",
		   "no %s call", stress_op_name(missing_op));
	for (u32 t = stress_ctl.nr; t-- > 0;) {
		op_split(t, &ipis, &flushes);
		if (!ipis || !flushes)
			idle = t;
		records += stress_cpus[t].midrun_record;
	}
	op_split(idle < stress_ctl.nr ? idle : 0, &ipis, &flushes);
	report_why(idle == stress_ctl.nr, "every vCPU sent IPIs and flushed",
		   "vCPU %u: %lu IPI calls, %lu flush calls", idle, ipis, flushes);
	report_why(records == stress_ctl.nr, "every vCPU handed over a record during the storm",
		   "%u of %u did", records, stress_ctl.nr);
}

static void nothing(void *arg)
{
	(void)arg;
}

/*
 * Before the handlers go: a first synchronous smp_call() to each vCPU
 * waits out any handler still running (and the wake-up it may send), the
 * second gets every wake-up or timer interrupt taken (their vectors rank
 * above SMP_CALL_VECTOR); vCPU 0 takes its own with IF=1 for a moment.
 */
static void quiesce(void)
{
	for (u32 round = 0; round < 2; round++)
		for (u32 cpu = 1; cpu < stress_ctl.nr; cpu++)
			smp_call(cpu, nothing, NULL, true);
	irq_enable();
	udelay(100);
	irq_disable();
}

/* The run as one row: calls/s per vCPU, summarised. */
static void submit_summary(u32 seconds)
{
	u64 rates[GUEST_MAX_VCPUS], total = 0;
	struct mvm_result r;
	struct stats s;
	char variant[24];

	for (u32 t = 0; t < stress_ctl.nr; t++) {
		rates[t] = stress_cpus[t].rate;
		for (u32 op = 0; op < NR_STRESS_OPS; op++)
			total += stress_cpus[t].ops[op];
	}
	stats_compute(rates, stress_ctl.nr, &s);
	snprintf(variant, sizeof(variant), "all encodings, %us", seconds);
	result_init(&r, "stress", "ipi+flush calls per vCPU", variant);
	result_set_stats(&r, &s);
	r.unit = MVM_UNIT_PER_SEC;
	r.targets = stress_ctl.nr;
	r.iters = total ? total : 1;
	result_submit(&r);
}

static void suite_stress(const char *arg)
{
	u32 seconds = parse_seconds(arg);
	const char *why = "";

	if (!seconds) {
		report_fail("stress argument", "'%s' is not a number of seconds (1..%u)", arg,
			    MAX_SECONDS);
		return;
	}
	if (!hv_detect() || hv_enable_hypercalls(&why)) {
		report_skip("stress", "no Hyper-V hypercalls (minivmm --no-hyperv?)");
		return;
	}
	setup(seconds);
	stress_handlers(true);
	for (u32 cpu = 1; cpu < stress_ctl.nr; cpu++)
		smp_call(cpu, stress_worker, NULL, false);
	stress_worker(NULL);
	if (READ_ONCE(stress_ctl.stop)) {
		/* Let the vCPU that saw it finish its FAIL line first. */
		wait_until(load_acquire(&stress_ctl.stall_reporter), REPORT_WAIT_US);
		WRITE_ONCE(stress_ctl.vcpu0_reported, 1);
		report_finish();	/* a vCPU may still be stuck: end here */
	}
	report_pass("no deadlock: every vCPU kept going and finished (stall limit %u s)",
		    stall_seconds());
	check_counts();
	check_results();
	check_coverage();
	quiesce();
	stress_handlers(false);
	submit_summary(seconds);
	WRITE_ONCE(stress_ctl.vcpu0_reported, 1);
}

DEFINE_SUITE(62, suite_stress, "stress", false, "SECONDS",
	     "IPI + flush storm on every vCPU, all encodings; exact delivery counts");
