/* SPDX-License-Identifier: MIT */
/* What the boot info told us, validated once by vCPU 0 (main.c). */
#ifndef GUEST_LIB_BOOT_H
#define GUEST_LIB_BOOT_H

#include <minivmm/abi.h>

#include "lib/types.h"

extern const struct mvm_bootinfo *boot_info;
extern u32 boot_nr_cpus;
extern u32 boot_backend;		/* enum mvm_backend */

/* NULL when fine, else why the boot info cannot be used. */
const char *bootinfo_problem(const struct mvm_bootinfo *bi);

/* Record the validated boot info in the globals above. */
void bootinfo_adopt(const struct mvm_bootinfo *bi);

/* "vmx", "svm", "pvm" or "unknown". */
const char *backend_name(u32 backend);

#endif /* GUEST_LIB_BOOT_H */
