// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/exit.h"
#include "lib/io.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"

__noreturn void guest_exit(u32 status)
{
	outl(MVM_PORT_EXIT, status);
	/* Only reached if the VMM ignored the port. HLT would #GP at CPL3. */
	if ((read_cs() & 3) == 0)
		halt_forever();
	for (;;)
		cpu_relax();
}

__noreturn void panic(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: panic on cpu %u: ", smp_id());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	report_abort();
}
