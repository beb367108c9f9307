// SPDX-License-Identifier: MIT
/*
 * hv-flush: when a flush call returns, no target may still use a
 * translation cached before it (TLFS sender guarantee).
 *
 * A test GVA above the identity map is mapped by a 4 KiB PTE in tables of
 * our own (lib/paging.c) to the "old" page. Workers on the target vCPUs
 * read it in a loop at CPL3, so their TLBs hold the translation. The
 * sender, also at CPL3 (on kvm_pvm CPL0 is emulated and would not leave a
 * stale entry to find), points the PTE at the "new" page without INVLPG,
 * makes the flush call at CPL0, then raises `go`; each worker must now read
 * the new page. A target that still reads the old one is a missed flush.
 *
 * The negative control does the same swap without the call: at least one
 * worker must read the old page, else stale translations cannot be seen on
 * this host and the flush cases are skipped rather than passed vacuously.
 * Coordination is shared memory polled at CPL3, with TSC deadlines: no
 * interrupts reach the workers while they measure.
 *
 * At most FL_MAX_WORKERS targets read at once, picked across the call's
 * set (its first, middle and last VP other than the sender): with
 * hundreds of vCPUs on a few host CPUs, every target spinning would keep
 * most of them off a CPU for longer than any deadline, and a worker that
 * is not running holds no translation to find. The other targets are
 * named in the call all the same (so every bank, hole and the last bank is
 * decoded and flushed) but sit halted.
 */
#include "lib/boot.h"
#include "lib/hvtest.h"
#include "lib/paging.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "suite.h"

#define FLUSH_GVA		(4ull << 30)	/* first GVA the identity map lacks */
#define PAT_OLD			0x01d01d01d01d01d0ull
#define PAT_NEW			0x0e20e20e20e20e20ull
#define FL_WAIT_US		5000000		/* nested TCG is slow: be generous */
#define FL_CHECK_READS		256
#define FL_CONTROL_ROUNDS	32
#define FL_RUNNING_US		100		/* a running worker reads far faster */
#define FL_RUNNING_TRY_US	20000
#define FL_MAX_WORKERS		3

enum fl_state { FL_IDLE, FL_READY, FL_DONE, FL_BAD_START, FL_TIMEOUT };

static const char *const fl_state_names[] = {
	"never started", "stuck before go", "done", "did not read the old page first",
	"timed out waiting for go",
};

/* One per vCPU, each on its own cache line. */
struct fl_slot {
	u32 state;
	u32 stale;	/* reads of the old page after go */
	u32 other;	/* reads of neither page after go */
	u64 first;	/* the first value read after go */
	u32 beat;	/* bumped every read before go: "running right now" */
} __aligned(64);

static u64 page_old[PAGE_SIZE / 8] __aligned(PAGE_SIZE);
static u64 page_new[PAGE_SIZE / 8] __aligned(PAGE_SIZE);
static struct fl_slot slots[GUEST_MAX_VCPUS];
static u64 *test_pte;
static u64 pte_old, pte_new;
static u32 fl_go;

/* ---- the workers (target vCPUs other than the sender) ---- */

static void fl_check_reads(struct fl_slot *s, const volatile u64 *p)
{
	s->first = *p;
	for (u32 i = 0; i < FL_CHECK_READS; i++) {
		u64 v = i ? *p : s->first;

		if (v == PAT_OLD)
			s->stale++;
		else if (v != PAT_NEW)
			s->other++;
	}
}

static u64 fl_worker_user(void *arg)
{
	struct fl_slot *s = &slots[smp_id()];
	const volatile u64 *p = (const volatile u64 *)FLUSH_GVA;
	u64 end = tsc_deadline(FL_WAIT_US);

	(void)arg;
	s->first = *p;
	if (s->first != PAT_OLD) {
		store_release(&s->state, FL_BAD_START);
		return 0;
	}
	store_release(&s->state, FL_READY);
	while (!load_acquire(&fl_go)) {
		(void)*p;	/* keep the translation hot */
		WRITE_ONCE(s->beat, s->beat + 1);
		if (rdtsc() > end) {
			store_release(&s->state, FL_TIMEOUT);
			return 0;
		}
	}
	fl_check_reads(s, p);
	store_release(&s->state, FL_DONE);
	return 0;
}

/* Start from a clean TLB entry for the GVA, then read at CPL3. */
static void fl_worker(void *arg)
{
	(void)arg;
	invlpg(FLUSH_GVA);
	run_user(fl_worker_user, NULL, RUN_USER_IRQS_OFF);
}

/* ---- the sender (vCPU 0) ---- */

struct fl_run {
	u32 workers[FL_MAX_WORKERS];	/* vCPUs that read the GVA (never the sender) */
	u32 nr_workers;
	bool self;		/* the sender is a target: check its own read */
	bool flush;		/* false: the negative control */
	enum hvt_enc enc;
	u64 control;
	struct hvt_in in;
	u64 rax;		/* out: the call's result */
	u64 self_seen;		/* out: the sender's read after the call */
};

static bool workers_reached(const struct fl_run *r, enum fl_state at_least)
{
	for (u32 i = 0; i < r->nr_workers; i++)
		if (load_acquire(&slots[r->workers[i]].state) < at_least)
			return false;
	return true;
}

static void fl_start_workers(const struct fl_run *r)
{
	WRITE_ONCE(fl_go, 0);
	WRITE_ONCE(*test_pte, pte_old);
	invlpg(FLUSH_GVA);
	for (u32 i = 0; i < r->nr_workers; i++) {
		u32 cpu = r->workers[i];

		memset(&slots[cpu], 0, sizeof(slots[cpu]));
		smp_call(cpu, fl_worker, NULL, false);
	}
	wait_until(workers_reached(r, FL_READY), FL_WAIT_US);
}

/* Its counter moved while we watched, and we were not away meanwhile. */
static bool fl_seen_running(const struct fl_slot *s)
{
	u64 t0 = rdtsc(), limit = us_to_cycles(FL_RUNNING_US);
	u32 beat = READ_ONCE(s->beat);

	while (rdtsc() - t0 < limit)
		if (READ_ONCE(s->beat) != beat)
			return rdtsc() - t0 < limit;
	return false;
}

static void fl_wait_running(const struct fl_slot *s)
{
	u64 end = tsc_deadline(FL_RUNNING_TRY_US);

	while (!fl_seen_running(s) && rdtsc() < end)
		;
}

/*
 * Swap only while every worker is seen running: under nested TCG a worker
 * that was descheduled comes back with a host timer interrupt pending, and
 * the exit that causes empties QEMU's TLB, hiding any stale entry. Its
 * read counter must move within FL_RUNNING_US of our looking, which a
 * worker sharing a host CPU with us cannot do; give up after a while.
 */
static void fl_wait_workers_running(const struct fl_run *r)
{
	for (u32 i = 0; i < r->nr_workers; i++)
		fl_wait_running(&slots[r->workers[i]]);
}

/*
 * CPL3: cache the old translation here too, then swap the PTE, no INVLPG.
 * Without a call to make (the control) raise `go` at once: the shorter
 * the window, the less else can flush the workers' TLBs.
 */
static u64 fl_swap_user(void *arg)
{
	const struct fl_run *r = arg;

	(void)READ_ONCE(*(volatile u64 *)FLUSH_GVA);
	fl_wait_workers_running(r);
	WRITE_ONCE(*test_pte, pte_new);
	if (!r->flush)
		store_release(&fl_go, 1);
	return 0;
}

static u64 fl_read_user(void *arg)
{
	(void)arg;
	return READ_ONCE(*(volatile u64 *)FLUSH_GVA);
}

static void fl_run(struct fl_run *r)
{
	fl_start_workers(r);
	run_user(fl_swap_user, r, RUN_USER_IRQS_OFF);
	if (r->flush)
		r->rax = hvt_call(r->enc, r->control, &r->in);
	if (r->self)
		r->self_seen = run_user(fl_read_user, NULL, RUN_USER_IRQS_OFF);
	store_release(&fl_go, 1);
	wait_until(workers_reached(r, FL_DONE), FL_WAIT_US);
}

static bool worker_ok(u32 cpu, char *why, size_t len)
{
	const struct fl_slot *s = &slots[cpu];
	u32 state = load_acquire(&s->state);

	if (state != FL_DONE) {
		snprintf(why, len, "vCPU %u %s (read 0x%lx)", cpu, fl_state_names[state], s->first);
		return false;
	}
	if (s->stale || s->other) {
		snprintf(why, len, "vCPU %u read the old page %u times, neither page %u "
			 "times after the call returned (first 0x%lx)", cpu, s->stale, s->other,
			 s->first);
		return false;
	}
	return true;
}

static bool fl_verdict(const struct fl_run *r, u64 want_rax, char *why, size_t len)
{
	if (r->rax != want_rax) {
		snprintf(why, len, "result 0x%lx, expected 0x%lx", r->rax, want_rax);
		return false;
	}
	for (u32 i = 0; i < r->nr_workers; i++)
		if (!worker_ok(r->workers[i], why, len))
			return false;
	if (r->self && r->self_seen != PAT_NEW) {
		snprintf(why, len, "the sender, a target, still read 0x%lx", r->self_seen);
		return false;
	}
	return true;
}

/* ---- the cases ---- */

enum fl_who {
	WHO_OTHERS,		/* mask/set of every VP but the sender */
	WHO_ALL_PROCS,		/* HV_FLUSH_ALL_PROCESSORS, the sender included */
	WHO_ONE,		/* the last VP */
	WHO_TWO,		/* VP 1 and the last VP */
	WHO_SET_ALL,		/* HV_GENERIC_SET_ALL, the sender included */
	WHO_BANK1,		/* a VP in bank 1 (64..127) */
	WHO_EACH_BANK,		/* one VP in every bank */
	WHO_HOLES,		/* first and last VP of every other bank */
	WHO_LAST_BANK,		/* first and last VP of the last bank */
};

struct fl_case {
	u16 code;
	enum fl_who who;
};

static const struct fl_case fl_cases[] = {
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, WHO_OTHERS },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, WHO_ALL_PROCS },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, WHO_OTHERS },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, WHO_ALL_PROCS },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_ONE },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_TWO },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_SET_ALL },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_BANK1 },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_EACH_BANK },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_HOLES },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, WHO_LAST_BANK },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_ONE },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_TWO },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_SET_ALL },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_BANK1 },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_EACH_BANK },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_HOLES },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_LAST_BANK },
};

/*
 * XMM-fast FlushEx input: address space, flags and the set's two header
 * qwords, a GVA entry for List: what is left of 14 qwords is for banks.
 */
#define XMM_FLUSH_BANKS(list)	(HVT_XMM_QWORDS - 4 - ((list) ? 1 : 0))

static const char *call_name(u16 code)
{
	switch (code) {
	case HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE: return "FlushVirtualAddressSpace";
	case HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST: return "FlushVirtualAddressList";
	case HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX: return "FlushVirtualAddressSpaceEx";
	default: return "FlushVirtualAddressListEx";
	}
}

static bool is_list(u16 code)
{
	return code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST ||
	       code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
}

static bool is_ex(u16 code)
{
	return code == HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX ||
	       code == HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
}

/*
 * The target VPs of a case (a non-Ex mask stops at VP 63) and a
 * description for its name; NULL, or why it cannot run here.
 */
static const char *who_targets(const struct fl_case *c, enum hvt_enc enc, struct hvt_vps *t,
			       char *what, size_t len)
{
	u32 mask_last = is_ex(c->code) ? boot_nr_cpus - 1 : MIN(boot_nr_cpus - 1, 63u);
	u32 last = boot_nr_cpus - 1;
	char vps[64];

	memset(t, 0, sizeof(*t));
	switch (c->who) {
	case WHO_OTHERS:
		snprintf(what, len, "mask of VPs 1..%u", mask_last);
		hvt_vps_range(t, 1, mask_last);
		return NULL;
	case WHO_ALL_PROCS:
	case WHO_SET_ALL:
		snprintf(what, len, "%s (sender included)",
			 c->who == WHO_SET_ALL ? "SET_ALL" : "ALL_PROCESSORS");
		hvt_vps_range(t, 0, last);
		return NULL;
	case WHO_ONE:
		snprintf(what, len, "VP %u (bank %u)", last, last / 64);
		hvt_vps_add(t, last);
		return NULL;
	case WHO_TWO:
		snprintf(what, len, boot_nr_cpus < 3 ? "two VPs" : "VPs 1 and %u", last);
		hvt_vps_add(t, 1);
		hvt_vps_add(t, last);
		return boot_nr_cpus < 3 ? "needs 3 vCPUs (sender plus two workers)" : NULL;
	case WHO_BANK1:
		if (boot_nr_cpus <= 64) {
			snprintf(what, len, "a VP in bank 1");
			return "no VP index is in bank 1 (64..127) with at most 64 vCPUs";
		}
		hvt_vps_add(t, MIN(64 + 37, last));
		snprintf(what, len, "VP %u (bank 1)", MIN(64 + 37, last));
		return NULL;
	case WHO_EACH_BANK:
		for (u32 b = 0; b < hvt_vm_banks(); b++)
			hvt_vps_add(t, 64 * b + (b * 7 + 1) % MIN(64u, boot_nr_cpus - 64 * b));
		break;
	case WHO_HOLES:
		for (u32 b = 0; b < hvt_vm_banks(); b += 2) {
			hvt_vps_add(t, 64 * b);
			hvt_vps_add(t, MIN(64 * b + 63, last));
		}
		break;
	case WHO_LAST_BANK:
		hvt_vps_add(t, (last / 64) * 64);
		hvt_vps_add(t, last);
		break;
	}
	if (enc == HVT_XMM)
		hvt_vps_fit_banks(t, XMM_FLUSH_BANKS(is_list(c->code)));
	hvt_vps_describe(t, vps, sizeof(vps));
	snprintf(what, len, "%s: VPs %s in %u banks",
		 c->who == WHO_EACH_BANK ? "a VP in each bank" :
		 c->who == WHO_HOLES ? "every other bank" : "the last bank", vps, hvt_vps_nr_banks(t));
	if (c->who == WHO_HOLES && hvt_vm_banks() < 3) {
		snprintf(what, len, "every other bank");
		return "needs 3 banks (more than 128 vCPUs) for a hole between two";
	}
	return NULL;
}

/* Workers: the first, middle and last target other than the sender. */
static void pick_workers(const struct hvt_vps *t, struct fl_run *r)
{
	u32 seen = 0, total = hvt_vps_count(t) - (hvt_vps_has(t, 0) ? 1 : 0);

	r->nr_workers = 0;
	for (u32 vp = 1; vp < boot_nr_cpus && r->nr_workers < FL_MAX_WORKERS; vp++) {
		if (!hvt_vps_has(t, vp))
			continue;
		if (seen == 0 || seen == total / 2 || seen == total - 1)
			r->workers[r->nr_workers++] = vp;
		seen++;
	}
}

/* Input block and RCX; a List call names the test page in its one GVA entry. */
static void build_call(const struct fl_case *c, const struct hvt_vps *t, struct fl_run *r)
{
	u64 flags = c->who == WHO_ALL_PROCS ? HV_FLUSH_ALL_PROCESSORS : 0;
	u32 banks = 0;

	r->in.n = 0;
	hvt_put(&r->in, read_cr3());
	hvt_put(&r->in, flags);
	if (!is_ex(c->code))
		hvt_put(&r->in, c->who == WHO_ALL_PROCS ? 0 : t->bank[0]);
	else if (c->who == WHO_SET_ALL)
		banks = hvt_put_vpset(&r->in, HV_GENERIC_SET_ALL, 0, NULL);
	else
		banks = hvt_put_vps(&r->in, t);
	if (is_list(c->code))
		hvt_put(&r->in, FLUSH_GVA);	/* this page, no additional pages */
	r->control = hvt_control(c->code, banks, is_list(c->code) ? 1 : 0, 0);
}

static void run_case(const struct fl_case *c, enum hvt_enc enc)
{
	struct fl_run r = { .flush = true, .enc = enc };
	char name[160], what[96], why[160] = "";
	struct hvt_vps targets;
	const char *skip = who_targets(c, enc, &targets, what, sizeof(what));

	snprintf(name, sizeof(name), "%s %s, %s%s: no target reads the old page",
		 call_name(c->code), hvt_enc_name(enc), what,
		 is_list(c->code) ? ", GVA entry = the test page" : "");
	if (skip) {
		report_skip(name, "%s", skip);
		return;
	}
	build_call(c, &targets, &r);
	pick_workers(&targets, &r);
	r.self = hvt_vps_has(&targets, 0);
	fl_run(&r);
	report_why(fl_verdict(&r, is_list(c->code) ? 1ull << HV_HCALL_RESULT_REPS_SHIFT : 0,
			      why, sizeof(why)), name, "%s", why);
}

/* ---- set-up and the negative control ---- */

static bool fl_setup(void)
{
	u64 seen;

	for (u32 i = 0; i < ARRAY_SIZE(page_old); i++) {
		page_old[i] = PAT_OLD;
		page_new[i] = PAT_NEW;
	}
	test_pte = paging_map_4k(FLUSH_GVA, (uintptr_t)page_old, PTE_USER);
	if (!test_pte) {
		report_fail("flush test page", "cannot map GVA 0x%llx with a 4 KiB PTE", FLUSH_GVA);
		return false;
	}
	pte_old = *test_pte;
	pte_new = ((uintptr_t)page_new & PTE_ADDR_MASK) | PTE_USER | PTE_PRESENT;
	invlpg(FLUSH_GVA);
	seen = run_user(fl_read_user, NULL, RUN_USER_IRQS_OFF);
	return report_why(seen == PAT_OLD, "flush test GVA 4 GiB: own 4 KiB PTE, read at CPL3",
			  "read 0x%lx", seen);
}

static u32 stale_workers(const struct fl_run *r)
{
	u32 stale = 0;

	for (u32 i = 0; i < r->nr_workers; i++)
		if (slots[r->workers[i]].state == FL_DONE && slots[r->workers[i]].stale)
			stale++;
	return stale;
}

static bool fl_machinery_ok(const struct fl_run *r, char *why, size_t len)
{
	for (u32 i = 0; i < r->nr_workers; i++) {
		u32 cpu = r->workers[i], state = load_acquire(&slots[cpu].state);

		if (state != FL_DONE) {
			snprintf(why, len, "vCPU %u %s", cpu, fl_state_names[state]);
			return false;
		}
	}
	return true;
}

/*
 * True when a stale read was seen: only then can the cases fail for real.
 * One worker a round, taking turns, so that a loaded host has to run only
 * two vCPUs at once for the stale entry to survive until it is read. The
 * turns stride across all the vCPUs, so with many the workers come from
 * every bank, the last VP first.
 */
static bool fl_negative_control(void)
{
	struct fl_run r = { .flush = false, .nr_workers = 1 };
	u32 others = boot_nr_cpus - 1;
	u32 stride = others > FL_CONTROL_ROUNDS ? others / FL_CONTROL_ROUNDS : 1;
	char why[96] = "";

	for (u32 round = 0; round < FL_CONTROL_ROUNDS; round++) {
		u32 worker = others - (round * stride) % others;

		r.workers[0] = worker;
		fl_run(&r);
		if (!fl_machinery_ok(&r, why, sizeof(why))) {
			report_fail("negative control (PTE swap, no flush)", "%s", why);
			return false;
		}
		if (stale_workers(&r)) {
			report_pass("negative control: without a flush, worker vCPU %u read "
				    "the old page %u times (round %u)", worker,
				    slots[worker].stale, round + 1);
			return true;
		}
	}
	report_skip("flush cases", "stale translations not observable here: the flush test "
		    "would pass vacuously (%u control rounds, no stale read)", FL_CONTROL_ROUNDS);
	return false;
}

static void run_cases(enum hvt_enc enc)
{
	if (enc == HVT_XMM && !hvt_xmm_offered()) {
		report_skip("flush cases, XMM-fast", "XMM input not advertised");
		return;
	}
	for (u32 i = 0; i < ARRAY_SIZE(fl_cases); i++)
		run_case(&fl_cases[i], enc);
}

void hv_flush_part(void)
{
	if (!hvt_ready())
		return;
	if (boot_nr_cpus < 2) {
		report_skip("Hyper-V TLB flush", "needs 2 vCPUs (a sender and a worker)");
		return;
	}
	if (!fl_setup() || !fl_negative_control())
		return;
	run_cases(HVT_MEM);
	run_cases(HVT_XMM);
}

static void suite_hv_flush(const char *arg)
{
	(void)arg;
	hv_flush_part();
}

DEFINE_SUITE(23, suite_hv_flush, "hv-flush", false, NULL,
	     "Hyper-V remote TLB flush: stale-PTE detection with a negative control");
