// SPDX-License-Identifier: MIT
/*
 * The ELF part of every ELF-based format. It trusts nothing in the file:
 * every header field that decides where bytes come from or go to is
 * range-checked before a byte moves.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/elfimg.h"
#include "vmm/errmsg.h"

int elfimg_check_ehdr(Elf *elf, size_t len, const struct elf_expect *want, GElf_Ehdr *eh,
		      char *err, size_t errlen)
{
	if (!gelf_getehdr(elf, eh))
		return errmsg(err, errlen, "unreadable %s header: %s", want->name, elf_errmsg(-1));
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return errmsg(err, errlen, "big-endian %s: %s", want->name, want->endian_why);
	if (eh->e_machine != want->machine)
		return errmsg(err, errlen, "wrong machine %u: %s = %u)", eh->e_machine,
			      want->machine_why, want->machine);
	if (eh->e_type != ET_EXEC)
		return errmsg(err, errlen, "ELF type %u is not an executable (ET_EXEC)", eh->e_type);
	if (eh->e_phentsize != want->phentsize)
		return errmsg(err, errlen, "program header entry size %u, expected %zu",
			      eh->e_phentsize, want->phentsize);
	if (eh->e_phoff > len || (uint64_t)eh->e_phnum * want->phentsize > len - eh->e_phoff)
		return errmsg(err, errlen, "truncated: program headers (%u at offset %llu) run past the end of the %zu-byte file",
			      eh->e_phnum, (unsigned long long)eh->e_phoff, len);
	return 0;
}

static int check_segment(const GElf_Phdr *ph, unsigned int i, size_t len,
			 const struct guest_mem *mem, char *err, size_t errlen)
{
	unsigned long long pa = ph->p_paddr, msz = ph->p_memsz, fsz = ph->p_filesz;

	if (fsz > msz)
		return errmsg(err, errlen, "segment %u: file size 0x%llx exceeds memory size 0x%llx",
			    i, fsz, msz);
	if (ph->p_offset > len || fsz > len - ph->p_offset)
		return errmsg(err, errlen, "segment %u: file bytes 0x%llx+0x%llx run past the end of the %zu-byte file",
			    i, (unsigned long long)ph->p_offset, fsz, len);
	if (pa + msz < pa)
		return errmsg(err, errlen, "segment %u: address 0x%llx + size 0x%llx overflows",
			    i, pa, msz);
	if (pa < MVM_LOAD_MIN)
		return errmsg(err, errlen, "segment %u at 0x%llx overlaps minivmm's reserved area below 0x%llx",
			    i, pa, (unsigned long long)MVM_LOAD_MIN);
	if (msz && !mem_gpa_to_host(mem, pa, msz))
		return errmsg(err, errlen, "segment %u [0x%llx, 0x%llx) lies outside guest RAM (%llu MiB)",
			    i, pa, pa + msz, (unsigned long long)(mem->size >> 20));
	return 0;
}

static bool entry_in(const GElf_Phdr *ph, uint64_t entry)
{
	return entry >= ph->p_paddr && entry - ph->p_paddr < ph->p_memsz;
}

/*
 * Validate every PT_LOAD segment, then copy them all: nothing is written
 * unless the whole image is good.
 */
int elfimg_load_segments(Elf *elf, const GElf_Ehdr *eh, const void *image, size_t len,
			 struct guest_mem *mem, struct load_info *info, char *err, size_t errlen)
{
	GElf_Phdr ph;
	bool entry_ok = false;

	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return errmsg(err, errlen, "program header %u: %s", i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (check_segment(&ph, i, len, mem, err, errlen))
			return -1;
		info->segments++;
		entry_ok |= entry_in(&ph, eh->e_entry);
	}
	if (!info->segments)
		return errmsg(err, errlen, "no PT_LOAD segment: nothing to load");
	if (!entry_ok)
		return errmsg(err, errlen, "entry point 0x%llx is outside every loaded segment",
			      (unsigned long long)eh->e_entry);
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		uint8_t *dst;

		gelf_getphdr(elf, i, &ph);
		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		dst = mem_gpa_to_host(mem, ph.p_paddr, ph.p_memsz);
		memcpy(dst, (const uint8_t *)image + ph.p_offset, ph.p_filesz);
		memset(dst + ph.p_filesz, 0, ph.p_memsz - ph.p_filesz);
		if (ph.p_paddr + ph.p_memsz > info->image_end)
			info->image_end = ph.p_paddr + ph.p_memsz;
	}
	info->entry.rip = eh->e_entry;
	return 0;
}
