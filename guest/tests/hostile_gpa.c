// SPDX-License-Identifier: MIT
/*
 * hostile: where the input block is, and how long. The VMM must read a
 * block only when it lies wholly in one RAM page at an 8-byte aligned GPA
 * (else INVALID_ALIGNMENT, docs/hyperv.md), with no sum that can wrap at
 * 2^64, and must count the whole rep list, whatever the guest wrote.
 */
#include "lib/hv.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "tests/hostile.h"

#define FLUSH_HDR	24u	/* struct hv_flush_va */
#define FLUSH_EX_HDR	32u	/* struct hv_flush_va_ex, no banks */
#define REPS_PER_PAGE	((HOSTILE_PAGE - FLUSH_HDR) / 8)	/* 509 */
#define XMM_REPS	((HV_HCALL_FAST_INPUT_MAX - FLUSH_HDR) / 8)	/* 11 */
#define REP_MAX		0xfffu

/* FlushVirtualAddressSpace of this VP only: a call that does real work. */
static void put_flush(void *where)
{
	struct hv_flush_va f = { .processor_mask = 1ull << smp_id() };

	memcpy(where, &f, sizeof(f));
}

/*
 * KVM (kvm_hv_flush_tlb) reads the block wherever it is, at any alignment
 * and across pages, and says INVALID_HYPERCALL_INPUT where nothing backs
 * it: the TLFS's INVALID_ALIGNMENT covers unaligned, page-crossing and
 * out-of-space blocks; it names no status for device pages.
 */
static void flush_at(const char *name, u64 gpa, u16 status, u16 kvm_status, enum hvd_verdict v)
{
	hcall_expect_kvm(name, hv_hcall(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, gpa, 0), status, 0,
			 kvm_status, 0, v);
}

bool hostile_kvm_apic_page_mapped;

/*
 * minivmm: no RAM, INVALID_ALIGNMENT. KVM: INVALID_HYPERCALL_INPUT, or,
 * where its APIC-access page is a memslot, zeros read: an empty flush,
 * SUCCESS. Either is named; hostile_msr checks the HYPERCALL MSR agrees.
 */
static void lapic_page_input(void)
{
	u64 rax = hv_hcall(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, HOSTILE_LAPIC_GPA, 0);
	char why[64];

	if (!hv_kvm_serves()) {
		hcall_expect("GPA of the LAPIC page", rax, HV_STATUS_INVALID_ALIGNMENT, 0);
		return;
	}
	hostile_kvm_apic_page_mapped = rax == HV_STATUS_SUCCESS;
	snprintf(why, sizeof(why), "result 0x%lx, expected 0x0 or 0x3", rax);
	hvd_report(rax == HV_STATUS_SUCCESS || rax == HV_STATUS_INVALID_HYPERCALL_INPUT,
		   HVD_TLFS_SILENT, hostile_kvm_apic_page_mapped ?
		   "SUCCESS: KVM's APIC-access page is guest memory to it here, read as zeros" :
		   "INVALID_HYPERCALL_INPUT", why, "GPA of the LAPIC page");
}

static void gpa_edges(void)
{
	u64 ram = hostile_ram_end(), in = (uintptr_t)hostile_in;
	u8 *tail = hostile_tail_page();

	const u16 al = HV_STATUS_INVALID_ALIGNMENT, inval = HV_STATUS_INVALID_HYPERCALL_INPUT;
	const enum hvd_verdict dev = HVD_KVM_DEVIATES;

	put_flush(tail + HOSTILE_PAGE - FLUSH_HDR);
	flush_at("block ending at the last byte of RAM", ram - FLUSH_HDR, HV_STATUS_SUCCESS,
		 HV_STATUS_SUCCESS, HVD_SAME);
	flush_at("block from the last qword of RAM", ram - 8, al, inval, dev);
	flush_at("block at the first byte past RAM", ram, al, inval, dev);
	put_flush(hostile_in);
	flush_at("block crossing a page inside RAM", in + HOSTILE_PAGE - 16, al,
		 HV_STATUS_SUCCESS, dev);
	flush_at("GPA misaligned by 4", in + 4, al, HV_STATUS_SUCCESS, dev);
	flush_at("GPA misaligned by 1", in + 1, al, HV_STATUS_SUCCESS, dev);
	flush_at("GPA in the MMIO window", 0xc0000000ull, al, inval, HVD_TLFS_SILENT);
	lapic_page_input();
	flush_at("GPA 4 GiB", 1ull << 32, al, inval, dev);
	flush_at("GPA 2^52 - 4096", (1ull << 52) - HOSTILE_PAGE, al, inval, dev);
	flush_at("GPA 2^63", 1ull << 63, al, inval, dev);
	flush_at("GPA 2^64 - 4096", 0ull - HOSTILE_PAGE, al, inval, dev);
	flush_at("block ending exactly at 2^64", 0ull - FLUSH_HDR, al, inval, dev);
	flush_at("block wrapping past 2^64", 0ull - 8, al, inval, dev);
	flush_at("GPA 2^64 - 1", ~0ull, al, inval, dev);
	/* None of the six calls has output: R8 must not be looked at. */
	hcall_expect("output GPA 2^64 - 1 is ignored",
		     hv_hcall(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, in, ~0ull),
		     HV_STATUS_SUCCESS, 0);
}

/* A FlushVirtualAddressList header at `where`, then a zeroed list. */
static void put_list(u8 *where, size_t list_bytes)
{
	put_flush(where);
	memset(where + FLUSH_HDR, 0, list_bytes);
}

static u64 list_call(u64 gpa, u32 count, u32 start)
{
	return hv_hcall(hcall_ctl(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, count, start), gpa, 0);
}

static void rep_lists(void)
{
	u64 in = (uintptr_t)hostile_in, ram = hostile_ram_end();
	const u16 al = HV_STATUS_INVALID_ALIGNMENT, inval = HV_STATUS_INVALID_HYPERCALL_INPUT;

	/*
	 * Only one entry is written: the VMM must size the list from RCX.
	 * KVM 6.1 flushes everything and never reads the GVA list (so never
	 * finds it past the page or past RAM), and refuses any rep start.
	 */
	put_list((u8 *)hostile_in, 8);
	hcall_expect_kvm("4095 reps, one entry written: list runs past the page",
			 list_call(in, REP_MAX, 0), al, 0, HV_STATUS_SUCCESS, REP_MAX,
			 HVD_KVM_DEVIATES);
	hcall_expect_kvm("4095 reps from start 4094", list_call(in, REP_MAX, REP_MAX - 1), al, 0,
			 inval, 0, HVD_KVM_DEVIATES);
	put_list((u8 *)hostile_in, HOSTILE_PAGE - FLUSH_HDR);
	hcall_expect("509 reps fill the page exactly", list_call(in, REPS_PER_PAGE, 0),
		     HV_STATUS_SUCCESS, REPS_PER_PAGE);
	hcall_expect_kvm("509 reps from start 508: reps completed is absolute",
			 list_call(in, REPS_PER_PAGE, REPS_PER_PAGE - 1), HV_STATUS_SUCCESS,
			 REPS_PER_PAGE, inval, 0, HVD_KVM_DEVIATES);
	hcall_expect_kvm("510 reps cross the page", list_call(in, REPS_PER_PAGE + 1, 0), al, 0,
			 HV_STATUS_SUCCESS, REPS_PER_PAGE + 1, HVD_KVM_DEVIATES);
	put_list(hostile_tail_page(), HOSTILE_PAGE - FLUSH_HDR);
	hcall_expect("509 reps ending at the last byte of RAM",
		     list_call(ram - HOSTILE_PAGE, REPS_PER_PAGE, 0), HV_STATUS_SUCCESS,
		     REPS_PER_PAGE);
	hcall_expect_kvm("4095 reps at the last page of RAM",
			 list_call(ram - HOSTILE_PAGE, REP_MAX, 0), al, 0, HV_STATUS_SUCCESS,
			 REP_MAX, HVD_KVM_DEVIATES);
	hcall_expect("rep start == rep count (4095)", list_call(in, REP_MAX, REP_MAX), inval, 0);
	hcall_expect("rep start 4095, count 1", list_call(in, 1, REP_MAX), inval, 0);
	hcall_expect("rep count 0 on a rep call", list_call(in, 0, 0), inval, 0);
	hcall_expect("4095 reps on a simple call",
		     hv_hcall(hcall_ctl(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, 0, REP_MAX, 0), in, 0),
		     inval, 0);
	hcall_expect("rep start on a simple call",
		     hv_hcall(hcall_ctl(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, 0, 0, 1), in, 0),
		     inval, 0);
}

static u64 list_xmm(u32 count)
{
	u64 in[14] = { 0, 0, 1ull << smp_id() };

	return hv_hcall_xmm(hcall_ctl(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, count, 0), in);
}

static void rep_lists_xmm(void)
{
	const u16 inval = HV_STATUS_INVALID_HYPERCALL_INPUT;

	if (!hostile_xmm()) {
		report_skip("rep lists in XMM registers", "XMM input not advertised");
		return;
	}
	hcall_expect("XMM-fast: 11 reps fill RDX, R8 and XMM0-5", list_xmm(XMM_REPS),
		     HV_STATUS_SUCCESS, XMM_REPS);
	hcall_expect_kvm("XMM-fast: 12 reps do not fit", list_xmm(XMM_REPS + 1), inval, 0,
			 HV_STATUS_SUCCESS, XMM_REPS + 1, HVD_KVM_DEVIATES);
	hcall_expect_kvm("XMM-fast: 4095 reps do not fit", list_xmm(REP_MAX), inval, 0,
			 HV_STATUS_SUCCESS, REP_MAX, HVD_KVM_DEVIATES);
}

void hostile_gpa(void)
{
	gpa_edges();
	rep_lists();
	rep_lists_xmm();
}
