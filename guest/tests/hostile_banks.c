// SPDX-License-Identifier: MIT
/*
 * hostile: HV_VP_SET at its limits. 64 sparse banks (valid-bank mask all
 * ones) is the most a set can name: fine in memory, too big for the
 * 112-byte XMM area (INVALID_HYPERCALL_INPUT). The variable header must
 * equal the number of banks; a VP index past the partition fails the call
 * with nothing done. IPIs to this VP check "nothing done" for real.
 */
#include "lib/boot.h"
#include "lib/hv.h"
#include "lib/irq.h"
#include "lib/percpu.h"
#include "lib/processor.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "tests/hostile.h"

#define BANK_VECTOR	0x52
#define ALL_BANKS	64u
#define IPI_WAIT_US	1000000
#define SET_QWORDS	(2 + 2 + ALL_BANKS)		/* SpaceEx header + mask + banks */
#define LISTEX_FULL	((HOSTILE_PAGE - 8 * SET_QWORDS) / 8)	/* 444 */

static u32 hits;

static void bank_irq(struct trap_frame *tf)
{
	(void)tf;
	WRITE_ONCE(hits, hits + 1);
}

/*
 * Let interrupts made pending while IF was 0 in: wait for `want`, then a
 * little longer so a duplicate shows. Returns how many arrived.
 */
static u32 take_irqs(u32 want)
{
	irq_enable();
	if (want)
		wait_until(READ_ONCE(hits) >= want, IPI_WAIT_US);
	udelay(1000);
	irq_disable();
	return atomic_xchg(&hits, 0);
}

static u64 bank_mask(u32 nbanks)
{
	return nbanks >= ALL_BANKS ? ~0ull : (1ull << nbanks) - 1;
}

/*
 * The Ex input of `code` into b: its fixed head (address space and flags,
 * or the vector), the set header, then `nbanks` banks naming this VP only.
 * Returns the number of qwords.
 */
static size_t put_set(u64 *b, u16 code, u64 format, u64 valid, u32 nbanks)
{
	size_t n = 0;

	if (code == HVCALL_SEND_IPI_EX) {
		b[n++] = BANK_VECTOR;
	} else {
		b[n++] = 0;	/* address space */
		b[n++] = 0;	/* flags */
	}
	b[n++] = format;
	b[n++] = valid;
	for (u32 i = 0; i < nbanks; i++)
		b[n++] = i ? 0 : 1ull << smp_id();
	return n;
}

static u64 ex_call(u16 code, u32 var, u32 reps, u64 gpa)
{
	return hv_hcall(hcall_ctl(code, var, reps, 0), gpa, 0);
}

static void sparse_limits(void)
{
	const u16 space = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
	u64 *b = hostile_in, in = (uintptr_t)hostile_in;
	u32 bad_vp = boot_nr_cpus;
	size_t n;

	n = put_set(b, space, HV_GENERIC_SET_SPARSE_4K, ~0ull, ALL_BANKS);
	hcall_expect("SpaceEx: 64 sparse banks, this VP only", ex_call(space, 64, 0, in),
		     HV_STATUS_SUCCESS, 0);
	hcall_expect("SpaceEx: mask of 64 banks, header of 63", ex_call(space, 63, 0, in),
		     HV_STATUS_INVALID_HYPERCALL_INPUT, 0);
	hcall_expect("SpaceEx: header of 65 banks", ex_call(space, 65, 0, in),
		     HV_STATUS_INVALID_HYPERCALL_INPUT, 0);
	hcall_expect("SpaceEx: header of 1023 banks", ex_call(space, 1023, 0, in),
		     HV_STATUS_INVALID_HYPERCALL_INPUT, 0);
	b[n - 1] = 1ull << 63;	/* VP 4095 */
	/* KVM skips VPs it has no vCPU for (sparse_set_to_vcpu_mask). */
	hcall_expect_kvm("SpaceEx: 64 banks naming VP 4095", ex_call(space, 64, 0, in),
			 HV_STATUS_INVALID_VP_INDEX, 0, HV_STATUS_SUCCESS, 0, HVD_KVM_DEVIATES);
	b[n - 1] = 0;
	b[4 + bad_vp / 64] |= 1ull << (bad_vp % 64);
	hcall_expect_kvm("SpaceEx: 64 banks naming the first VP past the partition",
			 ex_call(space, 64, 0, in), HV_STATUS_INVALID_VP_INDEX, 0,
			 HV_STATUS_SUCCESS, 0, HVD_KVM_DEVIATES);
	b[4 + bad_vp / 64] &= ~(1ull << (bad_vp % 64));
	b[2] = HV_GENERIC_SET_ALL;
	hcall_expect("SpaceEx: SET_ALL carrying 64 banks", ex_call(space, 64, 0, in),
		     HV_STATUS_SUCCESS, 0);
	b[2] = 2;
	/* KVM takes any format but SET_ALL for a sparse set. */
	hcall_expect_kvm("SpaceEx: set format 2", ex_call(space, 64, 0, in),
			 HV_STATUS_INVALID_PARAMETER, 0, HV_STATUS_SUCCESS, 0, HVD_KVM_DEVIATES);
	b[2] = ~0ull;
	hcall_expect_kvm("SpaceEx: set format 2^64 - 1", ex_call(space, 64, 0, in),
			 HV_STATUS_INVALID_PARAMETER, 0, HV_STATUS_SUCCESS, 0, HVD_KVM_DEVIATES);
}

static void sparse_at_ram_end(void)
{
	const u16 space = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX;
	const u64 bytes = 8 * SET_QWORDS, ram = hostile_ram_end();
	u8 *tail = hostile_tail_page();

	put_set((u64 *)(tail + HOSTILE_PAGE - bytes), space, 0, ~0ull, ALL_BANKS);
	hcall_expect("SpaceEx: 64 banks ending at the last byte of RAM",
		     ex_call(space, 64, 0, ram - bytes), HV_STATUS_SUCCESS, 0);
	hcall_expect_kvm("SpaceEx: 64 banks running past the end of RAM",
			 ex_call(space, 64, 0, ram - bytes + 8), HV_STATUS_INVALID_ALIGNMENT, 0,
			 HV_STATUS_INVALID_HYPERCALL_INPUT, 0, HVD_KVM_DEVIATES);
}

static void list_after_banks(void)
{
	const u16 list = HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX;
	u64 in = (uintptr_t)hostile_in;
	size_t n = put_set(hostile_in, list, 0, ~0ull, ALL_BANKS);

	memset(&hostile_in[n], 0, HOSTILE_PAGE - 8 * n);
	hcall_expect("ListEx: 64 banks and 444 reps fill the page",
		     ex_call(list, 64, LISTEX_FULL, in), HV_STATUS_SUCCESS, LISTEX_FULL);
	/* KVM 6.1 never reads the GVA list: it flushes everything. */
	hcall_expect_kvm("ListEx: 64 banks and 445 reps cross the page",
			 ex_call(list, 64, LISTEX_FULL + 1, in), HV_STATUS_INVALID_ALIGNMENT, 0,
			 HV_STATUS_SUCCESS, LISTEX_FULL + 1, HVD_KVM_DEVIATES);
	hcall_expect_kvm("ListEx: 64 banks and 4095 reps", ex_call(list, 64, 0xfff, in),
			 HV_STATUS_INVALID_ALIGNMENT, 0, HV_STATUS_SUCCESS, 0xfff,
			 HVD_KVM_DEVIATES);
}

static void ipi_banks(void)
{
	const u16 ipi = HVCALL_SEND_IPI_EX;
	u64 in = (uintptr_t)hostile_in, rax;
	size_t n = put_set(hostile_in, ipi, 0, ~0ull, ALL_BANKS);
	char why[64];
	u32 got;

	rax = ex_call(ipi, 64, 0, in);
	got = take_irqs(1);
	report_why(rax == HV_STATUS_SUCCESS && got == 1,
		   "SendIpiEx: 64 banks in memory, this VP only: one interrupt",
		   "result 0x%lx, %u interrupts", rax, got);
	hostile_in[n - 1] = 1ull << 63;
	rax = ex_call(ipi, 64, 0, in);
	/* KVM skips VP 4095 and interrupts this VP, the other member, once. */
	got = take_irqs(hv_kvm_serves() ? 1 : 0);
	snprintf(why, sizeof(why), "result 0x%lx, %u interrupts", rax, got);
	hvd_report(hv_kvm_serves() ? rax == HV_STATUS_SUCCESS && got == 1 :
		   rax == HV_STATUS_INVALID_VP_INDEX && got == 0, HVD_KVM_DEVIATES,
		   "SUCCESS, this VP interrupted once", why,
		   "SendIpiEx: 64 banks naming VP 4095: INVALID_VP_INDEX, no interrupt");
}

/* In XMM form the block is RDX, R8, XMM0-5: 14 qwords at most. */
static u64 ex_xmm(u16 code, u32 nbanks)
{
	u64 b[SET_QWORDS] = { 0 }, in[14];

	put_set(b, code, 0, bank_mask(nbanks), nbanks);
	memcpy(in, b, sizeof(in));
	return hv_hcall_xmm(hcall_ctl(code, nbanks, 0, 0), in);
}

static void xmm_banks(void)
{
	const u16 space = HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, ipi = HVCALL_SEND_IPI_EX;
	const u16 inval = HV_STATUS_INVALID_HYPERCALL_INPUT;
	u64 rax;
	u32 got;

	if (!hostile_xmm()) {
		report_skip("VP sets in XMM registers", "XMM input not advertised");
		return;
	}
	hcall_expect("SpaceEx XMM-fast: 10 banks fill the registers", ex_xmm(space, 10),
		     HV_STATUS_SUCCESS, 0);
	hcall_expect("SpaceEx XMM-fast: 11 banks do not fit", ex_xmm(space, 11), inval, 0);
	hcall_expect("SpaceEx XMM-fast: 64 banks do not fit", ex_xmm(space, 64), inval, 0);
	rax = ex_xmm(ipi, 11);
	got = take_irqs(1);
	report_why(rax == HV_STATUS_SUCCESS && got == 1,
		   "SendIpiEx XMM-fast: 11 banks fill the registers: one interrupt",
		   "result 0x%lx, %u interrupts", rax, got);
	rax = ex_xmm(ipi, 12);
	got = take_irqs(0);
	report_why(rax == inval && got == 0,
		   "SendIpiEx XMM-fast: 12 banks do not fit, no interrupt",
		   "result 0x%lx, %u interrupts", rax, got);
	rax = ex_xmm(ipi, 64);
	got = take_irqs(0);
	report_why(rax == inval && got == 0,
		   "SendIpiEx XMM-fast: 64 banks do not fit, no interrupt",
		   "result 0x%lx, %u interrupts", rax, got);
}

void hostile_banks(void)
{
	irq_register(BANK_VECTOR, bank_irq);
	sparse_limits();
	sparse_at_ram_end();
	list_after_banks();
	ipi_banks();
	xmm_banks();
	irq_unregister(BANK_VECTOR);
}
