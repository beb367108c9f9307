// SPDX-License-Identifier: MIT
/*
 * The PVH start info: what Linux's pvh_start_xen reads from EBX. Linux
 * BUG()s on a version below 1 or an empty memory map, so both are always
 * given. Everything is checked first and written after.
 */
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/errmsg.h"
#include "vmm/linux.h"
#include "vmm/linux_abi.h"
#include "vmm/mem.h"
#include "vmm/multiboot.h"

#define MIB		(1ull << 20)
#define PAGE		0x1000ull

/* Clear of the payload's page tables (PML4, PDPT, PT0, 4 PDs) and the Multiboot block. */
_Static_assert(LINUX_START_INFO_GPA >= MVM_PML4_GPA + 7 * MVM_PAGE_SIZE, "over the page tables");
_Static_assert(LINUX_START_INFO_GPA >= MB_CMDLINE_GPA + MB_CMDLINE_MAX, "over the Multiboot block");
_Static_assert(LINUX_MODLIST_GPA >= LINUX_START_INFO_GPA + sizeof(struct hvm_start_info),
	       "modlist");
_Static_assert(LINUX_MEMMAP_GPA >= LINUX_MODLIST_GPA + sizeof(struct hvm_modlist_entry), "memmap");
_Static_assert(LINUX_MEMMAP_GPA + LINUX_MEMMAP_MAX * sizeof(struct hvm_memmap_table_entry) <=
	       LINUX_CMDLINE_GPA, "memmap runs into the command line");
_Static_assert(LINUX_CMDLINE_GPA + LINUX_CMDLINE_AREA <= LINUX_LOW_RAM_END, "past low RAM");

uint64_t linux_min_ram(uint64_t kernel_end, uint64_t initrd_len)
{
	return mem_align_up(kernel_end, MIB) + mem_align_up(initrd_len, MIB) + LINUX_RAM_MARGIN;
}

/* Top of RAM below 4 GiB, page-aligned, above the kernel: 0 and *gpa, or -1 with `err`. */
static int place_initrd(const struct guest_mem *mem, const struct linux_boot_cfg *cfg,
			uint64_t *gpa, char *err, size_t errlen)
{
	uint64_t top = mem->size < LINUX_4G ? mem->size : LINUX_4G;
	uint64_t floor = mem_align_up(cfg->kernel_end, PAGE);

	*gpa = 0;
	if (!cfg->initrd_len)
		return 0;
	if (cfg->initrd_len <= top && ((top - cfg->initrd_len) & ~(PAGE - 1)) >= floor) {
		*gpa = (top - cfg->initrd_len) & ~(PAGE - 1);
		return 0;
	}
	return errmsg(err, errlen, "initrd of %llu MiB does not fit: RAM %llu MiB, kernel ends at %llu MiB; give --mem >= %llu MiB",
		      (unsigned long long)(mem_align_up(cfg->initrd_len, MIB) >> 20),
		      (unsigned long long)(mem->size >> 20),
		      (unsigned long long)(mem_align_up(cfg->kernel_end, MIB) >> 20),
		      (unsigned long long)(linux_min_ram(cfg->kernel_end, cfg->initrd_len) >> 20));
}

static int check_cfg(const struct guest_mem *mem, const struct linux_boot_cfg *cfg,
		     size_t cmdlen, uint64_t *initrd_gpa, char *err, size_t errlen)
{
	size_t max = cfg->cmdline_max < LINUX_CMDLINE_AREA - 1 ? cfg->cmdline_max :
		     LINUX_CMDLINE_AREA - 1;

	if (cmdlen > max)
		return errmsg(err, errlen, "kernel command line of %zu bytes is longer than the %zu this kernel takes",
			      cmdlen, max);
	if (mem->size <= LINUX_HIGH_START)
		return errmsg(err, errlen, "%llu KiB of RAM: Linux needs RAM above 1 MiB",
			      (unsigned long long)(mem->size >> 10));
	if (cfg->kernel_end > mem->size)
		return errmsg(err, errlen, "kernel ends at 0x%llx, past the end of RAM (0x%llx)",
			      (unsigned long long)cfg->kernel_end, (unsigned long long)mem->size);
	return place_initrd(mem, cfg, initrd_gpa, err, errlen);
}

static uint32_t build_memmap(const struct guest_mem *mem, struct hvm_memmap_table_entry *e)
{
	uint32_t n = 0;

	e[n++] = (struct hvm_memmap_table_entry){ 0, LINUX_LOW_RAM_END, HVM_MEMMAP_RAM, 0 };
	e[n++] = (struct hvm_memmap_table_entry){ LINUX_LOW_RAM_END,
		LINUX_HIGH_START - LINUX_LOW_RAM_END, HVM_MEMMAP_RESERVED, 0 };
	e[n++] = (struct hvm_memmap_table_entry){ LINUX_HIGH_START,
		mem->size - LINUX_HIGH_START, HVM_MEMMAP_RAM, 0 };
	if (mem->size <= LINUX_KVM_PAGES)
		e[n++] = (struct hvm_memmap_table_entry){ LINUX_KVM_PAGES,
			LINUX_4G - LINUX_KVM_PAGES, HVM_MEMMAP_RESERVED, 0 };
	return n;
}

int linux_write_start_info(struct guest_mem *mem, const struct linux_boot_cfg *cfg,
			   uint64_t *start_info_gpa, char *err, size_t errlen)
{
	const char *cmdline = cfg->cmdline ? cfg->cmdline : "";
	size_t cmdlen = strlen(cmdline);
	struct hvm_memmap_table_entry map[LINUX_MEMMAP_MAX];
	struct hvm_modlist_entry mod = { 0 };
	struct hvm_start_info si = {
		.magic = HVM_START_MAGIC, .version = HVM_START_VERSION,
		.cmdline_paddr = LINUX_CMDLINE_GPA, .rsdp_paddr = cfg->rsdp_gpa,
		.memmap_paddr = LINUX_MEMMAP_GPA,
	};
	uint64_t initrd_gpa;

	if (check_cfg(mem, cfg, cmdlen, &initrd_gpa, err, errlen))
		return -1;
	si.memmap_entries = build_memmap(mem, map);
	if (cfg->initrd_len) {
		mod = (struct hvm_modlist_entry){ .paddr = initrd_gpa, .size = cfg->initrd_len };
		si.nr_modules = 1;
		si.modlist_paddr = LINUX_MODLIST_GPA;
	}
	if (mem_write(mem, LINUX_CMDLINE_GPA, cmdline, cmdlen + 1) ||
	    mem_write(mem, LINUX_MEMMAP_GPA, map, si.memmap_entries * sizeof(map[0])) ||
	    mem_write(mem, LINUX_MODLIST_GPA, &mod, sizeof(mod)) ||
	    (cfg->initrd_len && mem_write(mem, initrd_gpa, cfg->initrd, cfg->initrd_len)) ||
	    mem_write(mem, LINUX_START_INFO_GPA, &si, sizeof(si)))
		return errmsg(err, errlen, "start info: write to guest RAM failed");
	*start_info_gpa = LINUX_START_INFO_GPA;
	return 0;
}
