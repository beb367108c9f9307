/* SPDX-License-Identifier: MIT */
/*
 * Linux kernels as guests, the whole API: recognise a kernel file (a
 * bzImage, or an ELF vmlinux with a PVH note), put its vmlinux into guest
 * RAM, and write the PVH start info vCPU 0 gets in EBX at the 32-bit entry.
 */
#ifndef VMM_LINUX_H
#define VMM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/image.h"
#include "vmm/mem.h"

/* The command line a vmlinux (no setup header to say otherwise) accepts. */
#define LINUX_CMDLINE_MAX_DEF	2047u
/* RAM Linux needs beyond its image and initrd to boot (a floor, not advice). */
#define LINUX_RAM_MARGIN	(16ull << 20)

struct linux_image {
	uint64_t entry;			/* PVH 32-bit entry, a GPA */
	uint64_t kernel_start;		/* lowest loaded byte */
	uint64_t kernel_end;		/* highest loaded byte + 1 */
	uint32_t cmdline_max;		/* longest command line, NUL excluded */
	bool relocatable;		/* PHYS32_RELOC note (loaded at p_paddr anyway) */
	size_t vmlinux_len;		/* bytes of ELF loaded from */
	uint64_t unpack_ns;		/* host CLOCK_MONOTONIC time unpacking; 0 if none */
	char format[48];		/* "bzImage 2.15, xz" or "ELF64 vmlinux" */
};

/* A bzImage ("HdrS" + 0xAA55), or an ELF whose notes hold the PVH entry. */
bool linux_probe(const void *buf, size_t len);
/* Unpack (bzImage) and load the vmlinux' PT_LOADs at their p_paddr. 0, or -1 with `err`. */
int linux_load(const void *buf, size_t len, struct guest_mem *mem, struct linux_image *out,
	       char *err, size_t errlen);

/*
 * The loader table's row (vmm/loader.c): linux_load(), then the entry
 * state: vCPU 0 in 32-bit flat mode at the PVH entry (EBX, the start info,
 * is set once linux_write_start_info() has written it), the APs waiting
 * for INIT/SIPI.
 */
int linux_load_image(const void *buf, size_t len, struct guest_mem *mem,
		     struct load_info *info, char *err, size_t errlen);

struct linux_boot_cfg {
	const char *cmdline;		/* NULL: empty */
	uint32_t cmdline_max;		/* linux_image.cmdline_max */
	const void *initrd;		/* NULL or initrd_len bytes */
	size_t initrd_len;
	uint64_t rsdp_gpa;		/* ACPI RSDP, 0 if none */
	uint64_t kernel_end;		/* linux_image.kernel_end */
};

/*
 * Where the start info and what it points to live: low RAM, above the
 * Multiboot block (0x9000-0xb000) and the payload's page tables, below
 * the EBDA. Linux's PVH boot reads them before it uses any low memory.
 */
#define LINUX_START_INFO_GPA	0xb000ull
#define LINUX_MODLIST_GPA	0xb040ull
#define LINUX_MEMMAP_GPA	0xb080ull
#define LINUX_MEMMAP_MAX	8u		/* entries room up to 0xb140 */
#define LINUX_CMDLINE_GPA	0xc000ull
#define LINUX_CMDLINE_AREA	0x4000u		/* up to 0x10000, NUL included */
#define LINUX_LOW_RAM_END	0x9fc00ull	/* conventional memory; then the EBDA */
#define LINUX_HIGH_START	0x100000ull
#define LINUX_KVM_PAGES		0xfffbc000ull	/* KVM's identity map and VMX TSS */
#define LINUX_4G		0x100000000ull

/*
 * The start info (magic, version 1, E820 map, command line, the initrd as
 * module 0 at the top of RAM below 4 GiB), written only when all of it
 * fits. *start_info_gpa is what EBX gets. 0, or -1 with `err`.
 */
int linux_write_start_info(struct guest_mem *mem, const struct linux_boot_cfg *cfg,
			   uint64_t *start_info_gpa, char *err, size_t errlen);
/* The least --mem (bytes, a MiB multiple) that holds the kernel, the initrd and a margin. */
uint64_t linux_min_ram(uint64_t kernel_end, uint64_t initrd_len);

#endif
