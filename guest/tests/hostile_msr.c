// SPDX-License-Identifier: MIT
/*
 * hostile: the Hyper-V MSR range 0x40000000..0x400000ff. Reads: only
 * GUEST_OS_ID, HYPERCALL and VP_INDEX exist, the rest #GP. Writes of
 * garbage: GUEST_OS_ID takes anything; HYPERCALL takes anything but an
 * enabled page outside RAM (#GP, old value kept); VP_INDEX and the rest
 * #GP. A HYPERCALL value that would lock the MSR is turned into one that
 * must #GP instead: a locked MSR could not be restored. The page is
 * re-enabled at the payload's page afterwards.
 */
#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/percpu.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/smp.h"
#include "lib/timing.h"
#include "tests/hostile.h"

#define NR_PATTERNS	8
#define RAX_MARK	0x5a5a5a5a5a5a5a5aull
#define GOOD_OS_ID	((1ull << 63) | 0x4d564dull)	/* what hv_enable_hypercalls writes */

static u64 patterns[NR_PATTERNS] = {
	0, ~0ull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull, 0x8000000000000000ull,
	0xdeadbeefcafef00dull,
};

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Two patterns from the TSC: different garbage every run. */
static void fill_random_patterns(void)
{
	u64 seed = rdtsc() | 1;

	patterns[NR_PATTERNS - 2] = xorshift(&seed);
	patterns[NR_PATTERNS - 1] = xorshift(&seed);
}

static bool frame_in_ram(u64 val)
{
	u64 gpa = val & ~(HOSTILE_PAGE - 1);

	return gpa < hostile_ram_end() && hostile_ram_end() - gpa >= HOSTILE_PAGE;
}

/* Never let garbage lock the MSR: make it an enabled page outside RAM. */
static u64 hypercall_garbage(u64 val)
{
	if (val & HV_HYPERCALL_LOCKED)
		val |= HV_HYPERCALL_ENABLE;
	if ((val & HV_HYPERCALL_ENABLE) && frame_in_ram(val))
		val |= 1ull << 63;
	return val;
}

struct msr_tally {
	u32 tries, bad;
	u32 first_msr;
	u64 first_val;
	int first_vec;
};

static void tally(struct msr_tally *t, u32 msr, u64 val, int vec, bool ok)
{
	t->tries++;
	if (ok || t->bad++)
		return;
	t->first_msr = msr;
	t->first_val = val;
	t->first_vec = vec;
}

static void tally_report(const struct msr_tally *t, const char *name)
{
	report_why(!t->bad && t->tries, name,
		   "%u of %u wrong; first: MSR 0x%x value 0x%lx vector %d",
		   t->bad, t->tries, t->first_msr, t->first_val, t->first_vec);
}

static void read_sweep(void)
{
	struct msr_tally exist = { 0 }, absent = { 0 };
	u64 page = (uintptr_t)hv_hypercall_page | HV_HYPERCALL_ENABLE;

	for (u32 msr = HV_X64_MSR_FIRST; msr <= HV_X64_MSR_LAST; msr++) {
		u64 val = 0;
		int v = rdmsr_safe(msr, &val);

		if (msr == HV_X64_MSR_GUEST_OS_ID)
			tally(&exist, msr, val, v, v == EX_NONE && val == GOOD_OS_ID);
		else if (msr == HV_X64_MSR_HYPERCALL)
			tally(&exist, msr, val, v, v == EX_NONE && val == page);
		else if (msr == HV_X64_MSR_VP_INDEX)
			tally(&exist, msr, val, v, v == EX_NONE && val == smp_id());
		else
			tally(&absent, msr, val, v, v == GP_VECTOR);
	}
	tally_report(&exist, "rdmsr GUEST_OS_ID, HYPERCALL, VP_INDEX: the values we set");
	tally_report(&absent, "rdmsr of the 253 other Hyper-V MSRs raises #GP");
}

static u64 vp_index_seen[GUEST_MAX_VCPUS];

static void read_vp_index(void *arg)
{
	u64 val = ~0ull;

	(void)arg;
	if (rdmsr_safe(HV_X64_MSR_VP_INDEX, &val) != EX_NONE)
		val = ~0ull;
	WRITE_ONCE(vp_index_seen[smp_id()], val);
}

static void vp_index_everywhere(void)
{
	u32 bad = boot_nr_cpus;

	smp_call_all(read_vp_index, NULL);
	for (u32 cpu = boot_nr_cpus; cpu-- > 0;)
		if (vp_index_seen[cpu] != cpu)
			bad = cpu;
	report_why(bad == boot_nr_cpus, "VP_INDEX reads the vCPU index on every vCPU",
		   "vCPU %u read 0x%lx", bad, bad < boot_nr_cpus ? vp_index_seen[bad] : 0);
}

/* Every MSR but GUEST_OS_ID and HYPERCALL refuses every value. */
static void write_sweep_absent(void)
{
	struct msr_tally t = { 0 };

	for (u32 msr = HV_X64_MSR_VP_INDEX; msr <= HV_X64_MSR_LAST; msr++)
		for (u32 i = 0; i < NR_PATTERNS; i++) {
			int v = wrmsr_safe(msr, patterns[i]);

			tally(&t, msr, patterns[i], v, v == GP_VECTOR);
		}
	tally_report(&t, "wrmsr of garbage to VP_INDEX and the 253 others raises #GP");
}

static void write_guest_os_id(void)
{
	struct msr_tally t = { 0 };

	for (u32 i = 0; i < NR_PATTERNS; i++) {
		u64 val = ~patterns[i], back = 0;
		int v = wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, val);

		if (v == EX_NONE)
			v = rdmsr_safe(HV_X64_MSR_GUEST_OS_ID, &back);
		tally(&t, HV_X64_MSR_GUEST_OS_ID, val, v, v == EX_NONE && back == val);
	}
	tally_report(&t, "GUEST_OS_ID takes any value and reads it back");
}

/*
 * With a guest OS ID set: #GP exactly when the value enables a page
 * outside RAM, and then the MSR keeps its old value.
 */
static void write_hypercall(void)
{
	struct msr_tally t = { 0 };

	wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, GOOD_OS_ID);
	for (u32 i = 0; i < NR_PATTERNS; i++) {
		u64 val = hypercall_garbage(patterns[i]), old = 0, now = 0;
		bool gp = val & HV_HYPERCALL_ENABLE;
		int v;

		rdmsr_safe(HV_X64_MSR_HYPERCALL, &old);
		v = wrmsr_safe(HV_X64_MSR_HYPERCALL, val);
		rdmsr_safe(HV_X64_MSR_HYPERCALL, &now);
		tally(&t, HV_X64_MSR_HYPERCALL, val, v,
		      gp ? v == GP_VECTOR && now == old : v == EX_NONE && now == val);
	}
	tally_report(&t, "HYPERCALL garbage: #GP iff it enables a page outside RAM");
}

/* Where KVM takes the LAPIC page for memory, it writes a hypercall page there too. */
static bool lapic_frame_accepted(u64 frame)
{
	return frame == HOSTILE_LAPIC_GPA && hv_kvm_serves() && hostile_kvm_apic_page_mapped;
}

static void hypercall_outside_ram(void)
{
	const u64 frames[] = { hostile_ram_end(), 0xc0000000ull, HOSTILE_LAPIC_GPA, 1ull << 32,
			       (1ull << 52) - HOSTILE_PAGE, 0ull - HOSTILE_PAGE };
	struct msr_tally t = { 0 };
	u64 page = (uintptr_t)hv_hypercall_page | HV_HYPERCALL_ENABLE, lapic = 0;
	int lapic_v = EX_NONE;
	char why[64];

	for (u32 i = 0; i < ARRAY_SIZE(frames); i++) {
		u64 now = 0;
		int v;

		wrmsr_safe(HV_X64_MSR_HYPERCALL, page);	/* each try from the payload's page */
		v = wrmsr_safe(HV_X64_MSR_HYPERCALL, frames[i] | HV_HYPERCALL_ENABLE);
		rdmsr_safe(HV_X64_MSR_HYPERCALL, &now);
		if (lapic_frame_accepted(frames[i])) {
			lapic_v = v;
			lapic = now;
			continue;
		}
		tally(&t, HV_X64_MSR_HYPERCALL, frames[i], v, v == GP_VECTOR && now == page);
	}
	wrmsr_safe(HV_X64_MSR_HYPERCALL, page);
	tally_report(&t, "HYPERCALL enabled outside RAM (RAM end .. 2^64 - 4096) raises #GP");
	if (!hv_kvm_serves() || !hostile_kvm_apic_page_mapped)
		return;
	snprintf(why, sizeof(why), "vector %d, read 0x%lx", lapic_v, lapic);
	hvd_report(lapic_v == EX_NONE && lapic == (HOSTILE_LAPIC_GPA | HV_HYPERCALL_ENABLE),
		   HVD_TLFS_SILENT, "accepted: KVM writes its page into its APIC-access page", why,
		   "HYPERCALL at the LAPIC page raises #GP, as everywhere outside RAM");
}

/* TLFS: the enable bit stays 0 without a guest OS identity; no #GP. */
static void hypercall_without_os_id(void)
{
	u64 val = (1ull << 52) - HOSTILE_PAGE + HV_HYPERCALL_ENABLE, now = 0, rax = RAX_MARK;
	u64 before = 0;
	bool kvm = hv_kvm_serves();
	char why[64];
	int v, ud;

	wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, 0);
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &before);
	v = wrmsr_safe(HV_X64_MSR_HYPERCALL, val);
	rdmsr_safe(HV_X64_MSR_HYPERCALL, &now);
	snprintf(why, sizeof(why), "vector %d, read 0x%lx (before 0x%lx)", v, now, before);
	hvd_report(v == EX_NONE && now == (kvm ? before : val & ~HV_HYPERCALL_ENABLE),
		   HVD_TLFS_SILENT, "KVM drops the whole write, HYPERCALL unchanged", why,
		   "GUEST_OS_ID 0: HYPERCALL outside RAM stored with enable clear");
	ud = hostile_raw_trap(HVCALL_FLUSH_VIRTUAL_ADDRESS_SPACE | HV_HCALL_FAST_BIT, 0, 0, &rax);
	snprintf(why, sizeof(why), "vector %d, rax 0x%lx", ud, rax);
	/* KVM runs it as a KVM hypercall: number RAX_MARK is unknown, -KVM_ENOSYS. */
	hvd_report(kvm ? ud == EX_NONE && rax == HVD_KVM_ENOSYS : ud == UD_VECTOR &&
		   rax == RAX_MARK, HVD_TLFS_SILENT, "no #UD, a KVM hypercall returning -KVM_ENOSYS",
		   why, "hypercall with the page disabled raises #UD, RAX untouched");
}

/* Another RAM page may hold the calling sequence: it gets written, INT3-filled. */
static void hypercall_elsewhere(void)
{
	u8 *tail = hostile_tail_page();
	u64 val = (uintptr_t)tail | HV_HYPERCALL_ENABLE;
	u8 first, last;
	char why[64];
	int v;

	wrmsr_safe(HV_X64_MSR_GUEST_OS_ID, GOOD_OS_ID);
	tail[0] = 0;
	tail[HOSTILE_PAGE - 1] = 0;
	v = wrmsr_safe(HV_X64_MSR_HYPERCALL, val);
	first = READ_ONCE(tail[0]);
	last = READ_ONCE(tail[HOSTILE_PAGE - 1]);
	snprintf(why, sizeof(why), "vector %d, first byte 0x%x, last byte 0x%x", v, first, last);
	/* KVM writes its 4 bytes (VMCALL/VMMCALL, RET) and leaves the rest. */
	hvd_report(v == EX_NONE && first != 0 && last == (hv_kvm_serves() ? 0 : 0xcc),
		   HVD_TLFS_SILENT, "4 bytes written, no INT3 fill", why,
		   "HYPERCALL at the last page of RAM: page written");
}

void hostile_msr(void)
{
	fill_random_patterns();
	read_sweep();
	vp_index_everywhere();
	write_sweep_absent();
	write_guest_os_id();
	write_hypercall();
	hypercall_outside_ram();
	hypercall_without_os_id();
	hypercall_elsewhere();
	hostile_restore_page();
	read_sweep();
}
