// SPDX-License-Identifier: MIT
/* The assembly files use copies of a few C-only constants: keep them equal. */
#include <hv/tlfs.h>
#include <minivmm/abi.h>

#include "lib/layout.h"
#include "lib/types.h"

BUILD_BUG_ON(ASM_PORT_COM1 != MVM_PORT_COM1);
BUILD_BUG_ON(ASM_PORT_EXIT != MVM_PORT_EXIT);
BUILD_BUG_ON(ASM_HV_HCALL_FAST_BIT != HV_HCALL_FAST_BIT);
BUILD_BUG_ON(ASM_BI_NR_VCPUS != __builtin_offsetof(struct mvm_bootinfo, nr_vcpus));
BUILD_BUG_ON(ASM_BI_RAM_SIZE != __builtin_offsetof(struct mvm_bootinfo, ram_size));
BUILD_BUG_ON(ASM_BI_FREE_GPA != __builtin_offsetof(struct mvm_bootinfo, free_gpa));
BUILD_BUG_ON(SMP_CALL_VECTOR < 32);
