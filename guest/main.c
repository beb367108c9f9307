// SPDX-License-Identifier: MIT
/*
 * Boot flow. vCPU 0 checks the boot info and builds the shared IDT while
 * the others wait; then every vCPU loads its GDT/TSS/IDT, switches its
 * APIC to x2APIC mode and reports in. vCPU 0 waits for all of them, runs
 * the suites and prints the summary; the rest serve smp_call() requests.
 * Everything here runs at CPL0, which kvm_pvm emulates instruction by
 * instruction, so the path is kept short.
 */
#include "lib/apic.h"
#include "lib/boot.h"
#include "lib/bootmem.h"
#include "lib/exit.h"
#include "lib/extable.h"
#include "lib/gdt.h"
#include "lib/idt.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/timing.h"
#include "suite.h"

/* Every vCPU's CPL0 boot path is emulated on kvm_pvm: allow for each one. */
#define BOOT_ONLINE_TIMEOUT_US	5000000
#define BOOT_ONLINE_US_PER_VCPU	50000

__noreturn void guest_main(u32 cpu, const struct mvm_bootinfo *bi);

static u32 shared_state_ready;

static __noreturn void boot_refuse(const char *why)
{
	printf("guest: %s\n", why);
	guest_exit(EXIT_USAGE);
}

/* vCPU 0 only: everything the other vCPUs rely on before their own init. */
static void boot_prepare(const struct mvm_bootinfo *bi)
{
	const char *why = bootinfo_problem(bi);

	if (why)
		boot_refuse(why);
	if (!bootmem_init(bi))
		boot_refuse("not enough RAM above the image for a stack block per vCPU: give more --mem");
	if (!apic_x2apic_supported())
		boot_refuse("no x2APIC in CPUID (the VMM must expose it)");
	bootinfo_adopt(bi);
	percpu_init(bootmem_stack_base(bi), bi->nr_vcpus);
	idt_build();
	smp_init();
	store_release(&shared_state_ready, 1);
}

static void cpu_init(u32 cpu)
{
	struct percpu *pc = &percpu[cpu];

	pc->cpu = cpu;	/* boot.S wrote it already; smp_id() reads it */
	pc->ex.vector = EX_NONE;
	gdt_init(pc);
	idt_load();
	apic_init();
	pc->apic_id = apic_id();
}

static void print_banner(void)
{
	char vendor[13];

	cpuid_vendor(vendor);
	printf("guest: %u vCPUs, backend %s, tsc %lu MHz%s, cpu vendor %s\n", boot_nr_cpus,
	       backend_name(boot_backend), tsc_khz / 1000,
	       tsc_khz_guessed ? " (guessed: boot info has none)" : "", vendor);
}

static void wait_for_vcpus(void)
{
	u64 limit_us = BOOT_ONLINE_TIMEOUT_US + (u64)boot_nr_cpus * BOOT_ONLINE_US_PER_VCPU;

	if (!wait_until(smp_online_count() >= boot_nr_cpus, limit_us))
		report_fail("boot", "only %u of %u vCPUs came online within %lu ms",
			    smp_online_count(), boot_nr_cpus, limit_us / 1000);
}

__noreturn void guest_main(u32 cpu, const struct mvm_bootinfo *bi)
{
	if (cpu == 0)
		boot_prepare(bi);
	else
		while (!load_acquire(&shared_state_ready))
			cpu_relax();

	cpu_init(cpu);
	smp_mark_online();
	if (cpu != 0)
		smp_service_loop();

	wait_for_vcpus();
	print_banner();
	suites_run(boot_info->cmdline);
	report_finish();
}
