// SPDX-License-Identifier: MIT
/*
 * Multiboot v1: the header is found and checked before its ELF headers are
 * read (vmm/elfview.c); segments then go through the same checks as ELF64 payloads. Only
 * the ELF route is taken (no a.out kludge), so the header's address fields
 * are never trusted.
 */
#include <elf.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/elfimg.h"
#include "vmm/errmsg.h"
#include "vmm/mem.h"
#include "vmm/multiboot.h"

struct mb_header {
	uint32_t magic;
	uint32_t flags;
	uint32_t checksum;
};

long multiboot_find_header(const void *image, size_t len, char *err, size_t errlen)
{
	size_t limit = len < MB_SEARCH_LEN ? len : MB_SEARCH_LEN;
	struct mb_header h;

	/* 32-bit aligned, wholly inside the first 8 KiB and inside the file. */
	for (size_t off = 0; off + sizeof(h) <= limit; off += 4) {
		memcpy(&h, (const uint8_t *)image + off, sizeof(h));
		if (h.magic != MB_HEADER_MAGIC)
			continue;
		if ((uint32_t)(h.magic + h.flags + h.checksum) != 0)
			return errmsg(err, errlen, "Multiboot header at offset 0x%zx: checksum 0x%08x does not make magic + flags + checksum zero",
				      off, h.checksum);
		if (h.flags & MB_HF_VIDEO)
			return errmsg(err, errlen, "Multiboot header flags 0x%08x ask for a video mode (bit 2): minivmm has no display",
				      h.flags);
		if (h.flags & 0xffffu & ~MB_HF_SUPPORTED)
			return errmsg(err, errlen, "Multiboot header flags 0x%08x require features (bits 0-15) minivmm does not know",
				      h.flags);
		if (h.flags & MB_HF_ADDRS)
			return errmsg(err, errlen, "Multiboot header flags 0x%08x use load addresses (bit 16): minivmm loads ELF segments only",
				      h.flags);
		return (long)off;
	}
	return errmsg(err, errlen, "ELF32 file without a Multiboot header (magic 0x%08x) in its first %u bytes: minivmm boots ELF64 payloads and Multiboot kernels",
		      MB_HEADER_MAGIC, MB_SEARCH_LEN);
}

bool multiboot_probe(const void *image, size_t len)
{
	const uint8_t *b = image;

	/* The ELF class alone: the header search and its errors are the load's. */
	return len > EI_CLASS && !memcmp(b, ELFMAG, SELFMAG) && b[EI_CLASS] == ELFCLASS32;
}

static const struct elf_load_rules multiboot_rules = {
	.seg = "segment", .min_gpa = MB_HIGH_START, .low_start = MB_LOW_LOAD_START,
	.low_end = MB_LOW_RAM_END, .below_why = "minivmm's reserved area",
};

uint64_t multiboot_info_gpa(uint64_t image_start, uint64_t image_end)
{
	return image_start < MB_HIGH_START ? mem_align_up(image_end, MVM_PAGE_SIZE) : MB_INFO_GPA;
}

static const struct elf_expect elf32_i386 = {
	.prefix = "", .name = "ELF32", .machine = EM_386, .phentsize = sizeof(Elf32_Phdr),
	.endian_why = "a Multiboot kernel is little-endian",
	.machine_why = "a Multiboot kernel is i386 (EM_386",
};

int multiboot_load_image(const void *image, size_t len, struct guest_mem *mem,
			 struct load_info *info, char *err, size_t errlen)
{
	struct elf_view v;
	int ret = -1;

	if (len < sizeof(Elf32_Ehdr))
		return errmsg(err, errlen, "truncated: %zu bytes, the ELF32 header needs %zu",
			      len, sizeof(Elf32_Ehdr));
	if (multiboot_find_header(image, len, err, errlen) < 0)
		return -1;
	if (!elfview_open(image, len, "ELF32", &v, err, errlen) &&
	    !elfview_check_ehdr(&v, &elf32_i386, err, errlen))
		ret = elfimg_load_segments_by(&v, mem, &multiboot_rules, info, err, errlen);
	/* The boot vCPU only, EAX = boot magic, EBX = the information block. */
	info->entry = (struct image_entry){
		.mode = IMAGE_ENTRY_FLAT32, .what = "32-bit Multiboot state", .rip = info->entry.rip,
		.rax = MB_BOOT_MAGIC, .rbx = multiboot_info_gpa(info->image_start, info->image_end),
	};
	return ret;
}

static void add_region(struct mb_mmap_entry *map, unsigned int *n, uint64_t addr,
		       uint64_t len, uint32_t type)
{
	map[*n] = (struct mb_mmap_entry){ .size = sizeof(map[0]) - 4, .addr = addr,
					  .len = len, .type = type };
	(*n)++;
}

/*
 * The module goes page-aligned after the kernel, as QEMU puts it, its name
 * right after the command line; 0, or -1 with what does not fit.
 */
static int write_module(struct guest_mem *mem, uint64_t base, uint64_t kernel_end,
			uint64_t name_gpa, const struct mb_module_file *mod, char *err, size_t errlen)
{
	uint64_t end = base + MB_BLOCK_LEN > kernel_end ? base + MB_BLOCK_LEN : kernel_end;
	uint64_t start = mem_align_up(end, MVM_PAGE_SIZE);
	size_t nlen = strlen(mod->name) + 1;
	struct mb_module e;

	if (name_gpa + nlen > base + MB_BLOCK_LEN)
		return errmsg(err, errlen, "kernel command line and module name %s exceed %u bytes",
			      mod->name, MB_CMDLINE_MAX);
	if (start > mem->size || mod->len > mem->size - start)
		return errmsg(err, errlen, "module %s of %zu KiB does not fit: the kernel ends at %llu KiB and RAM at %llu KiB; give a larger --mem",
			      mod->name, mod->len >> 10, (unsigned long long)(start >> 10),
			      (unsigned long long)(mem->size >> 10));
	e = (struct mb_module){ .start = (uint32_t)start, .end = (uint32_t)(start + mod->len),
				.string = (uint32_t)name_gpa };
	if ((mod->len && mem_write(mem, start, mod->data, mod->len)) ||
	    mem_write(mem, name_gpa, mod->name, nlen) ||
	    mem_write(mem, base + MB_MODS_OFF, &e, sizeof(e)))
		return errmsg(err, errlen, "guest RAM too small for module %s", mod->name);
	return 0;
}

int multiboot_write_info(struct guest_mem *mem, uint64_t base, const char *cmdline,
			 uint64_t kernel_end, const struct mb_module_file *mod,
			 char *err, size_t errlen)
{
	static const char name[] = "minivmm";
	struct mb_mmap_entry map[3];
	struct mb_info mbi;
	unsigned int n = 0;
	size_t clen = strlen(cmdline) + 1;

	if (mem->size <= MB_HIGH_START)
		return errmsg(err, errlen, "guest RAM of %llu KiB leaves nothing above 1 MiB",
			      (unsigned long long)(mem->size >> 10));
	if (clen > MB_CMDLINE_MAX)
		return errmsg(err, errlen, "kernel command line of %zu bytes exceeds %u", clen,
			      MB_CMDLINE_MAX);
	add_region(map, &n, 0, MB_LOW_RAM_END, MB_MMAP_RAM);
	add_region(map, &n, MB_LOW_RAM_END, MB_HIGH_START - MB_LOW_RAM_END, MB_MMAP_RESERVED);
	add_region(map, &n, MB_HIGH_START, mem->size - MB_HIGH_START, MB_MMAP_RAM);
	memset(&mbi, 0, sizeof(mbi));
	mbi.flags = MB_IF_MEM | MB_IF_CMDLINE | MB_IF_MMAP | MB_IF_LOADER_NAME;
	mbi.mem_lower = MB_LOW_RAM_END >> 10;
	/* Contiguous RAM from 1 MiB; fits 32 bits as RAM ends below MVM_RAM_MAX. */
	mbi.mem_upper = (uint32_t)((mem->size - MB_HIGH_START) >> 10);
	mbi.cmdline = (uint32_t)(base + MB_CMDLINE_OFF);
	mbi.mmap_addr = (uint32_t)(base + MB_MMAP_OFF);
	mbi.mmap_length = n * sizeof(map[0]);
	mbi.boot_loader_name = (uint32_t)(base + MB_NAME_OFF);
	if (mod && mod->name) {
		if (write_module(mem, base, kernel_end, base + MB_CMDLINE_OFF + clen, mod, err, errlen))
			return -1;
		mbi.flags |= MB_IF_MODS;
		mbi.mods_count = 1;
		mbi.mods_addr = (uint32_t)(base + MB_MODS_OFF);
	}
	if (mem_write(mem, base, &mbi, sizeof(mbi)) ||
	    mem_write(mem, base + MB_MMAP_OFF, map, n * sizeof(map[0])) ||
	    mem_write(mem, base + MB_NAME_OFF, name, sizeof(name)) ||
	    mem_write(mem, base + MB_CMDLINE_OFF, cmdline, clen))
		return errmsg(err, errlen, "guest RAM too small for the Multiboot information");
	return 0;
}
