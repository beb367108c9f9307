// SPDX-License-Identifier: MIT
/*
 * triple-fault: #UD with an IDT of limit 0 cannot be delivered (-> #GP ->
 * #DF, equally undeliverable) so the vCPU shuts down. The VMM must turn
 * KVM_EXIT_SHUTDOWN into a register dump and exit status 3.
 */
#include "lib/idt.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "suite.h"

static void suite_triple_fault(const char *arg)
{
	(void)arg;
	printf("triple-fault: empty IDT, then ud2: the VMM should report a triple fault and exit 3\n");
	irq_disable();
	idt_load_empty();
	asm volatile("ud2" ::: "memory");
	report_fail("triple fault", "still running after ud2 with an empty IDT");
}

DEFINE_SUITE(91, suite_triple_fault, "triple-fault", false, NULL,
	     "empty IDT + #UD: the VMM must report a triple fault (exit 3)");
