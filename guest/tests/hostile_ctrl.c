// SPDX-License-Identifier: MIT
/*
 * hostile: control requests (MVM_PORT_CTRL) the VMM must refuse. Unknown
 * ops and PAUSE_VCPU arguments out of range come back MVM_CTRL_EINVAL,
 * including values that would look valid if the VMM truncated them to 32
 * bits. A request not wholly in RAM, or not written with a 32-bit out, is
 * not answered at all (the VMM says so on stderr) and must not be touched.
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/io.h"
#include "lib/percpu.h"
#include "lib/report.h"
#include "tests/hostile.h"

#define CTRL_MARK	0x5eadbeef	/* status before the VMM answers */
#define PAUSE_MAX_US	10000000ull

static struct mvm_ctrl req __aligned(64);

static s32 ctrl_at(struct mvm_ctrl *r, u32 op, u64 arg0, u64 arg1)
{
	r->op = op;
	r->status = CTRL_MARK;
	r->arg0 = arg0;
	r->arg1 = arg1;
	outl(MVM_PORT_CTRL, (u32)(uintptr_t)r);
	return READ_ONCE(r->status);
}

static void expect_einval(const char *name, u32 op, u64 arg0, u64 arg1)
{
	s32 st = ctrl_at(&req, op, arg0, arg1);

	report_why(st == MVM_CTRL_EINVAL, name, "status %d, expected %d", st, MVM_CTRL_EINVAL);
}

static void bad_ops(void)
{
	expect_einval("ctrl: op 0", 0, 1, 1000);
	expect_einval("ctrl: op 2", 2, 1, 1000);
	expect_einval("ctrl: op 0xffffffff", 0xffffffffu, 1, 1000);
}

static void bad_pause_targets(void)
{
	const u32 op = MVM_CTRL_PAUSE_VCPU;

	expect_einval("ctrl: pause the calling vCPU", op, smp_id(), 1000);
	expect_einval("ctrl: pause vCPU nr_vcpus", op, boot_nr_cpus, 1000);
	expect_einval("ctrl: pause vCPU 2^32 + 1 (1 if truncated)", op, (1ull << 32) + 1, 1000);
	expect_einval("ctrl: pause vCPU 2^64 - 1", op, ~0ull, 1000);
}

static void bad_pause_lengths(void)
{
	const u32 op = MVM_CTRL_PAUSE_VCPU;
	s32 st;

	if (boot_nr_cpus < 2) {
		report_skip("ctrl: pause lengths", "needs a second vCPU to pause");
		return;
	}
	expect_einval("ctrl: pause for 0 us", op, 1, 0);
	expect_einval("ctrl: pause for 10^7 + 1 us", op, 1, PAUSE_MAX_US + 1);
	expect_einval("ctrl: pause for 2^32 + 1000 us (1000 if truncated)", op, 1,
		      (1ull << 32) + 1000);
	expect_einval("ctrl: pause for 2^64 - 1 us", op, 1, ~0ull);
	st = ctrl_at(&req, op, 1, 1000);
	report_why(st == 0, "ctrl: a valid pause (vCPU 1, 1 ms) still works", "status %d", st);
}

/* Not answered: the status must keep its mark. */
static void unanswered(void)
{
	struct mvm_ctrl *edge = (struct mvm_ctrl *)(uintptr_t)(hostile_ram_end() - 8);
	s32 st;

	edge->op = MVM_CTRL_PAUSE_VCPU;
	edge->status = CTRL_MARK;
	outl(MVM_PORT_CTRL, (u32)(uintptr_t)edge);
	st = READ_ONCE(edge->status);
	report_why(st == CTRL_MARK, "ctrl: request running past the end of RAM is not answered",
		   "status 0x%x", st);
	outl(MVM_PORT_CTRL, (u32)hostile_ram_end());
	outl(MVM_PORT_CTRL, 0xfffffff8u);
	req.status = CTRL_MARK;
	req.op = 0;
	outb(MVM_PORT_CTRL, (u8)(uintptr_t)&req);
	outw(MVM_PORT_CTRL, (u16)(uintptr_t)&req);
	st = READ_ONCE(req.status);
	report_why(st == CTRL_MARK, "ctrl: 8- and 16-bit writes carry no request",
		   "status 0x%x", st);
}

void hostile_ctrl(void)
{
	bad_ops();
	bad_pause_targets();
	bad_pause_lengths();
	unanswered();
}
