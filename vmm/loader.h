/* SPDX-License-Identifier: MIT */
/*
 * Kernels into guest RAM. One table of image formats (vmm/loader.c): Linux
 * kernels (vmm/linux.c), ELF32 Multiboot v1 kernels (vmm/multiboot.c) and,
 * taking everything else,
 * minivmm's ELF64 x86-64 payloads (vmm/elf64.c). Each yields the same
 * struct load_info (vmm/image.h): segments loaded, entry state.
 */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/image.h"
#include "vmm/mem.h"
#include "vmm/options.h"

/* One image format: a row of the table. */
struct image_format {
	const char *name;		/* "Multiboot" */
	enum image_kind kind;
	/* Is the image this format's? Cheap, never fails; NULL: anything (the last row). */
	bool (*probe)(const void *image, size_t len);
	/* Validate and load; info arrives zeroed with `kind` set. -1 with `err` on any defect. */
	int (*load)(const void *image, size_t len, struct guest_mem *mem,
		    struct load_info *info, char *err, size_t errlen);
	uint64_t default_mem;		/* RAM without --mem; 0: options_default_mem() */
	enum pv_personality default_pv;	/* the hypervisor the guest sees without --pv */
};

/* The format an image goes to (the first row whose probe accepts it). */
const struct image_format *loader_format(const void *image, size_t len);
enum image_kind loader_image_kind(const void *image, size_t len);
/* Validate and load an image held in memory. -1 with `err` on any defect. */
int loader_load_image(const void *image, size_t len, struct guest_mem *mem,
		      struct load_info *info, char *err, size_t errlen);
/* Read `path` and load it; errors name the file. */
int loader_load_file(const char *path, struct guest_mem *mem, struct load_info *info,
		     char *err, size_t errlen);
/* The whole file in a malloc'd buffer (size-limited), or NULL with `err`. */
void *loader_read_file(const char *path, size_t *len, char *err, size_t errlen);

#endif
