// SPDX-License-Identifier: MIT
/*
 * vmcall: the hypercall instructions must raise #UD, not hang.
 *
 * Not in the default set: on kvm_pvm both instructions livelock unless the
 * VMM disabled KVM_X86_QUIRK_FIX_HYPERCALL_INSN, and then this suite never
 * ends (the VMM's --timeout has to stop it).
 *
 * - The instruction of the other vendor (VMMCALL on Intel, VMCALL on AMD):
 *   with the quirk on, KVM rewrites it into the native one in guest memory;
 *   with the quirk off it raises #UD. Expect #UD everywhere.
 * - The native instruction: on VMX/SVM, KVM runs it as a KVM hypercall and
 *   returns -KVM_ENOSYS for an unknown number, which is correct too; on
 *   kvm_pvm, expect #UD.
 */
#include "lib/boot.h"
#include "lib/extable.h"
#include "lib/printf.h"
#include "lib/processor.h"
#include "lib/report.h"
#include "lib/string.h"
#include "suite.h"

#define KVM_ENOSYS		1000
#define BOGUS_HYPERCALL_NR	0xffff0000ull	/* no KVM or Xen call has it */

struct hcall_try {
	int vector;
	u64 rax;
};

static struct hcall_try try_vmcall(void)
{
	struct hcall_try t = { .rax = BOGUS_HYPERCALL_NR };

	ex_arm();
	asm volatile(ASM_TRY("vmcall") : "+a"(t.rax) : : "rbx", "rcx", "rdx", "rsi", "memory");
	t.vector = ex_vector();
	return t;
}

static struct hcall_try try_vmmcall(void)
{
	struct hcall_try t = { .rax = BOGUS_HYPERCALL_NR };

	ex_arm();
	asm volatile(ASM_TRY("vmmcall") : "+a"(t.rax) : : "rbx", "rcx", "rdx", "rsi", "memory");
	t.vector = ex_vector();
	return t;
}

static bool cpu_is_amd(void)
{
	char vendor[13];

	cpuid_vendor(vendor);
	return !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
}

static void check_foreign(bool amd)
{
	const char *insn = amd ? "vmcall" : "vmmcall";
	struct hcall_try t = amd ? try_vmcall() : try_vmmcall();
	char name[64];

	snprintf(name, sizeof(name), "%s (other vendor's) raises #UD", insn);
	report_why(t.vector == UD_VECTOR, name,
		   t.vector == EX_NONE ?
		   "returned rax 0x%lx: KVM_X86_QUIRK_FIX_HYPERCALL_INSN is still on" :
		   "caught vector %ld instead", t.vector == EX_NONE ? t.rax : (u64)t.vector);
}

static void check_native(bool amd)
{
	const char *insn = amd ? "vmmcall" : "vmcall";
	struct hcall_try t = amd ? try_vmmcall() : try_vmcall();
	bool pvm = boot_backend == MVM_BACKEND_PVM;
	bool enosys = t.vector == EX_NONE && t.rax == (u64)-KVM_ENOSYS;
	char name[64];

	snprintf(name, sizeof(name), "%s (native) raises #UD%s", insn,
		 pvm ? "" : " or returns -KVM_ENOSYS");
	if (t.vector == EX_NONE)
		report_why(!pvm && enosys, name, "returned rax 0x%lx", t.rax);
	else
		report_why(t.vector == UD_VECTOR, name, "caught vector %d", t.vector);
}

static void suite_vmcall(const char *arg)
{
	bool amd = cpu_is_amd();

	(void)arg;
	printf("vmcall: %s CPU, backend %s\n", amd ? "AMD" : "Intel", backend_name(boot_backend));
	check_foreign(amd);
	check_native(amd);
}

DEFINE_SUITE(81, suite_vmcall, "vmcall", false, NULL,
	     "VMCALL/VMMCALL raise #UD (hangs where the VMM cannot disable the quirk)");
