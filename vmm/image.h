/* SPDX-License-Identifier: MIT */
/*
 * What loading a kernel image yields, whatever its format (vmm/loader.c
 * has the table of formats): the kind, the bytes it occupies, and the
 * state its vCPUs start in, which vcpu_create() hands to x86_init_vcpu().
 */
#ifndef VMM_IMAGE_H
#define VMM_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

enum image_kind {
	IMAGE_ELF64 = 0,	/* 64-bit entry, struct mvm_bootinfo in RSI */
	IMAGE_MULTIBOOT = 1,	/* 32-bit entry, paging off, Multiboot info in EBX */
	IMAGE_LINUX = 2,	/* PVH: 32-bit entry, paging off, hvm_start_info in EBX */
	IMAGE_KINDS
};

enum image_entry_mode {
	IMAGE_ENTRY_LONG64,	/* 64-bit mode on minivmm's GDT and page tables (x86_setup_memory) */
	IMAGE_ENTRY_FLAT32,	/* 32-bit protected mode, paging off, flat 4 GiB segments */
};

/* The registers a format sets at entry; all others start at zero, RFLAGS at 0x2. */
struct image_entry {
	enum image_entry_mode mode;
	const char *what;	/* names the state in errors: "64-bit boot state" */
	uint64_t rip;
	uint64_t rax, rbx, rsi;
	/*
	 * true: every vCPU enters at `rip`, runnable, with RDI = its index.
	 * false: vCPU 0 alone; the others stay in their reset state, waiting
	 * for the INIT/SIPI the kernel sends them.
	 */
	bool all_vcpus;
};

struct load_info {
	enum image_kind kind;
	struct image_entry entry;
	uint64_t image_start;	/* lowest byte loaded */
	uint64_t image_end;	/* highest byte loaded + 1 */
	unsigned int segments;
	/* Linux kernels: the longest command line the image accepts, and the banner's facts. */
	uint32_t cmdline_max;
	uint64_t unpack_ns;	/* host time spent unpacking a compressed payload */
	char what[48];		/* "bzImage 2.15, xz", "ELF64 vmlinux" */
};

#endif
