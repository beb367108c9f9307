// SPDX-License-Identifier: MIT
#include <minivmm/abi.h>

#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/hv.h"
#include "lib/hvtest.h"
#include "lib/irq.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/string.h"
#include "lib/timing.h"

/* Generous: under nested TCG an IPI to a halted vCPU can take milliseconds. */
#define HVT_IPI_WAIT_US		2000000
/* After the targets: time for a wrong delivery to show up too. */
#define HVT_IPI_SETTLE_US	20000

/* Two pages, so a block can be placed across the boundary on purpose. */
static u8 in_pages[2 * MVM_PAGE_SIZE] __aligned(MVM_PAGE_SIZE);
static u32 ipi_counts[GUEST_MAX_VCPUS];

const char *hvt_enc_name(enum hvt_enc enc)
{
	switch (enc) {
	case HVT_MEM: return "regular";
	case HVT_FAST: return "fast";
	case HVT_XMM: return "XMM-fast";
	}
	return "?";
}

/* No libgcc in the payload, so no __builtin_popcountll. */
static u32 bits_set(u64 v)
{
	u32 n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

u32 hvt_put_vpset(struct hvt_in *in, u64 format, u64 valid_banks, const u64 *banks)
{
	u32 nr = bits_set(valid_banks);

	hvt_put(in, format);
	hvt_put(in, valid_banks);
	for (u32 i = 0; i < nr; i++)
		hvt_put(in, banks[i]);
	return nr;
}

void hvt_vps_from_mask(struct hvt_vps *s, u64 mask)
{
	memset(s, 0, sizeof(*s));
	s->bank[0] = mask;
}

void hvt_vps_range(struct hvt_vps *s, u32 first, u32 last)
{
	for (u32 vp = first; vp <= last && vp < boot_nr_cpus; vp++)
		hvt_vps_add(s, vp);
}

u64 hvt_vps_valid_banks(const struct hvt_vps *s)
{
	u64 valid = 0;

	for (u32 b = 0; b < HVT_BANKS; b++)
		if (s->bank[b])
			valid |= 1ull << b;
	return valid;
}

u32 hvt_vps_nr_banks(const struct hvt_vps *s)
{
	return bits_set(hvt_vps_valid_banks(s));
}

u32 hvt_vm_banks(void)
{
	return (boot_nr_cpus + 63) / 64;
}

void hvt_vps_fit_banks(struct hvt_vps *s, u32 max)
{
	u32 kept = 0, last = 0;

	for (u32 b = 0; b < HVT_BANKS; b++)
		if (s->bank[b])
			last = b;
	for (u32 b = 0; b < HVT_BANKS; b++) {
		if (!s->bank[b] || b == last)
			continue;
		if (kept + 1 < max)
			kept++;
		else
			s->bank[b] = 0;
	}
}

u32 hvt_vps_count(const struct hvt_vps *s)
{
	u32 n = 0;

	for (u32 b = 0; b < HVT_BANKS; b++)
		n += bits_set(s->bank[b]);
	return n;
}

#define DESCRIBE_VPS	4

void hvt_vps_describe(const struct hvt_vps *s, char *buf, size_t len)
{
	u32 shown = 0, total = hvt_vps_count(s);
	size_t at = 0;

	buf[0] = '\0';
	for (u32 vp = 0; vp < GUEST_MAX_VCPUS && shown < DESCRIBE_VPS && at < len; vp++) {
		if (!hvt_vps_has(s, vp))
			continue;
		at += snprintf(buf + at, len - at, "%s%u", shown ? ", " : "", vp);
		shown++;
	}
	if (total > shown && at < len)
		snprintf(buf + at, len - at, " ... (%u VPs)", total);
}

u32 hvt_put_vps(struct hvt_in *in, const struct hvt_vps *s)
{
	u64 valid = hvt_vps_valid_banks(s);
	u32 nr = 0;

	hvt_put(in, HV_GENERIC_SET_SPARSE_4K);
	hvt_put(in, valid);
	for (u32 b = 0; b < HVT_BANKS; b++)
		if (s->bank[b]) {
			hvt_put(in, s->bank[b]);
			nr++;
		}
	return nr;
}

u64 hvt_in_page_gpa(void)
{
	return (uintptr_t)in_pages;
}

u64 hvt_call_at(u64 control, const struct hvt_in *in, u64 gpa)
{
	u64 base = (uintptr_t)in_pages;

	if (gpa >= base && gpa + in->n * 8 <= base + sizeof(in_pages))
		memcpy(in_pages + (gpa - base), in->q, in->n * 8);
	return hv_hcall(control, gpa, 0);
}

static u64 call_xmm(u64 control, const struct hvt_in *in)
{
	u64 regs[HVT_XMM_QWORDS] = { 0 };

	memcpy(regs, in->q, MIN(in->n, (u32)HVT_XMM_QWORDS) * 8);
	return hv_hcall_xmm(control, regs);
}

u64 hvt_call(enum hvt_enc enc, u64 control, const struct hvt_in *in)
{
	switch (enc) {
	case HVT_MEM:
		return hvt_call_at(control, in, hvt_in_page_gpa());
	case HVT_FAST:
		return hv_hcall_fast(control, in->n > 0 ? in->q[0] : 0, in->n > 1 ? in->q[1] : 0);
	case HVT_XMM:
		return call_xmm(control, in);
	}
	return ~0ull;
}

/* KVM's page: the host's own hypercall instruction (svm_patch_hypercall, vmx_patch_hypercall). */
static int kvm_trap(u64 control, u64 rdx, u64 r8, u64 *rax)
{
	register u64 r8_reg asm("r8") = r8;
	u64 a = *rax;

	ex_arm();
	if (boot_info->backend == MVM_BACKEND_VMX)
		asm volatile(ASM_TRY("vmcall")
			     : "+a"(a), "+c"(control), "+d"(rdx), "+r"(r8_reg) : : "memory");
	else
		asm volatile(ASM_TRY("vmmcall")
			     : "+a"(a), "+c"(control), "+d"(rdx), "+r"(r8_reg) : : "memory");
	*rax = a;
	return ex_vector();
}

int hvt_trap(u64 control, u64 rdx, u64 r8, u64 *rax)
{
	register u64 r8_reg asm("r8") = r8;
	u64 a = *rax;

	if (hv_kvm_serves())
		return kvm_trap(control, rdx, r8, rax);
	ex_arm();
	asm volatile(ASM_TRY("outb %%al, %[port]")
		     : "+a"(a), "+c"(control), "+d"(rdx), "+r"(r8_reg)
		     : [port] "i"(MVM_PORT_HCALL)
		     : "memory");
	*rax = a;
	return ex_vector();
}

bool hvt_ready(void)
{
	const char *why = "";

	if (!hv_detect()) {
		report_skip("Hyper-V", "Hyper-V not offered (minivmm --no-hyperv?)");
		return false;
	}
	if (hv_hypercalls_enabled())
		return true;
	return report_why(!hv_enable_hypercalls(&why), "hypercall page enabled", "%s", why);
}

bool hvt_cpuid_signature(u32 leaf, const char sig[12])
{
	struct cpuid_regs r = cpuid(leaf);
	u32 want[3];

	memcpy(want, sig, sizeof(want));
	return r.ebx == want[0] && r.ecx == want[1] && r.edx == want[2];
}

bool hvt_report(bool pass, const char *why, const char *name_fmt, ...)
{
	char name[128];
	va_list ap;

	va_start(ap, name_fmt);
	vsnprintf(name, sizeof(name), name_fmt, ap);
	va_end(ap);
	return report_why(pass, name, "%s", why);
}

bool hvt_xmm_offered(void)
{
	return (boot_info->features & MVM_F_HV_XMM_INPUT) && hv_xmm_input_available();
}

static void hvt_ipi_handler(struct trap_frame *tf)
{
	(void)tf;
	atomic_inc(&ipi_counts[smp_id()]);
}

void hvt_ipi_arm(void)
{
	hvt_ipi_clear();
	irq_register(HVT_IPI_VECTOR, hvt_ipi_handler);
}

void hvt_ipi_disarm(void)
{
	irq_unregister(HVT_IPI_VECTOR);
}

void hvt_ipi_clear(void)
{
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		WRITE_ONCE(ipi_counts[cpu], 0);
}

u32 hvt_ipi_count(u32 cpu)
{
	return READ_ONCE(ipi_counts[cpu]);
}

static bool targets_arrived(const struct hvt_vps *targets)
{
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++)
		if (hvt_vps_has(targets, cpu) && !hvt_ipi_count(cpu))
			return false;
	return true;
}

/* With interrupts on here, so that the caller can be a target too. */
static void wait_for_ipis(const struct hvt_vps *targets)
{
	bool was_on = read_rflags() & X86_EFLAGS_IF;

	irq_enable();
	wait_until(targets_arrived(targets), HVT_IPI_WAIT_US);
	udelay(HVT_IPI_SETTLE_US);
	if (!was_on)
		irq_disable();
}

bool hvt_ipi_check_vps(const struct hvt_vps *targets, char *why, size_t len)
{
	char what[64];

	wait_for_ipis(targets);
	for (u32 cpu = 0; cpu < boot_nr_cpus; cpu++) {
		u32 want = hvt_vps_has(targets, cpu), got = hvt_ipi_count(cpu);

		if (got != want) {
			hvt_vps_describe(targets, what, sizeof(what));
			snprintf(why, len, "vCPU %u took %u interrupts, expected %u "
				 "(targets %s)", cpu, got, want, what[0] ? what : "none");
			return false;
		}
	}
	return true;
}

bool hvt_ipi_check(u64 targets, char *why, size_t len)
{
	struct hvt_vps s;

	hvt_vps_from_mask(&s, targets);
	return hvt_ipi_check_vps(&s, why, len);
}
