// SPDX-License-Identifier: MIT
/*
 * vmexit, after the table: how long each hypercall row's guest path is and
 * what a CPL0 instruction costs in this run, so a reader can split a row
 * into emulator and exit (issue: "a hypercall costs its guest
 * instructions, not its decode" on kvm_pvm). Path lengths are counted by
 * single-stepping the row's own timed body (lib/sstep.h): the C that fills
 * the input block, the wrapper and the VMM's hypercall page, not the exit.
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/insn_cost.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/sstep.h"
#include "vmexit.h"

static void run_body(void *arg)
{
	const struct bench_case *c = arg;

	c->body(c->arg);
}

static void print_path(const struct bench_case *c, const struct insn_cost *cost)
{
	const char *why;
	u64 n;

	if (c->setup && c->setup(c->arg))
		return;			/* the table already said SKIP */
	n = sstep_count(run_body, (void *)c, &why);
	if (!n) {
		report_skip("path length", "%s %s: %s", c->name, c->variant, why);
		return;
	}
	if (!cost->reg_milli || !cost->stack_milli) {
		printf("path: %-24s %-9s %3lu guest insns at CPL0 on %s (their cost not resolved)\n",
		       c->name, c->variant, n, backend_name(boot_backend));
		return;
	}
	printf("path: %-24s %-9s %3lu guest insns at CPL0 on %s ~ %lu..%lu cycles of them\n",
	       c->name, c->variant, n, backend_name(boot_backend), n * cost->reg_milli / 1000,
	       n * cost->stack_milli / 1000);
}

void vmexit_report_paths(const struct bench_case *rows, u32 n)
{
	struct insn_cost cost;

	insn_cost_measure(&cost);
	printf("path: %s CPL0 instruction cost in this run: %lu.%03lu cycles (register op), "
	       "%lu.%03lu cycles (push/pop), medians of %u blocks of 64\n",
	       backend_name(boot_backend), cost.reg_milli / 1000, cost.reg_milli % 1000,
	       cost.stack_milli / 1000, cost.stack_milli % 1000, INSN_COST_ROUNDS);
	if (!cost.reg_milli || !cost.stack_milli)
		printf("path: (a 0 above: 64 of them were no slower than none, below what the "
		       "TSC resolves here; not a measured cost of 0)\n");
	for (u32 i = 0; i < n; i++)
		if (rows[i].vmm_kind == MVM_VMM_HCALL && rows[i].cpl == 0)
			print_path(&rows[i], &cost);
	report_pass("hypercall path lengths single-stepped, CPL0 instruction cost measured");
}
