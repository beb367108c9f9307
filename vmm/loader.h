/* SPDX-License-Identifier: MIT */
/*
 * Kernels into guest RAM, via libelf: ELF64 x86-64 payloads (minivmm's own
 * ABI) and ELF32 Multiboot v1 kernels (vmm/multiboot.c), told apart by the
 * ELF class.
 */
#ifndef VMM_LOADER_H
#define VMM_LOADER_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

enum image_kind {
	IMAGE_ELF64 = 0,	/* 64-bit entry, struct mvm_bootinfo in RSI */
	IMAGE_MULTIBOOT = 1,	/* 32-bit entry, paging off, Multiboot info in EBX */
	IMAGE_LINUX = 2,	/* PVH: 32-bit entry, paging off, hvm_start_info in EBX */
};

struct load_info {
	uint64_t entry;
	uint64_t image_end;	/* highest byte loaded + 1 */
	unsigned int segments;
	enum image_kind kind;
};

/* Which loader an image goes to (only the ELF class is looked at). */
enum image_kind loader_image_kind(const void *image, size_t len);
/* Validate and load an image held in memory. -1 with `err` on any defect. */
int loader_load_image(const void *image, size_t len, struct guest_mem *mem,
		      struct load_info *info, char *err, size_t errlen);
/* Read `path` and load it; errors name the file. */
int loader_load_file(const char *path, struct guest_mem *mem, struct load_info *info,
		     char *err, size_t errlen);
/* The whole file in a malloc'd buffer (size-limited), or NULL with `err`. */
void *loader_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* What an image's ELF header must say; the strings go into the errors. */
struct elf_expect {
	const char *name;		/* "ELF", "ELF32" */
	unsigned int machine;		/* EM_* */
	size_t phentsize;
	const char *endian_why;		/* after "big-endian NAME: " */
	const char *machine_why;	/* "need x86-64 (EM_X86_64": " = N)" follows */
};

/* Byte order, machine, type, program header size and bounds. 0, or -1 with `err`. */
int loader_check_ehdr(Elf *elf, size_t len, const struct elf_expect *want, GElf_Ehdr *eh,
		      char *err, size_t errlen);
/* Check every PT_LOAD segment and the entry point, then copy them all. */
int loader_load_segments(Elf *elf, const GElf_Ehdr *eh, const void *image, size_t len,
			 struct guest_mem *mem, struct load_info *info, char *err, size_t errlen);

#endif
