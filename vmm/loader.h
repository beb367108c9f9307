/* SPDX-License-Identifier: MIT */
/* ELF64 x86-64 executables into guest RAM, via libelf. */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

struct load_info {
	uint64_t entry;
	uint64_t image_end;	/* highest byte loaded + 1 */
	unsigned int segments;
};

/* Validate and load an image held in memory. -1 with `err` on any defect. */
int loader_load_image(const void *image, size_t len, struct guest_mem *mem,
		      struct load_info *info, char *err, size_t errlen);
/* Read `path` and load it; errors name the file. */
int loader_load_file(const char *path, struct guest_mem *mem, struct load_info *info,
		     char *err, size_t errlen);

#endif
