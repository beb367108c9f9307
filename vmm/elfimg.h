/* SPDX-License-Identifier: MIT */
/*
 * What the payload and Multiboot formats share (vmm/elfimg.c): the
 * validated copy of PT_LOAD segments into guest RAM, with their rules, on
 * vmm/elfview.h's reading of the file (which also checks their headers). The formats (vmm/elf64.c,
 * vmm/multiboot.c) call these; nothing here calls a format.
 */
#ifndef VMM_ELFIMG_H
#define VMM_ELFIMG_H

#include <stddef.h>

#include "vmm/elfview.h"
#include "vmm/image.h"
#include "vmm/mem.h"

/*
 * Check every PT_LOAD segment and the entry point, then copy them all;
 * fills info->segments, image_end and entry.rip.
 */
int elfimg_load_segments(const struct elf_view *v, struct guest_mem *mem, struct load_info *info,
			 char *err, size_t errlen);
/* The same under a format's own rules (Multiboot: also conventional memory). */
int elfimg_load_segments_by(const struct elf_view *v, struct guest_mem *mem,
			    const struct elf_load_rules *rules, struct load_info *info,
			    char *err, size_t errlen);

#endif
