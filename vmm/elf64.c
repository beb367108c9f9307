// SPDX-License-Identifier: MIT
/*
 * minivmm's own payloads: ELF64 x86-64 executables, entered in 64-bit mode
 * on every vCPU at once (RDI = the vCPU's index, RSI = struct mvm_bootinfo;
 * docs/abi.md). The last format the loader tries: it takes whatever no
 * other format claimed, so its errors say what is wrong with the file.
 */
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/elf64.h"
#include "vmm/elfimg.h"
#include "vmm/errmsg.h"

static const struct elf_expect elf64_x86 = {
	.name = "ELF", .machine = EM_X86_64, .phentsize = sizeof(Elf64_Phdr),
	.endian_why = "x86-64 payloads are little-endian",
	.machine_why = "need x86-64 (EM_X86_64",
};

static int check_header(Elf *elf, size_t len, GElf_Ehdr *eh, char *err, size_t errlen)
{
	if (elf_kind(elf) != ELF_K_ELF)
		return errmsg(err, errlen, "not an ELF file (bad magic)");
	if (len < EI_NIDENT)
		return errmsg(err, errlen, "truncated: %zu bytes", len);
	if (gelf_getclass(elf) != ELFCLASS64)
		return errmsg(err, errlen, "not an ELF64 file: class %d", gelf_getclass(elf));
	if (len < sizeof(Elf64_Ehdr))
		return errmsg(err, errlen, "truncated: %zu bytes, the ELF64 header needs %zu",
			    len, sizeof(Elf64_Ehdr));
	return elfimg_check_ehdr(elf, len, &elf64_x86, eh, err, errlen);
}

int elf64_load_image(const void *image, size_t len, struct guest_mem *mem,
		     struct load_info *info, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	Elf *elf;
	int ret = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return errmsg(err, errlen, "libelf: %s", elf_errmsg(-1));
	if (len == 0)
		return errmsg(err, errlen, "empty file");
	/* libelf only says "invalid data" for these: name them first. */
	if (len < SELFMAG || memcmp(image, ELFMAG, SELFMAG))
		return errmsg(err, errlen, "not an ELF file (bad magic)");
	if (len < sizeof(Elf64_Ehdr))
		return errmsg(err, errlen, "truncated: %zu bytes, the ELF64 header needs %zu",
			    len, sizeof(Elf64_Ehdr));
	elf = elf_memory((char *)image, len);
	if (!elf)
		return errmsg(err, errlen, "libelf: %s", elf_errmsg(-1));
	if (!check_header(elf, len, &eh, err, errlen))
		ret = elfimg_load_segments(elf, &eh, image, len, mem, info, err, errlen);
	elf_end(elf);
	info->entry = (struct image_entry){
		.mode = IMAGE_ENTRY_LONG64, .what = "64-bit boot state", .rip = info->entry.rip,
		.rsi = MVM_BOOTINFO_GPA, .all_vcpus = true,
	};
	return ret;
}
