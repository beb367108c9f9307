// SPDX-License-Identifier: MIT
/*
 * steal: KVM steal time and the preempted flag minivmm publishes.
 *
 *  1. KVM's PV leaves are found by scanning for "KVMKVMKVM" and offer
 *     STEAL_TIME; every vCPU registers a record and reads it back sane.
 *  2. Steal follows overcommit: CPL3 busy loops on every vCPU for a bounded
 *     time; with more vCPUs than host CPUs at least one vCPU must have been
 *     robbed (steal > 0); without, the mean steal stays below half the
 *     elapsed time (generous: a shared host may still rob a vCPU a while).
 *     Only the half that matches the host runs; the other is SKIPped.
 *  3. The preempted flag: vCPU 0 asks the VMM (MVM_CTRL_PAUSE_VCPU) to hold
 *     vCPU 1 out; during the hold vCPU 1's flag reads KVM_VCPU_PREEMPTED and
 *     vCPU 1 runs nothing; afterwards it runs work posted during the hold,
 *     sees its own flag clear, and vCPU 0 sees it clear too.
 *  4. Two vCPUs asking to pause each other both get an answer.
 *  5. Bad control requests come back MVM_CTRL_EINVAL.
 *  6. Async page faults, where the leaves offer them: MSR_KVM_ASYNC_PF_INT
 *     and _EN take a vector and a record, and KVM's "every page is ready"
 *     event (token 0xffffffff), which enabling queues, arrives on the vector.
 * Everything is a yes/no observation; durations only bound the waits.
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/irq.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/pvtime.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "suite.h"

#define BUSY_US			300000	/* CPL3 busy loops, every vCPU */
#define NO_OC_MAX_STEAL_PCT	50	/* without overcommit: generous */
#define STEAL_SLACK_NS		100000000ull	/* accrued just before the window */
#define HOLD_US			100000	/* how long the VMM holds the target */
#define HOLD_ATTEMPTS		5
#define RUN_AGAIN_US		2000000	/* the target runs again within this */
#define HOLD_TARGET		1
#define PAUSE_MAX_US		10000000ull	/* abi.h: 1..10^7 */
#define APF_VECTOR		0x55
#define APF_WAIT_US		1000000

/* ---- 1. leaves and records ---- */

static bool check_leaves(void)
{
	u32 base = pvtime_kvm_base();
	u32 want = boot_info->features & MVM_F_HYPERV ? 0x40000100u : 0x40000000u;
	u32 feat = pvtime_kvm_features();

	if (!report_why(base == want, "KVM PV leaves found by signature scan",
			"found at 0x%x, expected 0x%x (Hyper-V %s)", base, want,
			boot_info->features & MVM_F_HYPERV ? "on" : "off"))
		return false;
	return report_why(feat & (1u << KVM_FEATURE_STEAL_TIME), "KVM_FEATURE_STEAL_TIME offered",
			  "features 0x%x lack bit %u", feat, KVM_FEATURE_STEAL_TIME);
}

struct self_view {
	bool consistent;
	struct pv_steal_snap snap;
	u32 flags;
	u8 preempted;
};

static struct self_view self_view[GUEST_MAX_VCPUS];

/* On each vCPU: its own record, while it is plainly running. */
static void read_own_record(void *arg)
{
	u32 cpu = smp_id();
	struct self_view *v = &self_view[cpu];

	(void)arg;
	v->consistent = pvtime_read(cpu, &v->snap);
	v->flags = READ_ONCE(pv_steal[cpu].flags);
	v->preempted = pvtime_preempted_byte(cpu);
}

static void check_records(void)
{
	u32 bad = boot_nr_cpus;

	smp_call_all(read_own_record, NULL);
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++) {
		const struct self_view *v = &self_view[cpu];

		if (!v->consistent || !v->snap.version || v->flags || v->preempted)
			bad = cpu;
	}
	if (bad == boot_nr_cpus) {
		report_pass("every vCPU's record written by the host (version even, > 0), "
			    "flags 0, preempted 0 while running");
		return;
	}
	report_fail("every vCPU's record written by the host",
		    "vCPU %u: consistent read %s, version %u, flags 0x%x, preempted 0x%x", bad,
		    self_view[bad].consistent ? "ok" : "never", self_view[bad].snap.version,
		    self_view[bad].flags, self_view[bad].preempted);
}

/* ---- 2. steal and overcommit ---- */

static u64 busy_user(void *arg)
{
	u64 end = rdtsc() + *(const u64 *)arg, rounds = 0;

	while (rdtsc() < end)
		rounds++;
	return rounds;
}

static void busy_on_cpu(void *arg)
{
	run_user(busy_user, arg, RUN_USER_IRQS_OFF);
}

static bool snapshot_all(struct pv_steal_snap *s)
{
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		if (!pvtime_read(cpu, &s[cpu]))
			return false;
	return true;
}

static void print_ms(const char *label, u64 ns)
{
	printf("%s%lu.%03lu ms", label, ns / 1000000, ns / 1000 % 1000);
}

static void check_steal(void)
{
	static struct pv_steal_snap before[GUEST_MAX_VCPUS], after[GUEST_MAX_VCPUS];
	bool over = boot_info->features & MVM_F_OVERCOMMIT;
	u64 cycles = us_to_cycles(BUSY_US), t0, elapsed_ns, max = 0, sum = 0, limit;
	u32 worst = 0, crazy = boot_nr_cpus;

	if (!snapshot_all(before)) {
		report_fail("steal during busy loops", "no consistent read before the loops");
		return;
	}
	t0 = rdtsc();
	smp_call_all(busy_on_cpu, &cycles);
	elapsed_ns = cycles_to_ns(rdtsc() - t0);
	if (!snapshot_all(after)) {
		report_fail("steal during busy loops", "no consistent read after the loops");
		return;
	}
	printf("steal: %u vCPUs on %u host CPUs, CPL3 busy loops for", boot_nr_cpus,
	       boot_info->host_cpus);
	print_ms(" ", elapsed_ns);
	printf("; steal per vCPU:");
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++) {
		u64 d = after[cpu].steal - before[cpu].steal;

		print_ms(cpu ? ", " : " ", d);
		sum += d;
		if (d > max) {
			max = d;
			worst = cpu;
		}
		if (after[cpu].steal < before[cpu].steal || d > elapsed_ns + STEAL_SLACK_NS)
			crazy = cpu;
	}
	printf("\n");
	report_why(crazy == boot_nr_cpus, "steal is monotonic and never exceeds the elapsed time",
		   "vCPU %u: %lu -> %lu ns over %lu ns", crazy, before[crazy % boot_nr_cpus].steal,
		   after[crazy % boot_nr_cpus].steal, elapsed_ns);
	if (over) {
		report_why(max > 0, "overcommitted: steal grew on at least one vCPU",
			   "no vCPU's steal moved in %lu ms with %u vCPUs on %u host CPUs",
			   elapsed_ns / 1000000, boot_nr_cpus, boot_info->host_cpus);
		report_skip("not overcommitted: steal stays small",
			    "this run is overcommitted; run with --cpus <= host CPUs");
		return;
	}
	report_skip("overcommitted: steal grows",
		    "%u vCPUs on %u host CPUs; run with --cpus > host CPUs", boot_nr_cpus,
		    boot_info->host_cpus);
	/*
	 * A shared host can still rob a vCPU now and then (its load balancer
	 * stacks two busy threads for a while), so judge the mean: below half
	 * of the elapsed time, where 2x overcommit would sit at about half.
	 */
	limit = elapsed_ns * NO_OC_MAX_STEAL_PCT / 100;
	report_why(sum / boot_nr_cpus < limit,
		   "not overcommitted: mean steal below half the elapsed time",
		   "mean %lu of %lu ms (worst vCPU %u: %lu ms): something else keeps the host busy",
		   sum / boot_nr_cpus / 1000000, elapsed_ns / 1000000, worst, max / 1000000);
}

/* ---- 3. preempted while the VMM holds a vCPU out ---- */

struct hold_probe {
	u32 ran;
	u64 ran_at;		/* target's TSC when it ran the posted work */
	u8 own_byte;		/* its own preempted byte, read then */
};

struct hold_obs {
	s32 status;
	u64 issued;		/* vCPU 0's TSC just before the request */
	u64 read_at;		/* after the first reads */
	u8 during;		/* target's byte right after the request returned */
	bool consistent;
	struct pv_steal_snap snap;
	u64 mid_at;
	u8 during_mid;		/* again, half-way through the hold */
	u32 ran_mid;		/* did the posted work run before half-way? */
};

static struct hold_probe probe;

static void hold_target_ran(void *arg)
{
	struct hold_probe *p = arg;

	p->own_byte = pvtime_preempted_byte(smp_id());
	p->ran_at = rdtsc();
	store_release(&p->ran, 1);
}

/* Request the hold, post work to the target, look at it half-way. */
static void hold_once(struct hold_obs *o)
{
	u64 half = us_to_cycles(HOLD_US / 2);

	WRITE_ONCE(probe.ran, 0);
	o->issued = rdtsc_ordered();
	o->status = mvm_ctrl(MVM_CTRL_PAUSE_VCPU, HOLD_TARGET, HOLD_US);
	o->during = pvtime_preempted_byte(HOLD_TARGET);
	o->consistent = pvtime_read(HOLD_TARGET, &o->snap);
	o->read_at = rdtsc_ordered();
	if (o->status)
		return;
	smp_call(HOLD_TARGET, hold_target_ran, &probe, false);
	while (rdtsc() < o->issued + half)
		cpu_relax();
	o->ran_mid = load_acquire(&probe.ran);
	o->during_mid = pvtime_preempted_byte(HOLD_TARGET);
	o->mid_at = rdtsc_ordered();
}

/* The hold starts after `issued` and lasts HOLD_US: reads before 80% of it are inside. */
static bool inside_hold(const struct hold_obs *o, u64 at)
{
	return at - o->issued < us_to_cycles(HOLD_US) * 8 / 10;
}

static void check_after_hold(const struct hold_obs *o)
{
	struct pv_steal_snap later;
	u64 held;
	bool cleared;

	if (!report_why(wait_until(load_acquire(&probe.ran), HOLD_US + RUN_AGAIN_US),
			"target ran the work posted during the hold, after it",
			"nothing within %u ms", (HOLD_US + RUN_AGAIN_US) / 1000))
		return;
	held = probe.ran_at - o->issued;
	report_why(held >= us_to_cycles(HOLD_US) * 9 / 10, "target stayed out for the whole hold",
		   "it ran %lu us after the request, hold %u us", cycles_to_ns(held) / 1000,
		   HOLD_US);
	report_why(probe.own_byte == 0, "target sees its own preempted byte 0 once running",
		   "byte 0x%x", probe.own_byte);
	/* It halts in its service loop next: voluntary, so the host leaves the flag clear. */
	cleared = wait_until(!(pvtime_preempted_byte(HOLD_TARGET) & KVM_VCPU_PREEMPTED),
			     RUN_AGAIN_US);
	report_why(cleared, "vCPU 0 sees the target's preempted flag cleared after it ran",
		   "still 0x%x after %u ms", pvtime_preempted_byte(HOLD_TARGET),
		   RUN_AGAIN_US / 1000);
	report_why(pvtime_read(HOLD_TARGET, &later) && later.version > o->snap.version,
		   "the host rewrote the record when the target re-entered",
		   "version %u during the hold, %u after", o->snap.version, later.version);
}

static void check_hold(void)
{
	struct hold_obs o = { 0 };
	u32 attempt;

	if (boot_nr_cpus < 2) {
		report_skip("preempted flag during a VMM hold", "needs 2 vCPUs");
		return;
	}
	for (attempt = 1; attempt <= HOLD_ATTEMPTS; attempt++) {
		hold_once(&o);
		if (o.status || (inside_hold(&o, o.read_at) && inside_hold(&o, o.mid_at)))
			break;
		/* vCPU 0 itself was descheduled too long to judge: let it end, retry. */
		wait_until(load_acquire(&probe.ran), HOLD_US + RUN_AGAIN_US);
	}
	if (!report_why(!o.status, "pause request accepted", "status %d", o.status))
		return;
	if (attempt > HOLD_ATTEMPTS) {
		report_skip("preempted flag during a VMM hold",
			    "vCPU 0 never looked inside the %u ms hold in %u tries (host too busy)",
			    HOLD_US / 1000, HOLD_ATTEMPTS);
		wait_until(load_acquire(&probe.ran), HOLD_US + RUN_AGAIN_US);
		return;
	}
	report_why((o.during & KVM_VCPU_PREEMPTED) && (o.during_mid & KVM_VCPU_PREEMPTED),
		   "target's preempted flag set while the VMM holds it out",
		   "byte 0x%x at %lu us, 0x%x at %lu us into the hold", o.during,
		   cycles_to_ns(o.read_at - o.issued) / 1000, o.during_mid,
		   cycles_to_ns(o.mid_at - o.issued) / 1000);
	report_why(o.consistent, "consistent read of the held target's record (version even)",
		   "version still odd or moving after %u tries", PVTIME_READ_MAX_RETRIES);
	report_why(!o.ran_mid, "target ran nothing during the hold",
		   "posted work ran before half of the hold");
	check_after_hold(&o);
}

/* ---- 4. two vCPUs pausing each other ---- */

#define CROSS_HOLD_US	20000
#define CROSS_START_US	20000	/* both fire at this TSC offset: the OUTs overlap */
#define CROSS_WAIT_US	5000000

struct cross {
	u64 start;		/* TSC at which both vCPUs send their request */
	u32 done;
	s32 status;		/* vCPU 1's request for vCPU 0 */
};

static void pause_cpu0(void *arg)
{
	struct cross *x = arg;

	while (rdtsc() < x->start)
		;
	x->status = mvm_ctrl(MVM_CTRL_PAUSE_VCPU, 0, CROSS_HOLD_US);
	store_release(&x->done, 1);
}

/*
 * Each request waits for its target's hold to begin, and a vCPU blocked in
 * its own request cannot begin one. Fired at the same TSC instant, both
 * requests reach the VMM before either kick lands: the VMM must refuse one
 * (MVM_CTRL_EINVAL) or serve them one after the other, never wait for ever.
 */
static void check_cross_pause(void)
{
	static struct cross x;
	s32 mine;
	bool done;

	if (boot_nr_cpus < 2) {
		report_skip("two vCPUs pausing each other", "needs 2 vCPUs");
		return;
	}
	x = (struct cross){ .start = tsc_deadline(CROSS_START_US) };
	smp_call(1, pause_cpu0, &x, false);
	while (rdtsc() < x.start)
		;
	mine = mvm_ctrl(MVM_CTRL_PAUSE_VCPU, 1, CROSS_HOLD_US);
	done = wait_until(load_acquire(&x.done), CROSS_WAIT_US);
	report_why(done && (mine == 0 || mine == MVM_CTRL_EINVAL) &&
		   (x.status == 0 || x.status == MVM_CTRL_EINVAL),
		   "two vCPUs pausing each other: both requests answered",
		   "vCPU 0 got %d, vCPU 1 %s %d", mine, done ? "got" : "still waits, last",
		   x.status);
	printf("steal: crossed pause requests: vCPU 0 got %d, vCPU 1 got %d\n", mine, x.status);
	smp_wait(1);
}

/* ---- 5. bad control requests ---- */

#define ARG0_NR_VCPUS	(~0ull)		/* means the vCPU count: one past the last */

static void check_bad_ctrl(void)
{
	static const struct {
		const char *what;
		u32 op;
		u64 arg0, arg1;
		u32 min_cpus;	/* the case only isolates its fault with this many vCPUs */
	} bad[] = {
		{ "unknown op", 0, 1, 1000, 1 },
		{ "unknown op 0x7fffffff", 0x7fffffff, 1, 1000, 1 },
		{ "pause self", MVM_CTRL_PAUSE_VCPU, 0, 1000, 1 },
		{ "vCPU == nr_vcpus", MVM_CTRL_PAUSE_VCPU, ARG0_NR_VCPUS, 1000, 1 },
		{ "vCPU 2^32", MVM_CTRL_PAUSE_VCPU, 1ull << 32, 1000, 1 },
		{ "0 us", MVM_CTRL_PAUSE_VCPU, 1, 0, 2 },
		{ "above 10^7 us", MVM_CTRL_PAUSE_VCPU, 1, PAUSE_MAX_US + 1, 2 },
	};
	u32 checked = 0;

	for (u32 i = 0; i < ARRAY_SIZE(bad); i++) {
		s32 st;

		if (boot_nr_cpus < bad[i].min_cpus)
			continue;
		st = mvm_ctrl(bad[i].op, bad[i].arg0 == ARG0_NR_VCPUS ? boot_nr_cpus : bad[i].arg0,
			      bad[i].arg1);
		checked++;
		if (st != MVM_CTRL_EINVAL) {
			report_fail("bad control requests return MVM_CTRL_EINVAL",
				    "%s: status %d%s", bad[i].what, st,
				    st == PVTIME_CTRL_UNANSWERED ? " (never written)" : "");
			return;
		}
	}
	report_pass("bad control requests return MVM_CTRL_EINVAL (%u cases%s)", checked,
		    boot_nr_cpus < 2 ? "; 0 us and > 10^7 us need 2 vCPUs" : "");
}

/* ---- 6. async page faults ---- */

static struct pv_apf_data apf_data;
static u32 apf_token;	/* what the handler found, 0 before */
static u32 apf_hits;

static void apf_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(apf_token, READ_ONCE(apf_data.token));
	WRITE_ONCE(apf_data.token, 0);
	wrmsr(MSR_KVM_ASYNC_PF_ACK, 1);
	WRITE_ONCE(apf_hits, apf_hits + 1);
}

/* Enable on this vCPU: NULL when both MSRs took their values, else what went wrong. */
static const char *apf_enable(u64 en)
{
	u64 back = 0;

	if (wrmsr_safe(MSR_KVM_ASYNC_PF_INT, APF_VECTOR) != EX_NONE)
		return "writing MSR_KVM_ASYNC_PF_INT raised an exception";
	if (wrmsr_safe(MSR_KVM_ASYNC_PF_EN, en) != EX_NONE)
		return "writing MSR_KVM_ASYNC_PF_EN raised an exception";
	if (rdmsr_safe(MSR_KVM_ASYNC_PF_EN, &back) != EX_NONE || back != en)
		return "MSR_KVM_ASYNC_PF_EN does not read back what was written";
	return NULL;
}

static void check_async_pf(void)
{
	const u32 want = (1u << KVM_FEATURE_ASYNC_PF) | (1u << KVM_FEATURE_ASYNC_PF_INT);
	u64 en = (u64)(uintptr_t)&apf_data | KVM_ASYNC_PF_DELIVERY_AS_INT | KVM_ASYNC_PF_ENABLED;
	const char *bad;

	if ((pvtime_kvm_features() & want) != want) {
		report_skip("async page faults", "KVM's leaves do not offer ASYNC_PF and ASYNC_PF_INT "
			    "(features 0x%x)", pvtime_kvm_features());
		return;
	}
	irq_register(APF_VECTOR, apf_irq);
	bad = apf_enable(en);
	irq_enable();
	if (!bad)
		wait_until(READ_ONCE(apf_hits) != 0, APF_WAIT_US);
	irq_disable();
	(void)wrmsr_safe(MSR_KVM_ASYNC_PF_EN, 0);
	irq_unregister(APF_VECTOR);
	if (!report_why(!bad, "async page faults: the MSRs take a vector and a record", "%s", bad))
		return;
	report_why(apf_hits == 1 && apf_token == KVM_ASYNC_PF_WAKE_ALL,
		   "async page faults: the wake-all event arrives on the vector",
		   "%u interrupts within %u ms, token 0x%x", apf_hits, APF_WAIT_US / 1000, apf_token);
}

static void suite_steal(const char *arg)
{
	char why[128];

	(void)arg;
	check_bad_ctrl();
	check_cross_pause();
	check_async_pf();
	if (!(boot_info->features & MVM_F_PVTIME)) {
		report_skip("steal time and preempted flags",
			    "the VMM does not offer them (no MVM_F_PVTIME: "
			    "KVM lacks STEAL_TIME or MSR filtering)");
		return;
	}
	if (!check_leaves())
		return;
	if (!report_why(!pvtime_enable_all(why, sizeof(why)),
			"MSR_KVM_STEAL_TIME enabled on every vCPU", "%s", why))
		return;
	check_records();
	check_steal();
	check_hold();
}

DEFINE_SUITE(60, suite_steal, "steal", false, NULL,
	     "steal time under overcommit, preempted flag during a VMM hold, bad ctrl requests");
