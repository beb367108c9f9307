/* SPDX-License-Identifier: MIT */
/*
 * Multiboot v1 kernels (ELF32 i386 with a Multiboot header): finding and
 * checking the header, loading the PT_LOAD segments, and the information
 * block handed over in EBX. Numbers from the Multiboot Specification 0.6.96.
 */
#ifndef VMM_MULTIBOOT_H
#define VMM_MULTIBOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/image.h"
#include "vmm/mem.h"

#define MB_HEADER_MAGIC		0x1badb002u
#define MB_BOOT_MAGIC		0x2badb002u	/* EAX at entry */
#define MB_SEARCH_LEN		8192u		/* the header lies in the first 8 KiB */

/* Header flags: bits 0-15 are requirements a loader must meet or refuse. */
#define MB_HF_PAGE_ALIGN	(1u << 0)	/* modules page-aligned: ours always are */
#define MB_HF_MEMINFO		(1u << 1)	/* mem_* fields: always given */
#define MB_HF_VIDEO		(1u << 2)	/* a video mode: not offered */
#define MB_HF_ADDRS		(1u << 16)	/* a.out kludge load addresses */
#define MB_HF_SUPPORTED		(MB_HF_PAGE_ALIGN | MB_HF_MEMINFO)

/* Information block flags. */
#define MB_IF_MEM		(1u << 0)
#define MB_IF_CMDLINE		(1u << 2)
#define MB_IF_MODS		(1u << 3)
#define MB_IF_MMAP		(1u << 6)
#define MB_IF_LOADER_NAME	(1u << 9)

#define MB_MMAP_RAM		1u
#define MB_MMAP_RESERVED	2u

/*
 * Where the block and what it points to go: low memory, below the EBDA and
 * the ACPI area, above page 0 (where kvm-unit-tests copies its AP
 * trampoline). A kernel with segments below 1 MiB (kvm-unit-tests'
 * realmode.flat, at 0x8000) gets the block page-aligned after its end
 * instead, where QEMU puts it; the offsets inside are the same.
 */
#define MB_INFO_GPA		0x9000ull	/* the default base */
#define MB_MMAP_OFF		0x100u
#define MB_MODS_OFF		0x200u		/* the one module entry (--initrd) */
#define MB_NAME_OFF		0x300u
#define MB_CMDLINE_OFF		0x400u
#define MB_CMDLINE_MAX		0x1c00u
#define MB_BLOCK_LEN		(MB_CMDLINE_OFF + MB_CMDLINE_MAX)	/* 8 KiB */
#define MB_MMAP_GPA		(MB_INFO_GPA + MB_MMAP_OFF)
#define MB_CMDLINE_GPA		(MB_INFO_GPA + MB_CMDLINE_OFF)
/* Segments below 1 MiB may lie here: conventional memory above page 0. */
#define MB_LOW_LOAD_START	0x1000ull
#define MB_LOW_RAM_END		0x9fc00ull	/* conventional memory: 639 KiB */
#define MB_BIOS_START		0xe0000ull	/* ACPI tables live in here */
#define MB_HIGH_START		0x100000ull

struct mb_info {
	uint32_t flags;
	uint32_t mem_lower;		/* KiB from 0 */
	uint32_t mem_upper;		/* KiB from 1 MiB */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count;
	uint32_t mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length;
	uint32_t mmap_addr;
	uint32_t drives_length;
	uint32_t drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
	uint32_t apm_table;
	uint32_t vbe[4];
} __attribute__((packed));

/* `size` counts the bytes after itself (20), as the spec has it. */
struct mb_mmap_entry {
	uint32_t size;
	uint64_t addr;
	uint64_t len;
	uint32_t type;
} __attribute__((packed));

/* A module entry: [start, end) in guest RAM, and its string (the file name). */
struct mb_module {
	uint32_t start, end;
	uint32_t string;
	uint32_t reserved;
} __attribute__((packed));

/* What to load as the one module (kvm-unit-tests' environment); len 0: none. */
struct mb_module_file {
	const void *data;
	size_t len;
	const char *name;
};

/*
 * Offset of a valid Multiboot header in the first 8 KiB, or -1 with the
 * reason (none, bad checksum, a requirement minivmm cannot meet).
 */
long multiboot_find_header(const void *image, size_t len, char *err, size_t errlen);
/* An ELF32 file: a Multiboot kernel, or nothing minivmm boots (the load says which). */
bool multiboot_probe(const void *image, size_t len);
/*
 * Check an ELF32 Multiboot kernel and load its segments (at or above 1 MiB,
 * or wholly in conventional memory); EBX = the block's base
 * (multiboot_info_gpa()).
 */
int multiboot_load_image(const void *image, size_t len, struct guest_mem *mem,
			 struct load_info *info, char *err, size_t errlen);
/* Where the block goes for a kernel loaded at [start, end): MB_INFO_GPA unless that is taken. */
uint64_t multiboot_info_gpa(uint64_t image_start, uint64_t image_end);
/*
 * Write the information block at `base`, memory map, loader name and
 * command line, and the module if `mod` has one: page-aligned past both
 * `kernel_end` (the kernel's highest loaded byte + 1) and the block, its
 * name after the command line.
 */
int multiboot_write_info(struct guest_mem *mem, uint64_t base, const char *cmdline,
			 uint64_t kernel_end, const struct mb_module_file *mod,
			 char *err, size_t errlen);

#endif
