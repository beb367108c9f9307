// SPDX-License-Identifier: MIT
#include "lib/boot.h"
#include "lib/layout.h"
#include "lib/timing.h"

#define STR(x)		#x
#define XSTR(x)		STR(x)


const struct mvm_bootinfo *boot_info;
u32 boot_nr_cpus;
u32 boot_backend;

const char *bootinfo_problem(const struct mvm_bootinfo *bi)
{
	if (!bi)
		return "no boot info (RSI = 0)";
	if (bi->magic != MVM_BOOTINFO_MAGIC)
		return "bad boot info magic";
	if (bi->abi_version != MVM_ABI_VERSION)
		return "boot info ABI version mismatch";
	if (bi->size < sizeof(*bi))
		return "boot info smaller than this payload's struct mvm_bootinfo";
	if (!bi->nr_vcpus)
		return "boot info says 0 vCPUs";
	if (bi->nr_vcpus > GUEST_MAX_VCPUS)
		return "guest.elf supports at most " XSTR(GUEST_MAX_VCPUS) " vCPUs";
	if (bi->cmdline_len >= MVM_CMDLINE_MAX || bi->cmdline[bi->cmdline_len])
		return "boot info command line is not NUL-terminated";
	return NULL;
}

void bootinfo_adopt(const struct mvm_bootinfo *bi)
{
	boot_info = bi;
	boot_nr_cpus = bi->nr_vcpus;
	boot_backend = bi->backend;
	timing_init(bi->tsc_khz);
}

const char *backend_name(u32 backend)
{
	switch (backend) {
	case MVM_BACKEND_VMX: return "vmx";
	case MVM_BACKEND_SVM: return "svm";
	case MVM_BACKEND_PVM: return "pvm";
	default: return "unknown";
	}
}
