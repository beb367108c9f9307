/* SPDX-License-Identifier: MIT */
/*
 * An ELF vmlinux with Xen's PVH entry note: finding the 32-bit entry and
 * loading every PT_LOAD at its physical address.
 */
#ifndef VMM_LINUX_PVH_H
#define VMM_LINUX_PVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

struct linux_pvh_info {
	uint64_t entry;			/* XEN_ELFNOTE_PHYS32_ENTRY */
	uint64_t kernel_start;		/* lowest loaded byte */
	uint64_t kernel_end;		/* highest loaded byte + 1 */
	unsigned int segments;		/* PT_LOADs with bytes */
	unsigned int elf_class;		/* 32 or 64 */
	bool relocatable;		/* a PHYS32_RELOC note was there */
	uint32_t reloc_align, reloc_min, reloc_max;	/* its fields (0 if absent) */
};

/* An ELF (32 or 64-bit) header magic: the rest is linux_pvh_load's to judge. */
bool linux_pvh_is_elf(const void *buf, size_t len);
/* Just the PVH entry: 0 and *entry, or -1 with `err` ("not a PVH kernel: ..."). */
int linux_pvh_find_entry(const void *buf, size_t len, struct linux_pvh_info *info,
			 char *err, size_t errlen);
/* Check everything, then load. Nothing is written unless the whole image is good. */
int linux_pvh_load(const void *buf, size_t len, struct guest_mem *mem,
		   struct linux_pvh_info *info, char *err, size_t errlen);

#endif
