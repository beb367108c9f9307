// SPDX-License-Identifier: MIT
/* The assembly files use copies of a few C-only constants: keep them equal. */
#include <hv/tlfs.h>
#include <minivmm/abi.h>

#include "lib/layout.h"
#include "lib/types.h"

BUILD_BUG_ON(ASM_PORT_COM1 != MVM_PORT_COM1);
BUILD_BUG_ON(ASM_PORT_EXIT != MVM_PORT_EXIT);
BUILD_BUG_ON(ASM_HV_HCALL_FAST_BIT != HV_HCALL_FAST_BIT);
BUILD_BUG_ON(SMP_CALL_VECTOR < 32);
