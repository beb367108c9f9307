// SPDX-License-Identifier: MIT
/*
 * hv-features: what a Hyper-V guest discovers before its first real call
 * (CPUID leaves, the synthetic MSRs, the hypercall page) and the statuses
 * the VMM must give calls it refuses, per docs/hyperv.md. Without Hyper-V
 * (--no-hyperv) the leaves are absent, the MSRs #GP and KVM's leaves sit
 * at 0x40000000. Idempotent: it leaves the hypercall page enabled at the
 * library's page, as hv_enable_hypercalls() would.
 */
#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/hvdiff.h"
#include "lib/hvtest.h"
#include "lib/paging.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/string.h"
#include "suite.h"

#define HV_GUEST_OS_ID_TEST	((1ull << 63) | 0x7e57ull)	/* open source, "test" */
#define KVM_SIGNATURE		"KVMKVMKVM\0\0\0"
#define KVM_LEAVES_WITH_HV	0x40000100u
#define HV_LEAF_SCAN_END	0x40010000u
#define HV_LEAF_SCAN_STEP	0x100u
#define X86_OUT_IMM8_AL		0xe6
#define X86_RET			0xc3
#define X86_INT3		0xcc
#define TRAP_SEARCH_BYTES	64
/* What KVM writes into the page: VMCALL (VMX) or VMMCALL (SVM), then RET. */
#define KVM_PAGE_LEN		4

static u8 scratch_page[MVM_PAGE_SIZE] __aligned(MVM_PAGE_SIZE);

/* ---- CPUID ---- */

static void check_vendor_leaves(void)
{
	struct cpuid_regs r = cpuid(HV_CPUID_VENDOR_AND_MAX);
	char why[96];

	snprintf(why, sizeof(why), "max leaf 0x%x", r.eax);
	hvt_report(hvt_cpuid_signature(HV_CPUID_VENDOR_AND_MAX, "Microsoft Hv") &&
		   r.eax >= HV_CPUID_IMPLEMENT_LIMITS, why,
		   "CPUID 0x40000000: \"Microsoft Hv\", max leaf >= 0x40000005");
	r = cpuid(HV_CPUID_INTERFACE);
	snprintf(why, sizeof(why), "eax 0x%x", r.eax);
	hvt_report(r.eax == HV_CPUID_SIGNATURE_EAX, why, "CPUID 0x40000001: \"Hv#1\"");
}

static void check_feature_leaves(void)
{
	u32 msrs = HV_MSR_HYPERCALL_AVAILABLE | HV_MSR_VP_INDEX_AVAILABLE;
	u32 hints = HV_X64_REMOTE_TLB_FLUSH_RECOMMENDED | HV_X64_CLUSTER_IPI_RECOMMENDED |
		    HV_X64_EX_PROCESSOR_MASKS_RECOMMENDED;
	struct cpuid_regs f = cpuid(HV_CPUID_FEATURES);
	bool xmm_cpuid = f.edx & HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE;
	bool xmm_boot = boot_info->features & MVM_F_HV_XMM_INPUT;
	u32 eax4 = cpuid(HV_CPUID_ENLIGHTENMENT_INFO).eax;
	u32 max_vps = cpuid(HV_CPUID_IMPLEMENT_LIMITS).eax;
	char why[96];

	snprintf(why, sizeof(why), "eax 0x%x", f.eax);
	hvt_report((f.eax & msrs) == msrs, why,
		   "CPUID 0x40000003: hypercall and VP_INDEX MSRs available");
	snprintf(why, sizeof(why), "CPUID says %u, boot info says %u", xmm_cpuid, xmm_boot);
	hvt_report(xmm_cpuid == xmm_boot, why, "CPUID 0x40000003.EDX XMM input bit (%s) matches "
		   "MVM_F_HV_XMM_INPUT", xmm_boot ? "on" : "off");
	snprintf(why, sizeof(why), "eax 0x%x", eax4);
	hvt_report((eax4 & hints) == hints, why,
		   "CPUID 0x40000004: remote flush, cluster IPI and Ex mask hints");
	snprintf(why, sizeof(why), "eax %u", max_vps);
	hvt_report(max_vps == boot_nr_cpus, why, "CPUID 0x40000005: max VPs == %u vCPUs",
		   boot_nr_cpus);
}

/* Where a guest scanning in steps of 0x100 finds "KVMKVMKVM", or 0. */
static u32 find_kvm_leaves(void)
{
	for (u32 base = HV_CPUID_VENDOR_AND_MAX; base < HV_LEAF_SCAN_END;
	     base += HV_LEAF_SCAN_STEP)
		if (hvt_cpuid_signature(base, KVM_SIGNATURE))
			return base;
	return 0;
}

static void check_kvm_leaves(u32 want)
{
	u32 base = find_kvm_leaves();
	u32 max = base ? cpuid(base).eax : 0;
	char why[96];

	snprintf(why, sizeof(why), "found at 0x%x, max leaf 0x%x", base, max);
	hvt_report(base == want && max >= want + 1, why,
		   "KVM leaves (\"KVMKVMKVM\") at 0x%x, features leaf after them", want);
}

/* ---- MSRs ---- */

static bool page_is_zero(const u8 *page)
{
	for (u32 i = 0; i < MVM_PAGE_SIZE; i++)
		if (READ_ONCE(page[i]))
			return false;
	return true;
}

static int trap_offset(const u8 *page)
{
	for (int i = 0; i + 1 < TRAP_SEARCH_BYTES; i++)
		if (page[i] == X86_OUT_IMM8_AL && page[i + 1] == MVM_PORT_HCALL)
			return i;
	return -1;
}

/* A call the VMM would accept (empty target set) if the page were enabled. */
static int trap_valid_call(u64 *rax)
{
	return hvt_trap(HVCALL_SEND_IPI | HV_HCALL_FAST_BIT, HVT_IPI_VECTOR, 0, rax);
}

/*
 * No Hyper-V call exists without the page: minivmm raises #UD; KVM runs
 * the instruction as one of its own hypercalls (kvm_emulate_hypercall).
 */
static void check_disabled_call(const char *name)
{
	char why[64];
	u64 rax = 0;
	int v = trap_valid_call(&rax);

	snprintf(why, sizeof(why), "caught vector %d, rax 0x%lx", v, rax);
	hvd_report(hv_kvm_serves() ? v == EX_NONE && rax == HVD_KVM_ENOSYS : v == UD_VECTOR,
		   HVD_TLFS_SILENT, "no #UD, a KVM hypercall returning -KVM_ENOSYS", why, "%s", name);
}

static void check_disabled_page(void)
{
	u64 page = (uintptr_t)scratch_page, val = ~0ull, before = 0;
	int wr;
	char why[128];

	wr = wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, 0);
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &val);
	snprintf(why, sizeof(why), "wrmsr vector %d, HYPERCALL 0x%lx", wr, val);
	hvt_report(wr == EX_NONE && !(val & HV_HYPERCALL_ENABLE), why,
		   "GUEST_OS_ID = 0 disables the hypercall page");
	check_disabled_call("hypercall with the page disabled raises #UD");

	memset(scratch_page, 0, sizeof(scratch_page));
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &before);
	wr = wrmsr_safe(HV_X64_MSR_HYPERCALL, page | HV_HYPERCALL_ENABLE);
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &val);
	snprintf(why, sizeof(why), "wrmsr vector %d, HYPERCALL 0x%lx (before 0x%lx), page %s", wr,
		 val, before, page_is_zero(scratch_page) ? "untouched" : "written");
	hvd_report(wr == EX_NONE && val == (hv_kvm_serves() ? before : page) &&
		   page_is_zero(scratch_page), HVD_TLFS_SILENT,
		   "KVM drops the whole write, HYPERCALL unchanged", why,
		   "HYPERCALL enable while GUEST_OS_ID is 0: stored disabled, page not written");
	check_disabled_call("hypercall still #UD after that write");
}

/* KVM's page: its hypercall instruction for this CPU, RET, and the zeros it was given. */
static void check_kvm_page_bytes(void)
{
	static const u8 vmcall[3] = { 0x0f, 0x01, 0xc1 }, vmmcall[3] = { 0x0f, 0x01, 0xd9 };
	const u8 *want = boot_info->backend == MVM_BACKEND_VMX ? vmcall : vmmcall;
	bool ok = !memcmp(scratch_page, want, 3) && scratch_page[3] == X86_RET;
	char why[96];

	for (u32 i = KVM_PAGE_LEN; i < MVM_PAGE_SIZE; i++)
		ok = ok && !scratch_page[i];
	snprintf(why, sizeof(why), "bytes %02x %02x %02x %02x, last byte %02x", scratch_page[0],
		 scratch_page[1], scratch_page[2], scratch_page[3], scratch_page[MVM_PAGE_SIZE - 1]);
	hvt_report(ok, why, "KVM's page: %s; ret, the rest left zero",
		   want == vmcall ? "vmcall" : "vmmcall");
}

static void check_page_bytes(void)
{
	bool spill = boot_info->features & MVM_F_HV_XMM_SPILL;
	int off = trap_offset(scratch_page);
	bool ok = spill ? off >= 0 : off == 0 && scratch_page[2] == X86_RET;
	char why[128];

	ok = ok && scratch_page[MVM_PAGE_SIZE - 1] == X86_INT3;
	snprintf(why, sizeof(why), "trap at offset %d, bytes %02x %02x %02x, last byte %02x",
		 off, scratch_page[0], scratch_page[1], scratch_page[2],
		 scratch_page[MVM_PAGE_SIZE - 1]);
	hvt_report(ok, why, spill ? "spill page holds the trap (out %%al,$0x%x), INT3 fill" :
		   "page starts with the trap (out %%al,$0x%x; ret), INT3 fill", MVM_PORT_HCALL);
}

static void check_enable_page(void)
{
	u64 page = (uintptr_t)scratch_page, val = 0;
	int wr;
	char why[96];

	wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, HV_GUEST_OS_ID_TEST);
	wr = wrmsr_safe(HV_X64_MSR_HYPERCALL, page | HV_HYPERCALL_ENABLE);
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &val);
	snprintf(why, sizeof(why), "wrmsr vector %d, HYPERCALL 0x%lx", wr, val);
	if (hvt_report(wr == EX_NONE && val == (page | HV_HYPERCALL_ENABLE), why,
		       "HYPERCALL enable with a guest OS ID: reads back enabled")) {
		if (hv_kvm_serves())
			check_kvm_page_bytes();
		else
			check_page_bytes();
	}
}

/* Not RAM: the first page past its end, and the VMM's null MMIO page. */
static void check_page_outside_ram(void)
{
	const u64 gpas[] = { ALIGN_UP(boot_info->ram_size, MVM_PAGE_SIZE), MVM_MMIO_NULL };
	u64 before = 0, after = 0;
	char why[96];
	int v;

	for (u32 i = 0; i < ARRAY_SIZE(gpas); i++) {
		rdmsr_safe(HV_X64_MSR_HYPERCALL, &before);
		v = wrmsr_safe(HV_X64_MSR_HYPERCALL, gpas[i] | HV_HYPERCALL_ENABLE);
		rdmsr_safe(HV_X64_MSR_HYPERCALL, &after);
		snprintf(why, sizeof(why), "caught %d, 0x%lx -> 0x%lx", v, before, after);
		hvt_report(v == GP_VECTOR && after == before, why,
			   "HYPERCALL page at GPA 0x%lx (not RAM): #GP, value unchanged", gpas[i]);
	}
}

static u64 vp_index_seen[GUEST_MAX_VCPUS];
static int vp_index_vector[GUEST_MAX_VCPUS];

static void read_vp_index(void *arg)
{
	u32 cpu = smp_id();

	(void)arg;
	vp_index_vector[cpu] = rdmsr_safe(HV_X64_MSR_VP_INDEX, &vp_index_seen[cpu]);
}

static void check_vp_index(void)
{
	u32 bad = boot_nr_cpus;
	u64 val = ~0ull;
	char why[96] = "";
	int v;

	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++) {
		vp_index_vector[cpu] = EX_NONE - 1;
		smp_call(cpu, read_vp_index, NULL, true);
		if (bad == boot_nr_cpus && (vp_index_vector[cpu] != EX_NONE ||
					    vp_index_seen[cpu] != cpu))
			bad = cpu;
	}
	if (bad < boot_nr_cpus)
		snprintf(why, sizeof(why), "vCPU %u: vector %d, value %lu", bad,
			 vp_index_vector[bad], vp_index_seen[bad]);
	hvt_report(bad == boot_nr_cpus, why, "VP_INDEX reads each vCPU's own index (%u vCPUs)",
		   boot_nr_cpus);
	v = wrmsr_safe(HV_X64_MSR_VP_INDEX, 5);
	rdmsr_safe(HV_X64_MSR_VP_INDEX, &val);
	snprintf(why, sizeof(why), "caught %d, reads %lu afterwards", v, val);
	hvt_report(v == GP_VECTOR && val == smp_id(), why, "VP_INDEX write: #GP, value unchanged");
}

/* RESET (never written with bit 0), VP_RUNTIME, TIME_REF_COUNT, the range's end. */
static const u32 absent_msrs[] = { 0x40000003, 0x40000010, 0x40000020, HV_X64_MSR_LAST };

static void check_msrs_gp(const u32 *msrs, u32 nr, const char *what)
{
	char why[96];
	u64 val;

	for (u32 i = 0; i < nr; i++) {
		int r = rdmsr_safe(msrs[i], &val), w = wrmsr_safe(msrs[i], 0);

		snprintf(why, sizeof(why), "rdmsr caught %d, wrmsr caught %d", r, w);
		hvt_report(r == GP_VECTOR && w == GP_VECTOR, why,
			   "%s MSR 0x%x: rdmsr and wrmsr #GP", what, msrs[i]);
	}
}

static void check_msrs(void)
{
	const char *why = "";

	check_disabled_page();
	check_enable_page();
	check_page_outside_ram();
	report_why(!hv_enable_hypercalls(&why), "hypercall page re-enabled at the library page",
		   "%s", why);
	check_vp_index();
	check_msrs_gp(absent_msrs, ARRAY_SIZE(absent_msrs), "not offered by minivmm");
}

/* ---- statuses ---- */

static void expect(u64 rax, u64 want, const char *name_fmt, ...) __printf(3, 4);

/* RAX must be exactly `want`: the status, plus reps completed for a rep call. */
static void expect(u64 rax, u64 want, const char *name_fmt, ...)
{
	char name[128], why[64];
	va_list ap;

	va_start(ap, name_fmt);
	vsnprintf(name, sizeof(name), name_fmt, ap);
	va_end(ap);
	snprintf(why, sizeof(why), "result 0x%lx, expected 0x%lx", rax, want);
	report_why(rax == want, name, "%s", why);
}

static struct hvt_in ipi_in(u64 vector, u64 mask)
{
	struct hvt_in in = { .n = 0 };

	hvt_put(&in, vector);
	hvt_put(&in, mask);
	return in;
}

static struct hvt_in flush_in(u64 flags, u64 mask)
{
	struct hvt_in in = { .n = 0 };

	hvt_put(&in, read_cr3());
	hvt_put(&in, flags);
	hvt_put(&in, mask);
	return in;
}

static void check_unknown_codes(void)
{
	/* 0x0001 is a TLFS call (HvSwitchVirtualAddressSpace) minivmm lacks. */
	static const u16 codes[] = { 0x0001, 0x7fff };
	struct hvt_in in = ipi_in(HVT_IPI_VECTOR, 0);

	for (u32 i = 0; i < ARRAY_SIZE(codes); i++)
		for (u32 enc = HVT_MEM; enc <= HVT_XMM; enc++)
			expect(hvt_call(enc, codes[i], &in), HV_STATUS_INVALID_HYPERCALL_CODE,
			       "unknown call code 0x%x, %s: INVALID_HYPERCALL_CODE", codes[i],
			       hvt_enc_name(enc));
}

static void check_reserved_bits(void)
{
	static const u8 bits[] = { 27, 30, 31, 44, 47, 60, 63 };
	struct hvt_in in = ipi_in(HVT_IPI_VECTOR, 0);

	expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI, &in), HV_STATUS_SUCCESS,
	       "SendIpi with an empty mask: SUCCESS (the base of the next checks)");
	for (u32 i = 0; i < ARRAY_SIZE(bits); i++)
		expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI | (1ull << bits[i]), &in),
		       HV_STATUS_INVALID_HYPERCALL_INPUT,
		       "reserved RCX bit %u: INVALID_HYPERCALL_INPUT", bits[i]);
}

static void check_shapes(void)
{
	struct hvt_in ipi = ipi_in(HVT_IPI_VECTOR, 0), list = flush_in(0, 0), ex = { .n = 0 };
	u64 bank = 1;

	expect(hvt_call(HVT_MEM, hvt_control(HVCALL_SEND_IPI, 0, 1, 0), &ipi),
	       HV_STATUS_INVALID_HYPERCALL_INPUT, "rep count 1 on simple SendIpi: 0x3");
	expect(hvt_call(HVT_MEM, hvt_control(HVCALL_SEND_IPI, 0, 0, 1), &ipi),
	       HV_STATUS_INVALID_HYPERCALL_INPUT, "rep start 1 on simple SendIpi: 0x3");
	expect(hvt_call(HVT_MEM, hvt_control(HVCALL_SEND_IPI, 1, 0, 0), &ipi),
	       HV_STATUS_INVALID_HYPERCALL_INPUT, "variable header on non-Ex SendIpi: 0x3");
	expect(hvt_call(HVT_MEM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, 0, 0), &list),
	       HV_STATUS_INVALID_HYPERCALL_INPUT, "rep count 0 on rep call FlushList: 0x3");
	hvt_put(&list, 0);
	expect(hvt_call(HVT_MEM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, 1, 1), &list),
	       HV_STATUS_INVALID_HYPERCALL_INPUT, "FlushList rep start == rep count: 0x3");
	hvt_put(&ex, HVT_IPI_VECTOR);
	hvt_put_vpset(&ex, HV_GENERIC_SET_SPARSE_4K, 1, &bank);
	expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI_EX, &ex), HV_STATUS_INVALID_HYPERCALL_INPUT,
	       "SendIpiEx with one bank but variable header 0: 0x3");
}

/* Reps completed are absolute: start 1, count 3, success -> 3. */
static void check_rep_result(void)
{
	struct hvt_in list = flush_in(0, 0);
	u64 rax;

	for (u32 i = 0; i < 3; i++)
		hvt_put(&list, 0);
	rax = hvt_call(HVT_MEM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, 3, 1), &list);
	hvd_expect(rax, 3ull << HV_HCALL_RESULT_REPS_SHIFT, HV_STATUS_INVALID_HYPERCALL_INPUT,
		   HVD_KVM_DEVIATES,
		   "FlushList reps 1..2 of 3 (empty mask): SUCCESS, reps completed 3");
}

static void check_input_gpas(void)
{
	struct hvt_in in = ipi_in(HVT_IPI_VECTOR, 0);
	u64 page = hvt_in_page_gpa(), ram_end = ALIGN_UP(boot_info->ram_size, MVM_PAGE_SIZE);

	expect(hvt_call_at(HVCALL_SEND_IPI, &in, page + MVM_PAGE_SIZE - 16), HV_STATUS_SUCCESS,
	       "input block ending exactly at a page end: SUCCESS");
	hvd_expect(hvt_call_at(HVCALL_SEND_IPI, &in, page + 4), HV_STATUS_INVALID_ALIGNMENT,
		   HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "input GPA not 8-byte aligned: INVALID_ALIGNMENT");
	hvd_expect(hvt_call_at(HVCALL_SEND_IPI, &in, page + MVM_PAGE_SIZE - 8),
		   HV_STATUS_INVALID_ALIGNMENT, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "input block crossing a page: INVALID_ALIGNMENT");
	hvd_expect(hvt_call_at(HVCALL_SEND_IPI, &in, ram_end), HV_STATUS_INVALID_ALIGNMENT,
		   HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_KVM_DEVIATES,
		   "input GPA 0x%lx beyond RAM: INVALID_ALIGNMENT", ram_end);
	hvd_expect(hvt_call_at(HVCALL_SEND_IPI, &in, MVM_MMIO_NULL), HV_STATUS_INVALID_ALIGNMENT,
		   HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_TLFS_SILENT,
		   "input GPA in the null MMIO page: INVALID_ALIGNMENT");
}

static void check_vectors(void)
{
	static const u32 bad[] = { 0x0f, 0x100 }, good[] = { HV_IPI_VECTOR_MIN, HV_IPI_VECTOR_MAX };
	struct hvt_in ex = { .n = 0 };

	for (u32 i = 0; i < ARRAY_SIZE(bad); i++) {
		struct hvt_in in = ipi_in(bad[i], 0);

		hvd_expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI, &in), HV_STATUS_INVALID_PARAMETER,
			   HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_TLFS_SILENT,
			   "SendIpi regular, vector 0x%x: INVALID_PARAMETER", bad[i]);
		hvd_expect(hvt_call(HVT_FAST, HVCALL_SEND_IPI, &in), HV_STATUS_INVALID_PARAMETER,
			   HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_TLFS_SILENT,
			   "SendIpi fast, vector 0x%x: INVALID_PARAMETER", bad[i]);
	}
	for (u32 i = 0; i < ARRAY_SIZE(good); i++) {
		struct hvt_in in = ipi_in(good[i], 0);

		expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI, &in), HV_STATUS_SUCCESS,
		       "SendIpi, vector 0x%x, empty mask: SUCCESS", good[i]);
	}
	hvt_put(&ex, 0x0f);
	hvt_put_vpset(&ex, HV_GENERIC_SET_SPARSE_4K, 0, NULL);
	hvd_expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI_EX, &ex), HV_STATUS_INVALID_PARAMETER,
		   HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "SendIpiEx, vector 0x0f, empty set: INVALID_PARAMETER");
}

/*
 * Byte 4 is HV_INPUT_VTL: VTL 3:0, UseTargetVtl 4, ReservedZ 7:5; bytes 5..7
 * must be zero too. Only VTL 0 exists, and VTL bits without UseTargetVtl are
 * not honoured (docs/hyperv.md).
 */
static void check_vtl_and_format(void)
{
	/* KVM's fast form takes RDX 63:32 as reserved (kvm_hv_send_ipi). */
	static const struct { u8 vtl; u16 status, kvm; enum hvd_verdict v; } vtls[] = {
		{ 0x01, HV_STATUS_SUCCESS, HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_KVM_DEVIATES },
		{ 0x10, HV_STATUS_SUCCESS, HV_STATUS_INVALID_HYPERCALL_INPUT, HVD_KVM_DEVIATES },
		{ 0x11, HV_STATUS_INVALID_PARAMETER, HV_STATUS_INVALID_HYPERCALL_INPUT,
		  HVD_TLFS_SILENT },		/* use VTL 1, which does not exist */
		{ 0x20, HV_STATUS_INVALID_HYPERCALL_INPUT, HV_STATUS_INVALID_HYPERCALL_INPUT,
		  HVD_SAME },			/* ReservedZ */
	};
	struct hvt_in ex = { .n = 0 };

	for (u32 i = 0; i < ARRAY_SIZE(vtls); i++) {
		struct hvt_in in = ipi_in(HVT_IPI_VECTOR | (u64)vtls[i].vtl << 32, 0);

		hvd_expect(hvt_call(HVT_FAST, HVCALL_SEND_IPI, &in), vtls[i].status, vtls[i].kvm,
			   vtls[i].v, "SendIpi fast, target VTL byte 0x%02x: status 0x%x",
			   vtls[i].vtl, vtls[i].status);
	}
	/* The memory form's padding is not read by KVM; its fast form's is RDX 63:40. */
	for (u32 enc = HVT_MEM; enc <= HVT_FAST; enc++) {
		struct hvt_in in = ipi_in(HVT_IPI_VECTOR | 1ull << 40, 0);

		hvd_expect(hvt_call(enc, HVCALL_SEND_IPI, &in), HV_STATUS_INVALID_HYPERCALL_INPUT,
			   enc == HVT_MEM ? HV_STATUS_SUCCESS : HV_STATUS_INVALID_HYPERCALL_INPUT,
			   HVD_MINIVMM_STRICTER,
			   "SendIpi %s, byte 5 (after the VTL) non-zero: INVALID_HYPERCALL_INPUT",
			   hvt_enc_name(enc));
	}
	hvt_put(&ex, HVT_IPI_VECTOR);
	hvt_put_vpset(&ex, 2, 0, NULL);
	hvd_expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI_EX, &ex), HV_STATUS_INVALID_PARAMETER,
		   HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "SendIpiEx, VP set format 2 (unknown): INVALID_PARAMETER");
}

/*
 * KVM skips VPs it has no vCPU for and serves the rest (sparse_set_to_vcpu_mask):
 * the caller, VP 0, must have taken exactly the one interrupt.
 */
static void kvm_delivered_to_self(const char *what)
{
	char why[128] = "";

	if (!hv_kvm_serves())
		return;
	hvt_report(hvt_ipi_check(1, why, sizeof(why)), why,
		   "KVM delivered %s to VP 0 (the valid member) alone, once", what);
	hvt_ipi_clear();
}

/* Non-Ex masks: the first bit past the last vCPU, when a 64-bit mask has one. */
static void check_absent_vp_masks(void)
{
	u64 absent = 1ull << boot_nr_cpus;
	struct hvt_in ipi, flush;

	if (boot_nr_cpus >= 64) {
		report_skip("absent VP in a 64-bit mask", "%u vCPUs: every mask bit is a VP",
			    boot_nr_cpus);
		return;
	}
	ipi = ipi_in(HVT_IPI_VECTOR, absent | 1);
	flush = flush_in(0, absent | 1);
	hvd_expect(hvt_call(HVT_MEM, HVCALL_SEND_IPI, &ipi), HV_STATUS_INVALID_VP_INDEX,
		   HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "SendIpi mask naming VP %u (absent): INVALID_VP_INDEX", boot_nr_cpus);
	kvm_delivered_to_self("SendIpi mask {0, absent}");
	hvd_expect(hvt_call(HVT_MEM, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, &flush),
		   HV_STATUS_INVALID_VP_INDEX, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "FlushSpace mask naming VP %u (absent): INVALID_VP_INDEX", boot_nr_cpus);
}

/* Ex sets naming VP 0 and an absent VP; `valid` lists `banks` in order. */
static void expect_absent(u64 valid, const u64 *banks, const char *what)
{
	struct hvt_in ipi = { .n = 0 }, flush = { .n = 0 };
	u32 nr;

	hvt_put(&ipi, HVT_IPI_VECTOR);
	nr = hvt_put_vpset(&ipi, HV_GENERIC_SET_SPARSE_4K, valid, banks);
	hvd_expect(hvt_call(HVT_MEM, hvt_control(HVCALL_SEND_IPI_EX, nr, 0, 0), &ipi),
		   HV_STATUS_INVALID_VP_INDEX, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "SendIpiEx set %s: INVALID_VP_INDEX", what);
	kvm_delivered_to_self("SendIpiEx");
	hvt_put(&flush, read_cr3());
	hvt_put(&flush, 0);
	nr = hvt_put_vpset(&flush, HV_GENERIC_SET_SPARSE_4K, valid, banks);
	hvd_expect(hvt_call(HVT_MEM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE_EX, nr, 0, 0),
			    &flush),
		   HV_STATUS_INVALID_VP_INDEX, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "FlushSpaceEx set %s: INVALID_VP_INDEX", what);
}

/*
 * Ex sets: VP nr_vcpus, the first index past the last vCPU, in whatever
 * bank it falls (bank 0 itself below 64 vCPUs); and bank 63, the last one a
 * valid-bank mask can name, which no guest.elf VP reaches.
 */
static void check_absent_vp_sets(void)
{
	u32 absent = boot_nr_cpus, bank = absent / 64;
	u64 banks[2] = { 1, 1ull << (absent % 64) };
	char what[48];

	snprintf(what, sizeof(what), "{0, %u} (VP %u absent)", absent, absent);
	if (bank == 0) {
		banks[0] |= banks[1];
		expect_absent(1, banks, what);
	} else {
		expect_absent(1 | 1ull << bank, banks, what);
	}
	banks[1] = 1;
	expect_absent(1 | 1ull << 63, banks, "{0, 4032} (bank 63, past every vCPU)");
}

static void check_flush_params(void)
{
	struct hvt_in space = flush_in(1ull << 4, 1), none = flush_in(0, 0);
	struct hvt_in ext = flush_in(HV_FLUSH_USE_EXTENDED_RANGE_FORMAT, 1);
	struct hvt_in list = flush_in(HV_FLUSH_NON_GLOBAL_MAPPINGS_ONLY, 1);

	hvt_put(&list, 0);
	/* KVM reads no flag but ALL_PROCESSORS (kvm_hv_flush_tlb). */
	hvd_expect(hvt_call(HVT_MEM, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, &space),
		   HV_STATUS_INVALID_HYPERCALL_INPUT, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "FlushSpace with reserved flag bit 4: INVALID_HYPERCALL_INPUT");
	hvd_expect(hvt_call(HVT_MEM, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, &ext),
		   HV_STATUS_INVALID_PARAMETER, HV_STATUS_SUCCESS, HVD_KVM_DEVIATES,
		   "FlushSpace with USE_EXTENDED_RANGE_FORMAT (not offered): INVALID_PARAMETER");
	hvd_expect(hvt_call(HVT_MEM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST, 0, 1, 0),
			    &list),
		   HV_STATUS_INVALID_PARAMETER, 1ull << HV_HCALL_RESULT_REPS_SHIFT,
		   HVD_KVM_DEVIATES, "FlushList with NON_GLOBAL_MAPPINGS_ONLY: INVALID_PARAMETER");
	expect(hvt_call(HVT_MEM, HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, &none), HV_STATUS_SUCCESS,
	       "FlushSpace, zero mask without ALL_PROCESSORS: SUCCESS (flushes nothing)");
}

/* The XMM area is 112 bytes: a FlushListEx with 12 GVAs needs 128. */
static void check_xmm_too_big(void)
{
	struct hvt_in in = flush_in(0, HV_GENERIC_SET_SPARSE_4K);

	if (!hvt_xmm_offered()) {
		report_skip("XMM-fast input beyond 112 bytes", "XMM input not advertised");
		return;
	}
	hvt_put(&in, 0);	/* valid banks: none */
	/* KVM 6.1 flushes everything and never reads the GVA list, so never sees it overflow. */
	hvd_expect(hvt_call(HVT_XMM, hvt_control(HVCALL_FLUSH_VIRTUAL_ADDRESS_LIST_EX, 0, 12, 0),
			    &in),
		   HV_STATUS_INVALID_HYPERCALL_INPUT, 12ull << HV_HCALL_RESULT_REPS_SHIFT,
		   HVD_KVM_DEVIATES, "XMM-fast FlushListEx needing 128 bytes: INVALID_HYPERCALL_INPUT");
}

/* Only with --no-hv-xmm: the fast bit on a call needing XMM input is #UD. */
static void check_xmm_not_offered(void)
{
	static const u16 codes[] = { HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE, HVCALL_SEND_IPI_EX };
	char why[64];
	u64 rax;
	int v;

	if (hvt_xmm_offered()) {
		report_skip("XMM-fast call without XMM input -> #UD",
			    "XMM input is advertised here (run with --no-hv-xmm)");
		return;
	}
	for (u32 i = 0; i < ARRAY_SIZE(codes); i++) {
		rax = 0;
		v = hvt_trap(codes[i] | HV_HCALL_FAST_BIT, read_cr3(), 0, &rax);
		snprintf(why, sizeof(why), "caught vector %d, rax 0x%lx", v, rax);
		hvt_report(v == UD_VECTOR, why, "XMM-fast call 0x%x without XMM input: #UD",
			   codes[i]);
	}
	rax = hv_hcall_fast(HVCALL_SEND_IPI, HVT_IPI_VECTOR, 0);
	expect(rax, HV_STATUS_SUCCESS, "register-fast SendIpi still works without XMM input");
}

static void check_statuses(void)
{
	char why[128] = "";

	hvt_ipi_arm();
	check_unknown_codes();
	check_reserved_bits();
	check_shapes();
	check_rep_result();
	check_input_gpas();
	check_vectors();
	check_vtl_and_format();
	check_absent_vp_masks();
	check_absent_vp_sets();
	check_flush_params();
	check_xmm_too_big();
	check_xmm_not_offered();
	report_why(hvt_ipi_check(0, why, sizeof(why)),
		   "no refused or empty call delivered an interrupt", "%s", why);
	hvt_ipi_disarm();
	hvd_summary("hv-features");
}

static void check_without_hyperv(void)
{
	static const u32 msrs[] = { HV_X64_MSR_GUEST_OS_ID, HV_X64_MSR_HYPERCALL,
				    HV_X64_MSR_VP_INDEX };

	report_skip("Hyper-V", "Hyper-V not offered (minivmm --no-hyperv?)");
	check_msrs_gp(msrs, ARRAY_SIZE(msrs), "without Hyper-V,");
	check_kvm_leaves(HV_CPUID_VENDOR_AND_MAX);
}

void hv_features_part(void)
{
	if (!hv_detect()) {
		check_without_hyperv();
		return;
	}
	check_vendor_leaves();
	check_feature_leaves();
	check_kvm_leaves(KVM_LEAVES_WITH_HV);
	check_msrs();
	if (hvt_ready())
		check_statuses();
}

static void suite_hv_features(const char *arg)
{
	(void)arg;
	hv_features_part();
}

DEFINE_SUITE(21, suite_hv_features, "hv-features", false, NULL,
	     "Hyper-V CPUID leaves, MSRs, hypercall page, refused-call statuses");
