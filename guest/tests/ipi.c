// SPDX-License-Identifier: MIT
/*
 * ipi: the cost of an IPI as the sender sees it, after Linux's
 * ipi_benchmark: a dry run (the send path, delivering nothing), a self-IPI,
 * a normal IPI to one receiver and a broadcast to every other vCPU, each a
 * round trip (the receivers' handler acknowledges through shared memory),
 * and a broadcast whose handler takes a lock. Every kind goes through each
 * send path: the x2APIC ICR (in KVM) and the Hyper-V calls (in minivmm) in
 * every encoding they allow, compared with the ICR row. Receivers are
 * halted with IF=1, then spinning at CPL3 with IF=1. The sender runs at
 * CPL0: ICR writes and hypercalls need it.
 *
 * Past 64 vCPUs the broadcast reaches all N-1 others (the non-Ex calls,
 * limited to VPs 0-63, skip it), and multicast tables add 1, 2, 4 ... N-1
 * targets (vCPUs 1..k) per send path: the cost against target count.
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
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "suite.h"

#define IPI_VECTOR		0x50
#define NO_SUCH_APIC_ID		0xff00	/* x2APIC physical ID nobody has */

enum ipi_kind { DRY_RUN, SELF, NORMAL, BROADCAST, BROADCAST_LOCK, NR_KINDS };
enum send_path { X2APIC, HV_REGULAR, HV_FAST, HVEX_REGULAR, HVEX_XMM, NR_PATHS };
enum receivers { HALTED, SPINNING, NR_RECEIVERS };

static const char *const kind_names[NR_KINDS] = {
	"dry-run", "self", "normal", "broadcast", "broadcast-lock",
};

static const char *const receiver_names[NR_RECEIVERS] = { "halted", "spin-cpl3" };

static const struct send_path_desc {
	const char *name;
	u16 code;		/* 0: not a hypercall */
	enum bench_hv_enc enc;
} paths[NR_PATHS] = {
	[X2APIC] = { "x2apic", 0, 0 },
	[HV_REGULAR] = { "regular", HVCALL_SEND_IPI, BENCH_HV_REGULAR },
	[HV_FAST] = { "fast", HVCALL_SEND_IPI, BENCH_HV_FAST },
	[HVEX_REGULAR] = { "ex-regular", HVCALL_SEND_IPI_EX, BENCH_HV_REGULAR },
	[HVEX_XMM] = { "ex-xmm-fast", HVCALL_SEND_IPI_EX, BENCH_HV_XMM_FAST },
};

struct ipi_case {
	enum ipi_kind kind;
	enum send_path path;
	u64 mask;		/* destination vCPUs; 0 for the dry run */
	u32 want;		/* acknowledgements per send */
	bool wide;		/* targets past VP 63: in vps, not mask */
	struct hvt_vps vps;
	struct bench_hv_call call;	/* prepared by setup(), outside the timed window */
};

static u32 acks;
static bool ack_locked;
static struct spinlock ack_lock;

static void ipi_handler(struct trap_frame *tf)
{
	(void)tf;
	if (!READ_ONCE(ack_locked)) {
		atomic_inc(&acks);
		return;
	}
	spin_lock(&ack_lock);
	WRITE_ONCE(acks, acks + 1);
	spin_unlock(&ack_lock);
}

/* Physical destination mode, one ICR write per receiver (as Linux's x2apic_phys). */
static void send_x2apic(u64 mask)
{
	if (!mask)
		apic_send_ipi(NO_SUCH_APIC_ID, IPI_VECTOR);
	for (; mask; mask &= mask - 1)
		apic_send_ipi(percpu[__builtin_ctzll(mask)].apic_id, IPI_VECTOR);
}

/* The same for a set past VP 63, bank by bank over the banks this VM has. */
static void send_x2apic_vps(const struct hvt_vps *s)
{
	for (u32 b = 0; b < MIN(hvt_vm_banks(), (u32)HVT_BANKS); b++)
		for (u64 m = s->bank[b]; m; m &= m - 1)
			apic_send_ipi(percpu[b * 64 + __builtin_ctzll(m)].apic_id, IPI_VECTOR);
}

static const char *ipi_body(void *arg)
{
	const struct ipi_case *c = arg;
	const struct send_path_desc *p = &paths[c->path];
	u32 start = READ_ONCE(acks);

	if (c->wide && !p->code)
		send_x2apic_vps(&c->vps);
	else if (!p->code)
		send_x2apic(c->mask);
	else if (bench_hv_issue(&c->call))
		return "hypercall status is not HV_STATUS_SUCCESS";
	if (!bench_wait_acks(&acks, start, c->want))
		return "not every receiver acknowledged within 5 s";
	return NULL;
}

/* Builds the call's input here, so the timed body is the call alone (as vmexit's null call). */
static const char *ipi_setup(void *arg)
{
	struct ipi_case *c = arg;
	const struct send_path_desc *p = &paths[c->path];
	const char *why;

	WRITE_ONCE(ack_locked, c->kind == BROADCAST_LOCK);
	if (!p->code)
		return NULL;
	why = bench_hv_unusable(p->code, p->enc);
	if (!why && c->wide && p->code != HVCALL_SEND_IPI_EX)
		why = "targets past VP 63: the non-Ex call has a 64-bit mask";
	if (!why && c->wide)
		why = bench_hv_vps_unfit(true, false, p->enc, &c->vps);
	if (why)
		return why;
	if (c->wide)
		bench_hv_prepare_ipi_vps(&c->call, p->enc, IPI_VECTOR, &c->vps);
	else
		bench_hv_prepare_ipi(&c->call, p->code == HVCALL_SEND_IPI_EX, p->enc, IPI_VECTOR,
				     c->mask);
	return NULL;
}

static u64 kind_mask(enum ipi_kind kind)
{
	u64 all = boot_nr_cpus >= 64 ? ~0ull : (1ull << boot_nr_cpus) - 1;

	switch (kind) {
	case DRY_RUN:
		return 0;
	case SELF:
		return 1ull << smp_id();
	case NORMAL:
		return 1ull << (smp_id() ? 0 : 1);
	default:
		return all & ~(1ull << smp_id());
	}
}

/* No popcnt in the freestanding build (libgcc's helper is not linked). */
static u32 count_bits(u64 mask)
{
	u32 n = 0;

	for (; mask; mask &= mask - 1)
		n++;
	return n;
}

/* Targets vCPUs first..last other than the sender, as a mask when all are below 64. */
static void set_targets(struct ipi_case *c, u32 first, u32 last)
{
	memset(&c->vps, 0, sizeof(c->vps));
	hvt_vps_range(&c->vps, first, last);
	if (smp_id() < GUEST_MAX_VCPUS)
		c->vps.bank[smp_id() / 64] &= ~(1ull << (smp_id() % 64));
	c->want = hvt_vps_count(&c->vps);
	c->wide = hvt_vps_valid_banks(&c->vps) > 1;
	c->mask = c->wide ? 0 : c->vps.bank[0];
}

static struct ipi_case args[NR_KINDS][NR_PATHS];
static struct bench_case rows[NR_KINDS * NR_PATHS];

/* `state`: the receivers' ("halted", "spin-cpl3"), or NULL when there are none. */
static void fill_row(struct bench_case *row, struct ipi_case *c, const char *name,
		     const char *state, u32 base)
{
	const struct send_path_desc *p = &paths[c->path];

	*row = (struct bench_case){
		.name = name,
		.variant = p->name,
		.state = state,
		.body = ipi_body,
		.setup = ipi_setup,
		.arg = c,
		.flags = c->kind == SELF ? BENCH_IRQS_ON : 0,	/* the sender takes it */
		.targets = c->want,
		.vmm_kind = p->code ? MVM_VMM_HCALL : MVM_VMM_NONE,
		.vmm_code = MVM_VMM_HCALL_CODE(p->code, p->enc),
		.baseline = c->path == X2APIC ? 0 : base,
	};
}

/* Dry runs and self-IPIs involve no receiver: measured once, with receivers halted. */
static u32 build_rows(enum receivers rx)
{
	u32 n = 0;

	for (u32 k = 0; k < NR_KINDS; k++) {
		bool has_receivers = k != DRY_RUN && k != SELF;
		u32 base = BENCH_ROW(n);

		if (rx != HALTED && !has_receivers)
			continue;
		for (u32 p = 0; p < NR_PATHS; p++) {
			u64 mask = kind_mask(k);

			args[k][p] = (struct ipi_case){
				.kind = k, .path = p, .mask = mask,
				.want = count_bits(mask),
			};
			if (boot_nr_cpus > 64 && k >= BROADCAST)
				set_targets(&args[k][p], 0, boot_nr_cpus - 1);
			fill_row(&rows[n++], &args[k][p], kind_names[k],
				 has_receivers ? receiver_names[rx] : NULL, base);
		}
	}
	return n;
}

/* Past 64 vCPUs: vCPUs 1..k for k = 1, 2, 4 ... and N-1, one table each. */
static struct ipi_case multi_args[NR_PATHS];
static char multi_what[MVM_RESULT_NAME_MAX];	/* "multicast, halted": reports */

static void run_multicast(struct bench *b, enum receivers rx)
{
	char what[64];

	snprintf(multi_what, sizeof(multi_what), "multicast, %s", receiver_names[rx]);
	for (u32 k = 1; k < boot_nr_cpus; k = bench_targets_next(k)) {
		u64 t0 = rdtsc();

		if (rx == SPINNING && !bench_targets_spin_upto(k)) {
			report_fail(multi_what, "not every one of %u receivers started spinning", k);
			bench_targets_halt();
			return;
		}
		for (u32 p = 0; p < NR_PATHS; p++) {
			multi_args[p] = (struct ipi_case){ .kind = NORMAL, .path = p };
			set_targets(&multi_args[p], 1, k);
			fill_row(&rows[p], &multi_args[p], "multicast", receiver_names[rx],
				 BENCH_ROW(0));
		}
		snprintf(what, sizeof(what), "multicast to %u vCPUs, %s", k, receiver_names[rx]);
		bench_run_table(b, rows, NR_PATHS, what);
		if (rx == SPINNING)
			bench_targets_halt();
		if (bench_targets_over(t0) && bench_targets_next(k) < boot_nr_cpus) {
			report_skip(multi_what,
				    "more than %u targets: the %u-target table took over %u s here", k, k,
				    BENCH_SWEEP_TABLE_US / 1000000);
			return;
		}
	}
}

static void suite_ipi(const char *arg)
{
	struct bench b;

	(void)arg;
	if (boot_nr_cpus < 2) {
		report_skip("IPI round trips", "needs at least 2 vCPUs (minivmm --cpus 2)");
		return;
	}
	irq_register(IPI_VECTOR, ipi_handler);
	bench_init(&b, "ipi");
	bench_run_table(&b, rows, build_rows(HALTED), "receivers halted (IF=1)");
	if (boot_nr_cpus > 64) {
		/* Every other vCPU spinning is as many runnable threads: per count instead. */
		run_multicast(&b, HALTED);
		report_skip("receivers spinning at CPL3, all kinds",
			    "past 64 vCPUs measured per target count: multicast, spin-cpl3");
		run_multicast(&b, SPINNING);
	} else if (bench_targets_spin())
		bench_run_table(&b, rows, build_rows(SPINNING),
				"receivers spinning at CPL3 (IF=1)");
	else
		report_fail("receivers spinning at CPL3", "not every vCPU started spinning");
	bench_targets_halt();
	WRITE_ONCE(ack_locked, false);
	irq_unregister(IPI_VECTOR);
}

DEFINE_SUITE(51, suite_ipi, "ipi", false, NULL,
	     "IPI cost per send path (x2APIC, Hyper-V calls): dry, self, one, all, all+lock");
