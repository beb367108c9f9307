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
#define NR_ROWS		(1 + (NR_CALLS - 1) * NR_ENCODINGS)

static const char *const state_names[NR_STATES] = { "halted", "running", "preempted" };

struct flush_case {
	enum flush_call call;
	enum bench_hv_enc enc;
	u64 mask;		/* the targets: vCPUs 1..k */
	u32 targets;
	bool wide;		/* k > 63: the targets are in vps, not mask */
	u32 hold_us;		/* preempted: each target's hold */
	struct hvt_vps vps;
};

/*
 * Past 64 vCPUs, 200 us more per target: the holds begin one after another,
 * and the first must outlast the requests for the others.
 */
static u32 hold_for(u32 k)
{
	return boot_nr_cpus <= 64 ? PREEMPT_US : PREEMPT_US + 200 * k;
}

/* The page a List call names and the native handler invalidates. */
static u8 flush_page[4096] __aligned(4096);
static u32 acks;

static void flush_handler(struct trap_frame *tf)
{
	(void)tf;
	asm volatile("invlpg (%0)" : : "r"(flush_page) : "memory");
	atomic_inc(&acks);
}

static const char *native_body(void *arg)
{
	const struct flush_case *c = arg;
	u32 start = READ_ONCE(acks);

	for (u32 b = 0; b < (c->wide ? HVT_BANKS : 1); b++)
		for (u64 m = c->wide ? c->vps.bank[b] : c->mask; m; m &= m - 1)
			apic_send_ipi(percpu[b * 64 + __builtin_ctzll(m)].apic_id, FLUSH_VECTOR);
	if (!bench_wait_acks(&acks, start, c->targets))
		return "not every target acknowledged within 5 s";
	return NULL;
}

static const char *hv_body(void *arg)
{
	const struct flush_case *c = arg;
	const struct call_desc *d = &calls[c->call];

	if (c->wide ? bench_hv_flush_vps(d->list, c->enc, &c->vps, (uintptr_t)flush_page) :
		      bench_hv_flush(d->ex, d->list, c->enc, c->mask, (uintptr_t)flush_page))
		return "hypercall status is not HV_STATUS_SUCCESS";
	return NULL;
}

static const char *flush_setup(void *arg)
{
	const struct flush_case *c = arg;
	const struct call_desc *d = &calls[c->call];
	const char *why;

	if (c->call == NATIVE)
		return NULL;
	why = bench_hv_unusable(d->code, c->enc);
	if (why || !c->wide)
		return why;
	if (!d->ex)
		return "targets past VP 63: the non-Ex call has a 64-bit mask";
	return bench_hv_vps_unfit(false, d->list, c->enc, &c->vps);
}

/* Untimed: hold every target out of guest mode; returns once all holds have begun. */
static void preempt_targets(void *arg)
{
	const struct flush_case *c = arg;

	for (u32 b = 0; b < (c->wide ? HVT_BANKS : 1); b++)
		for (u64 m = c->wide ? c->vps.bank[b] : c->mask; m; m &= m - 1)
			bench_vmm_pause(b * 64 + (u32)__builtin_ctzll(m), c->hold_us);
}

static struct flush_case args[NR_ROWS];
static char names[NR_CALLS][MVM_RESULT_NAME_MAX];
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
		.name = names[call],
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

static void run_targets(struct bench *b, u32 k, enum targets_state st)
{
	char what[64];
	u32 n = 0;

	for (u32 c = 0; c < NR_CALLS; c++)
		snprintf(names[c], sizeof(names[c]), "%s@%s", calls[c].name, state_names[st]);
	fill_row(n++, NATIVE, BENCH_HV_REGULAR, k, st);
	for (u32 c = SPACE; c < NR_CALLS; c++)
		for (u32 e = 0; e < NR_ENCODINGS; e++)
			fill_row(n++, c, encodings[e], k, st);
	snprintf(what, sizeof(what), "%u target%s %s", k, k == 1 ? "" : "s", state_names[st]);
	bench_run_table(b, rows, n, what);
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
 * the sweep's bench time is the last.
 */
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
		if (bench_targets_over(t0) && bench_targets_next(k) < boot_nr_cpus) {
			report_skip(state_names[st],
				    "more than %u targets: the %u-target table took over %u s here", k, k,
				    BENCH_SWEEP_TABLE_US / 1000000);
			return;
		}
	}
}

static void suite_flush(const char *arg)
{
	struct bench b;

	(void)arg;
	if (boot_nr_cpus < 2) {
		report_skip("remote TLB flush", "needs at least 2 vCPUs (minivmm --cpus 2)");
		return;
	}
	irq_register(FLUSH_VECTOR, flush_handler);
	bench_init(&b, "flush");
	for (u32 st = 0; st < NR_STATES; st++) {
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

DEFINE_SUITE(52, suite_flush, "flush", false, NULL,
	     "remote TLB flush per Hyper-V call x encoding vs IPI+INVLPG, 1..N-1 targets");
