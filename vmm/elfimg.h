/* SPDX-License-Identifier: MIT */
/*
 * What the payload and Multiboot formats share (vmm/elfimg.c): their ELF
 * header checks and the validated copy of PT_LOAD segments into guest RAM,
 * on vmm/elfview.h's reading of the file. The formats (vmm/elf64.c,
 * vmm/multiboot.c) call these; nothing here calls a format.
 */
#ifndef VMM_ELFIMG_H
#define VMM_ELFIMG_H

#include <stddef.h>

#include "vmm/elfview.h"
#include "vmm/image.h"
#include "vmm/mem.h"

/* What an image's ELF header must say; the strings go into the errors. */
struct elf_expect {
	const char *name;		/* "ELF", "ELF32" */
	unsigned int machine;		/* EM_* */
	size_t phentsize;
	const char *endian_why;		/* after "big-endian NAME: " */
	const char *machine_why;	/* "need x86-64 (EM_X86_64": " = N)" follows */
};

/* Byte order, machine, type, program header size and bounds. 0, or -1 with `err`. */
int elfimg_check_ehdr(const struct elf_view *v, const struct elf_expect *want, char *err,
		      size_t errlen);
/*
 * Check every PT_LOAD segment and the entry point, then copy them all;
 * fills info->segments, image_end and entry.rip.
 */
int elfimg_load_segments(const struct elf_view *v, struct guest_mem *mem, struct load_info *info,
			 char *err, size_t errlen);

#endif
