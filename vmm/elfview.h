/* SPDX-License-Identifier: MIT */
/*
 * The one ELF reader (vmm/elfview.c), for every ELF-based image: minivmm's
 * payload (vmm/elf64.c), Multiboot kernels (vmm/multiboot.c) and Linux's
 * vmlinux (vmm/linux_pvh.c). Parsed by hand from the file's bytes, ELF32
 * and ELF64 alike: no library state, so the fuzzers see every branch, and
 * every offset from the file is checked before it is used. Each format
 * keeps its own words for what is wrong with its header; the segment
 * checks and the copy into guest RAM are shared, with the rules a format
 * sets (struct elf_load_rules).
 */
#ifndef VMM_ELFVIEW_H
#define VMM_ELFVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

struct elf_view {
	const uint8_t *b;
	size_t len;
	unsigned int cls;		/* 32 or 64 */
	unsigned int data;		/* EI_DATA */
	unsigned int machine, type, phentsize, phnum;
	uint64_t entry, phoff;
};

/* One program header, whichever class it came from. */
struct elf_phdr {
	uint32_t type;
	uint64_t offset, paddr, filesz, memsz, align;
};

/* What a format asks of its ELF header; the strings go into the errors. */
struct elf_expect {
	const char *prefix;		/* starts every error: "", "vmlinux: " */
	const char *name;		/* "ELF", "ELF32", "ELF64" */
	unsigned int machine;		/* EM_* */
	size_t phentsize;
	bool need_phdrs;		/* no program header at all is an error of its own */
	const char *endian_why;		/* after "big-endian NAME: " */
	const char *machine_why;	/* "need x86-64 (EM_X86_64": " = N)" follows */
};

/* The 4-byte ELF magic. */
bool elfview_is_elf(const void *buf, size_t len);
/*
 * Magic, a known class and a header that fits the file, then the header's
 * fields into `v`. `name` ("vmlinux", "ELF") starts the errors.
 */
int elfview_open(const void *buf, size_t len, const char *name, struct elf_view *v,
		 char *err, size_t errlen);
/*
 * After elfview_open(): byte order, machine, type, program header size,
 * their presence (if asked) and bounds, as `want` says. 0, or -1 with `err`.
 */
int elfview_check_ehdr(const struct elf_view *v, const struct elf_expect *want, char *err,
		       size_t errlen);
/* The program headers lie inside the file: before elfview_phdr(). */
bool elfview_phdrs_fit(const struct elf_view *v);
struct elf_phdr elfview_phdr(const struct elf_view *v, unsigned int i);

/* What a format asks of its PT_LOAD segments. */
struct elf_load_rules {
	const char *seg;		/* "segment", "vmlinux segment": starts each error */
	uint64_t min_gpa;		/* nothing is loaded below this */
	const char *below_why;		/* "minivmm's reserved area": why, in that error */
	/* A window below min_gpa a segment may lie in wholly (low_end 0: none). */
	uint64_t low_start, low_end;
	bool skip_empty;		/* segments with no memory size are not checked */
	bool entry_in_file;		/* the entry lies in file bytes, not just memory */
};

/* What elfview_check_loads() found. */
struct elf_loads {
	unsigned int segments;		/* PT_LOADs checked */
	uint64_t start, end;		/* lowest loaded byte, highest + 1 */
	bool entry_in;			/* the entry lies in one (as the rules say) */
};

/* Check every PT_LOAD; 0 and `out`, or -1 with `err` naming the segment. */
int elfview_check_loads(const struct elf_view *v, const struct guest_mem *mem,
			const struct elf_load_rules *r, uint64_t entry, struct elf_loads *out,
			char *err, size_t errlen);
/* Copy every PT_LOAD with memory (checked before) to its p_paddr, zeroing its tail. */
void elfview_copy_loads(const struct elf_view *v, struct guest_mem *mem);

#endif
