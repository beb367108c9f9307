// SPDX-License-Identifier: MIT
/*
 * minivmm's own payloads: ELF64 x86-64 executables, entered in 64-bit mode
 * on every vCPU at once (RDI = the vCPU's index, RSI = struct mvm_bootinfo;
 * docs/abi.md). The last format the loader tries: it takes whatever no
 * other format claimed, so its errors say what is wrong with the file.
 */
#include <elf.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/elf64.h"
#include "vmm/elfimg.h"
#include "vmm/errmsg.h"

static const struct elf_expect elf64_x86 = {
	.prefix = "", .name = "ELF", .machine = EM_X86_64, .phentsize = sizeof(Elf64_Phdr),
	.endian_why = "x86-64 payloads are little-endian",
	.machine_why = "need x86-64 (EM_X86_64",
};

static int check_header(const void *image, size_t len, struct elf_view *v, char *err,
			size_t errlen)
{
	const uint8_t *b = image;

	if (len == 0)
		return errmsg(err, errlen, "empty file");
	if (!elfview_is_elf(image, len))
		return errmsg(err, errlen, "not an ELF file (bad magic)");
	if (len > EI_CLASS && b[EI_CLASS] != ELFCLASS64)
		return errmsg(err, errlen, "not an ELF64 file: class %d", b[EI_CLASS]);
	if (len < sizeof(Elf64_Ehdr))
		return errmsg(err, errlen, "truncated: %zu bytes, the ELF64 header needs %zu",
			      len, sizeof(Elf64_Ehdr));
	if (elfview_open(image, len, "ELF", v, err, errlen))
		return -1;
	return elfview_check_ehdr(v, &elf64_x86, err, errlen);
}

int elf64_load_image(const void *image, size_t len, struct guest_mem *mem,
		     struct load_info *info, char *err, size_t errlen)
{
	struct elf_view v;
	int ret = -1;

	if (!check_header(image, len, &v, err, errlen))
		ret = elfimg_load_segments(&v, mem, info, err, errlen);
	info->entry = (struct image_entry){
		.mode = IMAGE_ENTRY_LONG64, .what = "64-bit boot state", .rip = info->entry.rip,
		.rsi = MVM_BOOTINFO_GPA, .all_vcpus = true,
	};
	return ret;
}
