// SPDX-License-Identifier: MIT
/*
 * smoke (default): the machinery every other suite stands on. Each check
 * is cheap: this runs at CPL0, which kvm_pvm emulates.
 */
#include <minivmm/abi.h>

#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/io.h"
#include "lib/irq.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/results.h"
#include "lib/smp.h"
#include "lib/timing.h"
#include "lib/user.h"
#include "suite.h"

#define SMOKE_IPI_VECTOR	0x40
#define SMOKE_WAIT_US		1000000
#define NONCANONICAL_ADDR	0x8000000000000000ull
#define UNMAPPED_ADDR		0x8ull		/* GPA page 0 is not present */
#define BARRIER_ROUNDS		3
/* The others' arrival (each emulated at CPL0 on kvm_pvm), then time to reach their HLT. */
#define LOST_WAKEUP_WAIT_US	(SMOKE_WAIT_US + 20000ull * boot_nr_cpus)
#define LOST_WAKEUP_SETTLE_US	1000
#define DEADLINE_VECTOR		0x41
#define DEADLINE_US		1000

static u32 ipi_count[GUEST_MAX_VCPUS];
static u64 ipi_last_cs[GUEST_MAX_VCPUS];

static void smoke_ipi_handler(struct trap_frame *tf)
{
	u32 cpu = smp_id();

	WRITE_ONCE(ipi_last_cs[cpu], tf->cs);
	atomic_inc(&ipi_count[cpu]);
}

static void check_vcpus(void)
{
	u32 nr = boot_nr_cpus, online = smp_online_count();
	u32 bad_seen = nr, bad_apic = nr, seen = 1, id = 0;

	report_why(online == nr, "every vCPU came online",
		   "%u online, boot info says %u", online, nr);
	for (u32 cpu = nr; cpu-- > 0;) {
		if (smp_seen_count(cpu) != 1) {
			bad_seen = cpu;
			seen = smp_seen_count(cpu);
		}
		if (percpu[cpu].apic_id != cpu) {
			bad_apic = cpu;
			id = percpu[cpu].apic_id;
		}
	}
	report_why(bad_seen == nr, "each vCPU index reported in exactly once",
		   "vCPU %u reported in %u times", bad_seen, seen);
	report_why(bad_apic == nr, "x2APIC ID == vCPU index",
		   "vCPU %u has x2APIC ID %u", bad_apic, id);
}

/* One receiver; returns false (and says why) on a missing or extra IPI. */
static bool ipi_one(u32 cpu, char *why, size_t len)
{
	if (!smp_cpu_online(cpu)) {
		snprintf(why, len, "vCPU %u is not online", cpu);
		return false;
	}
	apic_send_ipi(percpu[cpu].apic_id, SMOKE_IPI_VECTOR);
	if (!wait_until(READ_ONCE(ipi_count[cpu]) != 0, SMOKE_WAIT_US)) {
		snprintf(why, len, "vCPU %u: no interrupt within %u ms", cpu,
			 SMOKE_WAIT_US / 1000);
		return false;
	}
	return true;
}

static void check_ipis(void)
{
	u32 nr = boot_nr_cpus;
	char why[96] = "";
	bool ok = true;

	if (nr < 2) {
		report_skip("fixed IPI to each other vCPU", "only one vCPU");
		return;
	}
	irq_register(SMOKE_IPI_VECTOR, smoke_ipi_handler);
	for (u32 cpu = 1; cpu < nr && ok; cpu++)
		ok = ipi_one(cpu, why, sizeof(why));
	/* Let a duplicate delivery show up before counting. */
	udelay(1000);
	for (u32 cpu = 0; cpu < nr && ok; cpu++) {
		u32 want = cpu ? 1 : 0, got = READ_ONCE(ipi_count[cpu]);

		if (got != want) {
			snprintf(why, sizeof(why), "vCPU %u took %u interrupts, expected %u",
				 cpu, got, want);
			ok = false;
		}
	}
	report_why(ok, "fixed IPI to each other vCPU, delivered exactly once", "%s", why);
	irq_unregister(SMOKE_IPI_VECTOR);
}

static u32 barrier_arrivals;
static u32 barrier_errors;

static void barrier_rounds(void *arg)
{
	(void)arg;
	for (u32 round = 1; round <= BARRIER_ROUNDS; round++) {
		atomic_inc(&barrier_arrivals);
		smp_barrier();
		if (READ_ONCE(barrier_arrivals) != round * smp_online_count())
			atomic_inc(&barrier_errors);
		smp_barrier();
	}
}

static void check_barrier(void)
{
	smp_call_all(barrier_rounds, NULL);
	report_why(!barrier_errors, "barrier and smp_call on every vCPU",
		   "%u vCPU-rounds saw an incomplete round", barrier_errors);
	if (smp_barrier_rescues())
		printf("smoke: note: %u barrier waits were ended by the backstop timer, "
		       "the wake-up IPI still missing 1 ms after the opening\n",
		       smp_barrier_rescues());
	if (smp_call_resends())
		printf("smoke: note: %u smp_call wake-up IPIs were sent again, "
		       "the item still untaken a backstop period later\n", smp_call_resends());
}

static u32 lost_call_ran_on = ~0u;

static void lost_call_fn(void *arg)
{
	(void)arg;
	WRITE_ONCE(lost_call_ran_on, smp_id());
}

/* The last vCPU is halted in its service loop: post to it without the IPI. */
static void check_lost_call_ipi(void)
{
	const char *name = "smp_call whose wake-up IPI is lost: the caller sends it again";
	u32 target = boot_nr_cpus - 1, before = smp_call_resends();

	if (smp_online_count() < 2 || !smp_cpu_online(target)) {
		report_skip(name, "needs 2+ vCPUs online");
		return;
	}
	smp_call_lose_next_ipi();
	smp_call(target, lost_call_fn, NULL, true);
	report_why(lost_call_ran_on == target && smp_call_resends() != before, name,
		   "ran on vCPU %d, %u re-sends", (int)lost_call_ran_on, smp_call_resends() - before);
	printf("smoke: the lost smp_call IPI took %u re-sends\n", smp_call_resends() - before);
}

/* vCPU 0 comes last, after the others halted, and drops the wake-up IPI. */
static void lost_wakeup_round(void *arg)
{
	(void)arg;
	if (!smp_id()) {
		wait_until(smp_barrier_arrived() == smp_online_count() - 1, LOST_WAKEUP_WAIT_US);
		udelay(LOST_WAKEUP_SETTLE_US);
		smp_barrier_lose_next_wakeup();
	}
	smp_barrier();
}

static void check_lost_wakeup(void)
{
	const char *name = "barrier whose wake-up IPI is lost: the backstop timer ends the wait";
	u32 before = smp_barrier_ticks(), rescued = smp_barrier_rescues();

	if (smp_online_count() < 2) {
		report_skip(name, "needs 2+ vCPUs");
		return;
	}
	/* Only a tick can have ended a waiter's HLT: the barrier sent no IPI. */
	smp_call_all(lost_wakeup_round, NULL);
	report_why(smp_barrier_ticks() != before, name,
		   "the barrier opened, but no waiter took a backstop tick (none had halted?)");
	printf("smoke: the dropped wake-up took %u backstop ticks; %u waits counted as rescued\n",
	       smp_barrier_ticks() - before, smp_barrier_rescues() - rescued);
}

static void check_expected(const char *name, int vector, int want, u32 err, u32 want_err)
{
	report_why(vector == want && err == want_err, name, "caught %s (vector %d, error 0x%x)",
		   vector == EX_NONE ? "nothing" : exception_name((unsigned int)vector),
		   vector, err);
}

static void check_exceptions(void)
{
	u64 val;
	int v;

	ex_arm();
	asm volatile(ASM_TRY("ud2") ::: "memory");
	v = ex_vector();
	check_expected("ud2 caught as #UD", v, UD_VECTOR, ex_last()->error_code, 0);

	v = read_u64_safe((const volatile u64 *)NONCANONICAL_ADDR, &val);
	check_expected("non-canonical load caught as #GP(0)", v, GP_VECTOR,
		       ex_last()->error_code, 0);

	v = read_u64_safe((const volatile u64 *)UNMAPPED_ADDR, &val);
	report_why(v == PF_VECTOR && ex_last()->cr2 == UNMAPPED_ADDR,
		   "load from page 0 caught as #PF with CR2", "caught vector %d, cr2 0x%lx",
		   v, v == EX_NONE ? 0 : ex_last()->cr2);
}

#define SMOKE_IF0_WAIT_US	2000	/* a pending IPI would be taken within this */

/* What the CPL3 side saw; each is checked by behaviour, not by pushf (kvm_pvm shows host flags). */
struct user_probe {
	u64 in;
	u64 cpl;
	int out_vector;		/* EX_NONE: the port write reached the VMM */
	int cli_vector;
	u32 cli_error;
};

static u64 user_probe_fn(void *arg)
{
	struct user_probe *p = arg;

	p->cpl = current_cpl();
	ex_arm();
	asm volatile(ASM_TRY("outb %%al, %%dx") : : "a"(0), "d"(MVM_PORT_NULL) : "memory");
	p->out_vector = ex_vector();
	ex_arm();
	asm volatile(ASM_TRY("cli") ::: "memory");
	p->cli_vector = ex_vector();
	p->cli_error = ex_last()->error_code;
	return p->in * 3 + 1;
}

static u64 user_ud_fn(void *arg)
{
	(void)arg;
	ex_arm();
	asm volatile(ASM_TRY("ud2") ::: "memory");
	return (u64)(s64)ex_vector();
}

/* True once this vCPU's pending self-IPI has been taken, within wait_us. */
static u64 user_irq_fn(void *arg)
{
	u64 wait_us = *(const u64 *)arg;

	return wait_until(READ_ONCE(ipi_count[smp_id()]) != 0, wait_us);
}

/*
 * run_user() asks for IOPL=3. VMX and SVM honour it, so cli works at CPL3;
 * kvm_pvm forces IOPL to 0 there, so cli is #GP(0). The line says which.
 */
static void check_cpl3_cli(const struct user_probe *p)
{
	if (boot_backend == MVM_BACKEND_PVM)
		report_why(p->cli_vector == GP_VECTOR && p->cli_error == 0,
			   "cli at CPL3 raises #GP(0) on pvm (IOPL forced to 0 there)",
			   "caught vector %d error 0x%x", p->cli_vector, p->cli_error);
	else
		report_why(p->cli_vector == EX_NONE,
			   "cli at CPL3 runs on vmx/svm (IOPL=3 honoured there)",
			   "caught vector %d error 0x%x", p->cli_vector, p->cli_error);
}

static u64 check_cpl3_round_trip(void)
{
	struct user_probe p = { .in = 0x1234 };
	u64 t0, t1, ret;

	t0 = rdtsc();
	ret = run_user(user_probe_fn, &p, RUN_USER_IRQS_OFF);
	t1 = rdtsc();
	report_why(ret == p.in * 3 + 1 && p.cpl == 3, "run_user returns the CPL3 result",
		   "returned 0x%lx (want 0x%lx), CPL at the callee %lu", ret, p.in * 3 + 1, p.cpl);
	report_why(p.out_vector == EX_NONE,
		   "CPL3 out to a port reaches the VMM (IOPL=3 or the TSS I/O bitmap)",
		   "caught vector %d", p.out_vector);
	check_cpl3_cli(&p);
	report_why(current_cpl() == 0, "back at CPL0 after run_user", "CPL %u", current_cpl());
	return t1 - t0;
}

/*
 * IF as asked, by behaviour: a self-IPI sent at CPL0 with IF=0 stays pending
 * through a CPL3 run with IF=0 and is taken in the next one with IF=1.
 */
static void check_cpl3_irq_flag(void)
{
	u32 cpu = smp_id();
	u64 short_wait = SMOKE_IF0_WAIT_US, long_wait = SMOKE_WAIT_US;
	u64 taken_if0, taken_if1;

	WRITE_ONCE(ipi_count[cpu], 0);
	irq_register(SMOKE_IPI_VECTOR, smoke_ipi_handler);
	apic_self_ipi(SMOKE_IPI_VECTOR);
	taken_if0 = run_user(user_irq_fn, &short_wait, RUN_USER_IRQS_OFF);
	taken_if1 = run_user(user_irq_fn, &long_wait, RUN_USER_IRQS_ON);
	irq_unregister(SMOKE_IPI_VECTOR);
	report_why(!taken_if0, "CPL3 with IF=0 holds a pending interrupt",
		   "taken within %u us", SMOKE_IF0_WAIT_US);
	report_why(taken_if1 && (ipi_last_cs[cpu] & 3) == 3, "self-IPI taken at CPL3 with IF=1",
		   "%u interrupts, interrupted CS 0x%lx", ipi_count[cpu], ipi_last_cs[cpu]);
}

static void check_cpl3_exceptions(void)
{
	s64 v = (s64)run_user(user_ud_fn, NULL, RUN_USER_IRQS_OFF);

	report_why(v == UD_VECTOR, "ud2 at CPL3 caught as #UD", "caught vector %ld", v);
}

static void submit_record(u64 cycles)
{
	struct mvm_result r;

	result_init(&r, "smoke", "record", "run_user");
	r.cpl = 0;
	r.unit = MVM_UNIT_CYCLES;
	r.iters = 1;
	r.min = r.median = r.p90 = r.p99 = r.max = r.mean = cycles;
	result_submit(&r);
	report_pass("results record submitted (one run_user round trip: %lu cycles)", cycles);
}

static u32 deadline_hits;

static void deadline_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(deadline_hits, deadline_hits + 1);
}

/*
 * The TSC-deadline timer CPUID offers (KVM's LAPIC emulates it; minivmm
 * sets the bit from KVM_CAP_TSC_DEADLINE_TIMER): one interrupt for one
 * deadline, and the MSR reads 0 once it has fired. No timing is judged.
 */
static void check_tsc_deadline(void)
{
	u64 left = ~0ull;

	if (!(cpuid(1).ecx & CPUID_1_ECX_TSC_DEADLINE)) {
		report_skip("TSC-deadline timer", "CPUID.1:ECX[24] is clear");
		return;
	}
	WRITE_ONCE(deadline_hits, 0);
	irq_register(DEADLINE_VECTOR, deadline_irq);
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_TIMER_TSC_DEADLINE | DEADLINE_VECTOR);
	wrmsr(MSR_IA32_TSC_DEADLINE, tsc_deadline(DEADLINE_US));
	irq_enable();
	wait_until(READ_ONCE(deadline_hits) != 0, SMOKE_WAIT_US);
	udelay(DEADLINE_US);	/* room for a second, wrong one */
	irq_disable();
	(void)rdmsr_safe(MSR_IA32_TSC_DEADLINE, &left);
	wrmsr(MSR_X2APIC_LVT_TIMER, LVT_MASKED | DEADLINE_VECTOR);
	irq_unregister(DEADLINE_VECTOR);
	report_why(deadline_hits == 1 && !left,
		   "TSC-deadline timer: one interrupt for one deadline, the MSR 0 after it",
		   "%u interrupts within %u ms, IA32_TSC_DEADLINE then 0x%lx", deadline_hits,
		   SMOKE_WAIT_US / 1000, left);
}

static void suite_smoke(const char *arg)
{
	u64 cycles;

	(void)arg;
	check_vcpus();
	check_ipis();
	check_barrier();
	check_lost_wakeup();
	check_lost_call_ipi();
	check_tsc_deadline();
	check_exceptions();
	cycles = check_cpl3_round_trip();
	check_cpl3_exceptions();
	check_cpl3_irq_flag();
	submit_record(cycles);
}

DEFINE_SUITE(10, suite_smoke, "smoke", true, NULL,
	     "vCPUs online, IPIs, exceptions, CPL3 round trip, results record");
