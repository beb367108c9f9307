// SPDX-License-Identifier: MIT
/*
 * spin: never finish. Interrupts off and CPL0, so nothing in the guest can
 * end it: only the VMM's --timeout watchdog (exit 3 with every vCPU's RIP).
 */
#include "lib/atomic.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "suite.h"

static void suite_spin(const char *arg)
{
	(void)arg;
	printf("spin: spinning at CPL0 with interrupts off until the VMM's --timeout\n");
	irq_disable();
	for (;;)
		barrier();
}

DEFINE_SUITE(92, suite_spin, "spin", false, NULL,
	     "spin forever at CPL0 with interrupts off: the VMM's --timeout must end it");
