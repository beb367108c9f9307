/* SPDX-License-Identifier: MIT */
/* minivmm's ELF64 x86-64 payloads (include/minivmm/abi.h, docs/abi.md). */
#ifndef VMM_ELF64_H
#define VMM_ELF64_H

#include <stddef.h>

#include "vmm/image.h"
#include "vmm/mem.h"

/* Validate and load an ELF64 payload. -1 with `err` on any defect. */
int elf64_load_image(const void *image, size_t len, struct guest_mem *mem,
		     struct load_info *info, char *err, size_t errlen);

#endif
