// SPDX-License-Identifier: MIT
/*
 * flush: what a remote TLB flush costs the initiator, per Hyper-V call
 * (FlushVirtualAddress Space, List, SpaceEx, ListEx) and encoding (regular;
 * XMM-fast: none of the four fits the RDX:R8 fast form), against the native
 * way: an IPI to each target whose handler runs INVLPG and acknowledges.
 * For 1..N-1 targets, with the targets halted (IF=1), running (spinning at
 * CPL3, IF=1) and preempted (running, but held out of guest mode by the
 * VMM through MVM_CTRL_PAUSE_VCPU before every call). A hypercall flush
 * need not wait for a target outside guest mode; an IPI must.
 *
 * Up to 64 vCPUs every count 1..N-1 is measured; past 64, the counts are
 * 1, 2, 4 ... N-1, targets past VP 63 go in Ex calls' multi-bank VP sets
 * (the non-Ex calls and XMM-fast sets too big for the registers skip), and
 * each hold grows with the count so that the first target is still held
 * when the last hold begins.
 */
#include <hv/tlfs.h>
#include <minivmm/abi.h>

#include "lib/apic.h"
#include "lib/bench.h"
#include "lib/bench_hv.h"
#include "lib/bench_targets.h"
#include "lib/boot.h"
#include "lib/hvtest.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "suite.h"

#define FLUSH_VECTOR		0x51
/* Each hold; the native flush waits out the rest of it, a hypercall need not. */
#define PREEMPT_US		1000

enum flush_call { NATIVE, SPACE, LIST, SPACE_EX, LIST_EX, NR_CALLS };
enum targets_state { HALTED, RUNNING, PREEMPTED, NR_STATES };

static const struct call_desc {
	const char *name;
	u16 code;
	bool ex, list;
} calls[NR_CALLS] = {
	[NATIVE] = { "native", 0, false, false },
	[SPACE] = { "space", HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, false, false },
	[LIST] = { "list", HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, false, true },
	[SPACE_EX] = { "space-ex", HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, true, false },
	[LIST_EX] = { "list-ex", HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, true, true },
};

static const enum bench_hv_enc encodings[] = { BENCH_HV_REGULAR, BENCH_HV_XMM_FAST };
#define NR_ENCODINGS	ARRAY_SIZE(encodings)
/* Native, each call x encoding, and (preempted) the input build alone. */
#define NR_ROWS		(1 + (NR_CALLS - 1) * NR_ENCODINGS + 1)

static const char *const state_names[NR_STATES] = { "halted", "running", "preempted" };

struct flush_case {
	enum flush_call call;
	enum bench_hv_enc enc;
	u64 mask;		/* the targets: vCPUs 1..k */
	u32 targets;
	bool wide;		/* k > 63: the targets are in vps, not mask */
	u32 hold_us;		/* preempted: each target's hold */
	u32 calls, unheld;	/* preempted: calls, and those without every target surely held */
	u64 chain_max;		/* preempted: longest hold chain (TSC cycles) */
	u32 longest_hold_us;	/* preempted: the longest hold a chain needed */
	u32 hold_shift;		/* preempted: holds are hold_us << this from now on */
	struct hvt_vps vps;
	struct bench_hv_call hcall;	/* prepared by setup(), outside the timed window */
};

/*
 * 200 us more per target: the holds begin one after another, and the first
 * must outlast the requests for the others and the call.
 */
static u32 hold_for(u32 k)
{
	return PREEMPT_US + 200 * k;
}

/* What must be left of every hold when the call begins (the call takes ~0.1 ms here). */
#define HOLD_MARGIN_US		500
#define HOLD_TRIES		3	/* chains a call may try, each with a hold twice as long */
#define HOLD_SHIFT_MAX		6	/* at most 64 times hold_for(k) */

/* The page a List call names and the native handler invalidates. */
static u8 flush_page[4096] __aligned(4096);
static u32 acks;

static void flush_handler(struct trap_frame *tf)
{
	(void)tf;
	asm volatile("invlpg (%0)" : : "r"(flush_page) : "memory");
	atomic_inc(&acks);
}

/* Banks a target walk scans: bank 0, or every bank this VM has (a cpumask's words). */
static u32 walk_banks(const struct flush_case *c)
{
	return c->wide ? MIN(hvt_vm_banks(), (u32)HVT_BANKS) : 1;
}

static const char *native_body(void *arg)
{
	const struct flush_case *c = arg;
	u32 start = READ_ONCE(acks);

	for (u32 b = 0; b < walk_banks(c); b++)
		for (u64 m = c->wide ? c->vps.bank[b] : c->mask; m; m &= m - 1)
			apic_send_ipi(percpu[b * 64 + __builtin_ctzll(m)].apic_id, FLUSH_VECTOR);
	if (!bench_wait_acks(&acks, start, c->targets))
		return "not every target acknowledged within 5 s";
	return NULL;
}

/* The call's input was built by setup(): the timed window holds the call alone. */
static const char *hv_body(void *arg)
{
	const struct flush_case *c = arg;

	if (bench_hv_issue(&c->hcall))
		return "hypercall status is not HV_STATUS_SUCCESS";
	return NULL;
}

/* What a guest does before each such call: build its input (the VP set) from the targets. */
static void prepare(struct flush_case *c)
{
	const struct call_desc *d = &calls[c->call];

	if (c->wide)
		bench_hv_prepare_flush_vps(&c->hcall, d->list, c->enc, &c->vps,
					   (uintptr_t)flush_page);
	else
		bench_hv_prepare_flush(&c->hcall, d->ex, d->list, c->enc, c->mask,
				       (uintptr_t)flush_page);
}

/* The build row: prepare() alone, timed, for the largest input the table's calls take. */
static const char *build_body(void *arg)
{
	prepare(arg);
	return NULL;
}

static const char *flush_setup(void *arg)
{
	struct flush_case *c = arg;
	const struct call_desc *d = &calls[c->call];
	const char *why;

	if (c->call == NATIVE)
		return NULL;
	why = bench_hv_unusable(d->code, c->enc);
	if (!why && c->wide && !d->ex)
		why = "targets past VP 63: the non-Ex call has a 64-bit mask";
	if (!why && c->wide)
		why = bench_hv_vps_unfit(false, d->list, c->enc, &c->vps);
	if (!why)
		prepare(c);
	return why;
}

/* TSC by which every hold asked so far has ended. */
static u64 holds_over;

/*
 * Hold each target once, in a chain started afresh: the previous holds are
 * waited out first. (Asking a target that is still held waits for its hold
 * to end, so chains that overlap drift apart, call after call, until the
 * first target's hold runs out before the last one's begins.) Each hold
 * begins after its request, so every target stays held until at least t0
 * plus the hold; true if the chain left HOLD_MARGIN_US of that for the call.
 */
static bool hold_chain(struct flush_case *c, u32 hold_us)
{
	u64 hold = us_to_cycles(hold_us), t0, t1;

	while (rdtsc() < holds_over)
		cpu_relax();
	t0 = rdtsc();
	for (u32 b = 0; b < walk_banks(c); b++)
		for (u64 m = c->wide ? c->vps.bank[b] : c->mask; m; m &= m - 1)
			bench_vmm_pause(b * 64 + (u32)__builtin_ctzll(m), hold_us);
	t1 = rdtsc();
	holds_over = t1 + hold;
	c->chain_max = MAX(c->chain_max, t1 - t0);
	return t1 + us_to_cycles(HOLD_MARGIN_US) < t0 + hold;
}

/*
 * Untimed, before every preempted call: every target held; counted in
 * unheld if not. A chain the host did not run in time is redone with a
 * hold twice as long (a loaded host can leave a thread off its CPU for
 * milliseconds); only the native row waits out the longer hold. The
 * longer hold sticks for the row's later calls: on an overcommitted host
 * every chain is slow, and retrying each call from the short hold made a
 * preempted table at 8 vCPUs take minutes.
 */
static void preempt_targets(void *arg)
{
	struct flush_case *c = arg;
	bool held = false;

	for (u32 t = 0; t < HOLD_TRIES && !held; t++) {
		u32 hold_us = c->hold_us << c->hold_shift;

		held = hold_chain(c, hold_us);
		c->longest_hold_us = MAX(c->longest_hold_us, hold_us);
		if (!held && c->hold_shift < HOLD_SHIFT_MAX)
			c->hold_shift++;
	}
	c->calls++;
	if (!held)
		c->unheld++;
}

static struct flush_case args[NR_ROWS];
static struct bench_case rows[NR_ROWS];

static void fill_row(u32 i, enum flush_call call, enum bench_hv_enc enc, u32 k,
		     enum targets_state st)
{
	const struct call_desc *d = &calls[call];

	args[i] = (struct flush_case){
		.call = call, .enc = enc, .targets = k, .hold_us = hold_for(k),
		.wide = k > 63,
		.mask = k > 63 ? 0 : ((1ull << k) - 1) << 1,
	};
	if (args[i].wide)
		hvt_vps_range(&args[i].vps, 1, k);
	rows[i] = (struct bench_case){
		.name = calls[call].name,
		.state = state_names[st],
		.variant = call == NATIVE ? "ipi+invlpg" : bench_hv_enc_name(enc),
		.body = call == NATIVE ? native_body : hv_body,
		.setup = flush_setup,
		.prep = st == PREEMPTED ? preempt_targets : NULL,
		.arg = &args[i],
		.targets = k,
		.vmm_kind = call == NATIVE ? MVM_VMM_NONE : MVM_VMM_HCALL,
		.vmm_code = MVM_VMM_HCALL_CODE(d->code, enc),
		.baseline = call == NATIVE ? 0 : BENCH_ROW(0),
	};
}

/*
 * Preempted only: the guest's own part of a flush, building the largest
 * input (ListEx: header, the VP set, one GVA) for the same targets. It is
 * not in the hypercall rows' timed window, so those show what the call
 * costs by itself; this row shows what building the set adds (it grows
 * with the banks the targets span, not with the VMM's work).
 */
static void fill_build_row(u32 i, u32 k)
{
	fill_row(i, LIST_EX, BENCH_HV_REGULAR, k, PREEMPTED);
	rows[i] = (struct bench_case){
		.name = "build", .variant = "list-ex input", .state = state_names[PREEMPTED],
		.body = build_body,
		.arg = &args[i], .targets = k,
	};
}

/*
 * After a preempted table: did every call find all its targets held? The
 * VMM's side of the same question is each target's kicks count (--stats):
 * a flush that finds a target in guest mode kicks it and waits. A chain
 * that cannot be made in time (the host did not run the targets' threads
 * for longer than the hold, HOLD_TRIES times over) is counted and said,
 * not hidden: the medians are over every call.
 */
static void check_holds(const char *what, u32 n, u32 k)
{
	u32 calls = 0, unheld = 0, longest = 0;
	u64 chain = 0;

	for (u32 i = 0; i < n; i++) {
		calls += args[i].calls;
		unheld += args[i].unheld;
		chain = MAX(chain, args[i].chain_max);
		longest = MAX(longest, args[i].longest_hold_us);
	}
	printf("flush: %s: %u of %u calls began with every target held, at least %u us left of "
	       "a %u us hold (%u us at most after retries; holding all took up to %llu us)\n",
	       what, calls - unheld, calls, HOLD_MARGIN_US, hold_for(k), longest,
	       (unsigned long long)(cycles_to_ns(chain) / 1000));
}

static void run_targets(struct bench *b, u32 k, enum targets_state st)
{
	char what[64];
	u32 n = 0;

	fill_row(n++, NATIVE, BENCH_HV_REGULAR, k, st);
	for (u32 c = SPACE; c < NR_CALLS; c++)
		for (u32 e = 0; e < NR_ENCODINGS; e++)
			fill_row(n++, c, encodings[e], k, st);
	if (st == PREEMPTED)
		fill_build_row(n++, k);
	snprintf(what, sizeof(what), "%u target%s %s", k, k == 1 ? "" : "s", state_names[st]);
	bench_run_table(b, rows, n, what);
	if (st == PREEMPTED)
		check_holds(what, n, k);
}

/* Can the VMM hold a vCPU out? One 1 us hold of vCPU 1 tells. */
static bool pause_works(void)
{
	int status = bench_vmm_pause(1, 1);

	if (status)
		report_skip("targets preempted", "MVM_CTRL_PAUSE_VCPU answered %d", status);
	return !status;
}

/* `last`: the highest vCPU that must spin (past 64 vCPUs, just the count's targets). */
static bool enter_state(enum targets_state st, u32 last)
{
	if (st == HALTED)
		return true;
	if (st == PREEMPTED && !pause_works())
		return false;
	if (bench_targets_spin_upto(last))
		return true;
	report_fail(state_names[st], "not every target started spinning at CPL3");
	bench_targets_halt();
	return false;
}

/*
 * Past 64 vCPUs, counts 1, 2, 4 ... N-1; running spins only the count's
 * targets (every spinner is a runnable thread on the host), preempted
 * holds targets that were halted before the hold (a spinner takes a host
 * timeslice to reach its hold, so a hold per target and iteration of
 * spinners left no time for counts past 8 here), and a table longer than
 * the sweep's bench time is the last. Preempted gets a longer bench time:
 * its tables grow with the holds (a table is ~150 calls, each waiting out
 * holds of 1 ms + 200 us per target), not with the host's run queue, and
 * its last count (N-1) is the one the O(1) claim is about.
 */
#define PREEMPTED_TABLE_US	120000000u

static u32 table_limit_us(enum targets_state st)
{
	return st == PREEMPTED ? PREEMPTED_TABLE_US : BENCH_SWEEP_TABLE_US;
}

static void sweep(struct bench *b, enum targets_state st)
{
	if (st == PREEMPTED && !pause_works())
		return;
	for (u32 k = 1; k < boot_nr_cpus; k = bench_targets_next(k)) {
		u64 t0 = rdtsc();

		if (st == RUNNING && !enter_state(st, k))
			return;
		run_targets(b, k, st);
		if (st == RUNNING)
			bench_targets_halt();
		if (rdtsc() - t0 > us_to_cycles(table_limit_us(st)) &&
		    bench_targets_next(k) < boot_nr_cpus) {
			report_skip(state_names[st],
				    "more than %u targets: the %u-target table took over %u s here", k, k,
				    table_limit_us(st) / 1000000);
			return;
		}
	}
}

/* `flush STATE`: only that table; no argument: all three. NR_STATES if STATE is unknown. */
static u32 first_state(const char *arg)
{
	if (!arg)
		return 0;
	for (u32 st = 0; st < NR_STATES; st++)
		if (!strcmp(arg, state_names[st]))
			return st;
	return NR_STATES;
}

static void suite_flush(const char *arg)
{
	u32 first = first_state(arg), end = arg ? first + 1 : NR_STATES;
	struct bench b;

	if (first == NR_STATES) {
		report_fail("command line", "flush: unknown state '%s' (halted, running or preempted)",
			    arg);
		return;
	}
	if (boot_nr_cpus < 2) {
		report_skip("remote TLB flush", "needs at least 2 vCPUs (minivmm --cpus 2)");
		return;
	}
	irq_register(FLUSH_VECTOR, flush_handler);
	bench_init(&b, "flush");
	for (u32 st = first; st < end; st++) {
		if (boot_nr_cpus > 64) {
			sweep(&b, st);
			continue;
		}
		if (!enter_state(st, boot_nr_cpus - 1))
			continue;
		for (u32 k = 1; k < boot_nr_cpus;
		     k = boot_nr_cpus > 64 ? bench_targets_next(k) : k + 1)
			run_targets(&b, k, st);
		if (st != HALTED)
			bench_targets_halt();
	}
	irq_unregister(FLUSH_VECTOR);
}

DEFINE_SUITE(52, suite_flush, "flush", false, "STATE",
	     "remote TLB flush per Hyper-V call x encoding vs IPI+INVLPG, 1..N-1 targets "
	     "halted, running, preempted (STATE: that one only)");
