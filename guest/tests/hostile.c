// SPDX-License-Identifier: MIT
/*
 * hostile: a guest that tries to hurt the VMM. Hypercall inputs at the
 * edges of RAM and of 2^64, oversized lists and VP sets, every reserved
 * bit, bad vectors, garbage in every Hyper-V MSR, port and MMIO storms,
 * hypercalls from CPL3, bad control requests. Each case checks the exact
 * outcome docs/hyperv.md promises (status, #GP or #UD); the last one is a
 * hypercall that must still work. Malformed result records make the run
 * exit 1, so they live in their own suite (hostile_records.c).
 */
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/hvtest.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/timing.h"
#include "suite.h"
#include "tests/hostile.h"

#define SANITY_VECTOR		0x51
#define SANITY_WAIT_US		1000000

u64 hostile_in[512] __aligned(4096);

static u64 result_value(u16 status, u32 reps)
{
	return status | ((u64)reps << HV_HCALL_RESULT_REPS_SHIFT);
}

bool hcall_expect(const char *name, u64 rax, u16 status, u32 reps)
{
	u64 want = result_value(status, reps);

	return report_why(rax == want, name, "result 0x%lx, expected 0x%lx", rax, want);
}

bool hcall_expect_kvm(const char *name, u64 rax, u16 status, u32 reps, u16 kvm_status,
		      u32 kvm_reps, enum hvd_verdict v)
{
	return hvd_expect(rax, result_value(status, reps), result_value(kvm_status, kvm_reps), v,
			  "%s", name);
}

u64 hostile_ram_end(void)
{
	return boot_info->ram_size;
}

u8 *hostile_tail_page(void)
{
	return (u8 *)(uintptr_t)(hostile_ram_end() - HOSTILE_PAGE);
}

bool hostile_xmm(void)
{
	return hv_xmm_input_available() && (boot_info->features & MVM_F_HV_XMM_INPUT);
}

int hostile_raw_trap(u64 control, u64 rdx, u64 r8, u64 *rax)
{
	return hvt_trap(control, rdx, r8, rax);
}

bool hostile_restore_page(void)
{
	const char *why = "";

	return report_why(!hv_enable_hypercalls(&why), "hypercall page re-enabled at our page",
			  "%s", why);
}

static u32 sanity_hits;

static void sanity_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(sanity_hits, sanity_hits + 1);
}

/* The run is only a pass if the VMM still does real work afterwards. */
static void sanity_hypercall(void)
{
	u64 rax;

	irq_register(SANITY_VECTOR, sanity_irq);
	rax = hv_hcall_fast(HVCALL_SEND_IPI, SANITY_VECTOR, 1ull << smp_id());
	irq_enable();
	wait_until(READ_ONCE(sanity_hits) != 0, SANITY_WAIT_US);
	udelay(1000);		/* room for a duplicate to show */
	irq_disable();
	irq_unregister(SANITY_VECTOR);
	report_why(rax == HV_STATUS_SUCCESS && sanity_hits == 1,
		   "VMM still serves hypercalls: a self-IPI arrives exactly once",
		   "result 0x%lx, %u interrupts", rax, sanity_hits);
}

static bool hostile_hv_ready(void)
{
	const char *why = "";

	if (!hv_detect()) {
		report_skip("Hyper-V cases", "no Hyper-V leaves (minivmm --no-hyperv?)");
		return false;
	}
	return report_why(!hv_enable_hypercalls(&why), "hypercall page enabled", "%s", why);
}

static void suite_hostile(const char *arg)
{
	bool hv = hostile_hv_ready();

	(void)arg;
	if (hv) {
		hostile_gpa();
		hostile_banks();
		hostile_input();
		hostile_msr();
		hostile_cpl3();
	}
	hostile_io();
	hostile_ctrl();
	if (hv)
		sanity_hypercall();
	hvd_summary("hostile");
}

DEFINE_SUITE(60, suite_hostile, "hostile", false, NULL,
	     "abusive hypercalls, MSRs, port/MMIO storms, CPL3 calls, bad control requests");
