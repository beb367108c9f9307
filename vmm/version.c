// SPDX-License-Identifier: MIT
#include "vmm/version.h"

#ifndef MVM_GIT_REV
#define MVM_GIT_REV "unknown"
#endif

const char *vmm_version(void)
{
	return MVM_GIT_REV;
}
