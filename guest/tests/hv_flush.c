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
	u64 workers;		/* vCPUs that read the GVA (never the sender) */
	bool self;		/* the sender is a target: check its own read */
	bool flush;		/* false: the negative control */
	enum hvt_enc enc;
	u64 control;
	struct hvt_in in;
	u64 rax;		/* out: the call's result */
	u64 self_seen;		/* out: the sender's read after the call */
};

static bool workers_reached(u64 workers, enum fl_state at_least)
{
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		if (((workers >> cpu) & 1) && load_acquire(&slots[cpu].state) < at_least)
			return false;
	return true;
}

static void fl_start_workers(u64 workers)
{
	WRITE_ONCE(fl_go, 0);
	WRITE_ONCE(*test_pte, pte_old);
	invlpg(FLUSH_GVA);
	for (u32 cpu = 1; cpu < boot_nr_cpus; cpu++) {
		if (!((workers >> cpu) & 1))
			continue;
		memset(&slots[cpu], 0, sizeof(slots[cpu]));
		smp_call(cpu, fl_worker, NULL, false);
	}
	wait_until(workers_reached(workers, FL_READY), FL_WAIT_US);
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
static void fl_wait_workers_running(u64 workers)
{
	for (u32 cpu = 1; cpu < boot_nr_cpus; cpu++)
		if ((workers >> cpu) & 1)
			fl_wait_running(&slots[cpu]);
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
	fl_wait_workers_running(r->workers);
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
	fl_start_workers(r->workers);
	run_user(fl_swap_user, r, RUN_USER_IRQS_OFF);
	if (r->flush)
		r->rax = hvt_call(r->enc, r->control, &r->in);
	if (r->self)
		r->self_seen = run_user(fl_read_user, NULL, RUN_USER_IRQS_OFF);
	store_release(&fl_go, 1);
	wait_until(workers_reached(r->workers, FL_DONE), FL_WAIT_US);
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
	for (u32 cpu = 1; cpu < boot_nr_cpus; cpu++)
		if (((r->workers >> cpu) & 1) && !worker_ok(cpu, why, len))
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
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_ONE },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_TWO },
	{ HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, WHO_SET_ALL },
};

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

static u64 every_vp(void)
{
	return boot_nr_cpus >= 64 ? ~0ull : (1ull << boot_nr_cpus) - 1;
}

/* The target VPs of a case, and a description for its name. */
static u64 who_targets(enum fl_who who, char *what, size_t len)
{
	u32 last = boot_nr_cpus - 1;

	switch (who) {
	case WHO_OTHERS:
		snprintf(what, len, "mask of VPs 1..%u", last);
		return every_vp() & ~1ull;
	case WHO_ALL_PROCS:
		snprintf(what, len, "ALL_PROCESSORS (sender included)");
		return every_vp();
	case WHO_ONE:
		snprintf(what, len, "VP %u (bank 0)", last);
		return 1ull << last;
	case WHO_TWO:
		snprintf(what, len, boot_nr_cpus < 3 ? "two VPs" : "VPs 1 and %u", last);
		return (1ull << 1) | (1ull << last);
	case WHO_SET_ALL:
		snprintf(what, len, "SET_ALL (sender included)");
		return every_vp();
	}
	return 0;
}

/* Input block and RCX; a List call names the test page in its one GVA entry. */
static void build_call(const struct fl_case *c, u64 targets, struct fl_run *r)
{
	u64 flags = c->who == WHO_ALL_PROCS ? HV_FLUSH_ALL_PROCESSORS : 0;
	u32 banks = 0;

	r->in.n = 0;
	hvt_put(&r->in, read_cr3());
	hvt_put(&r->in, flags);
	if (!is_ex(c->code))
		hvt_put(&r->in, c->who == WHO_ALL_PROCS ? 0 : targets);
	else if (c->who == WHO_SET_ALL)
		banks = hvt_put_vpset(&r->in, HV_GENERIC_SET_ALL, 0, NULL);
	else
		banks = hvt_put_vpset(&r->in, HV_GENERIC_SET_SPARSE_4K, 1, &targets);
	if (is_list(c->code))
		hvt_put(&r->in, FLUSH_GVA);	/* this page, no additional pages */
	r->control = hvt_control(c->code, banks, is_list(c->code) ? 1 : 0, 0);
}

static void run_case(const struct fl_case *c, enum hvt_enc enc)
{
	struct fl_run r = { .flush = true, .enc = enc };
	char name[128], what[48], why[160] = "";
	u64 targets = who_targets(c->who, what, sizeof(what));

	snprintf(name, sizeof(name), "%s %s, %s%s: no target reads the old page",
		 call_name(c->code), hvt_enc_name(enc), what,
		 is_list(c->code) ? ", GVA entry = the test page" : "");
	if (c->who == WHO_TWO && boot_nr_cpus < 3) {
		report_skip(name, "needs 3 vCPUs (sender plus two workers)");
		return;
	}
	build_call(c, targets, &r);
	r.workers = targets & ~1ull;
	r.self = targets & 1;
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

static u32 stale_workers(u64 workers)
{
	u32 stale = 0;

	for (u32 cpu = 1; cpu < boot_nr_cpus; cpu++)
		if (((workers >> cpu) & 1) && slots[cpu].state == FL_DONE && slots[cpu].stale)
			stale++;
	return stale;
}

static bool fl_machinery_ok(u64 workers, char *why, size_t len)
{
	for (u32 cpu = 1; cpu < boot_nr_cpus; cpu++)
		if (((workers >> cpu) & 1) && load_acquire(&slots[cpu].state) != FL_DONE) {
			snprintf(why, len, "vCPU %u %s", cpu,
				 fl_state_names[load_acquire(&slots[cpu].state)]);
			return false;
		}
	return true;
}

/*
 * True when a stale read was seen: only then can the cases fail for real.
 * One worker a round, taking turns, so that a loaded host has to run only
 * two vCPUs at once for the stale entry to survive until it is read.
 */
static bool fl_negative_control(void)
{
	struct fl_run r = { .flush = false };
	char why[96] = "";

	for (u32 round = 0; round < FL_CONTROL_ROUNDS; round++) {
		u32 worker = 1 + round % (boot_nr_cpus - 1);

		r.workers = 1ull << worker;
		fl_run(&r);
		if (!fl_machinery_ok(r.workers, why, sizeof(why))) {
			report_fail("negative control (PTE swap, no flush)", "%s", why);
			return false;
		}
		if (stale_workers(r.workers)) {
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
	report_skip("flush targets in bank 1",
		    "guest.elf runs at most 64 vCPUs, so no VP index is in bank 1 (64..127)");
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
