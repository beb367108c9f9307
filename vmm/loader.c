// SPDX-License-Identifier: MIT
/*
 * The loader trusts nothing in the file: every header field that decides
 * where bytes come from or go to is range-checked before a byte moves.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "minivmm/abi.h"
#include "vmm/errmsg.h"
#include "vmm/loader.h"
#include "vmm/multiboot.h"

#define LOADER_MAX_FILE	(256u << 20)

static const struct elf_expect elf64_x86 = {
	.name = "ELF", .machine = EM_X86_64, .phentsize = sizeof(Elf64_Phdr),
	.endian_why = "x86-64 payloads are little-endian",
	.machine_why = "need x86-64 (EM_X86_64",
};

int loader_check_ehdr(Elf *elf, size_t len, const struct elf_expect *want, GElf_Ehdr *eh,
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
	return loader_check_ehdr(elf, len, &elf64_x86, eh, err, errlen);
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
 * unless the whole image is good. Shared with the Multiboot loader.
 */
int loader_load_segments(Elf *elf, const GElf_Ehdr *eh, const void *image, size_t len,
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
	info->entry = eh->e_entry;
	return 0;
}

enum image_kind loader_image_kind(const void *image, size_t len)
{
	const uint8_t *b = image;

	if (len > EI_CLASS && !memcmp(b, ELFMAG, SELFMAG) && b[EI_CLASS] == ELFCLASS32)
		return IMAGE_MULTIBOOT;
	return IMAGE_ELF64;
}

int loader_load_image(const void *image, size_t len, struct guest_mem *mem,
		      struct load_info *info, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	Elf *elf;
	int ret = -1;

	memset(info, 0, sizeof(*info));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return errmsg(err, errlen, "libelf: %s", elf_errmsg(-1));
	if (len == 0)
		return errmsg(err, errlen, "empty file");
	/* libelf only says "invalid data" for these: name them first. */
	if (len < SELFMAG || memcmp(image, ELFMAG, SELFMAG))
		return errmsg(err, errlen, "not an ELF file (bad magic)");
	if (loader_image_kind(image, len) == IMAGE_MULTIBOOT)
		return multiboot_load_image(image, len, mem, info, err, errlen);
	if (len < sizeof(Elf64_Ehdr))
		return errmsg(err, errlen, "truncated: %zu bytes, the ELF64 header needs %zu",
			    len, sizeof(Elf64_Ehdr));
	elf = elf_memory((char *)image, len);
	if (!elf)
		return errmsg(err, errlen, "libelf: %s", elf_errmsg(-1));
	if (!check_header(elf, len, &eh, err, errlen))
		ret = loader_load_segments(elf, &eh, image, len, mem, info, err, errlen);
	elf_end(elf);
	return ret;
}

void *loader_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	void *buf = NULL;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		errmsg(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		errmsg(err, errlen, "%s: %s", path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		errmsg(err, errlen, "%s: is a directory, not an ELF file", path);
	} else if (!S_ISREG(st.st_mode)) {
		errmsg(err, errlen, "%s: not a regular file", path);
	} else if (st.st_size > LOADER_MAX_FILE) {
		errmsg(err, errlen, "%s: %lld bytes is larger than the %u MiB limit", path,
		     (long long)st.st_size, LOADER_MAX_FILE >> 20);
	} else if (!(buf = malloc(st.st_size ? st.st_size : 1))) {
		errmsg(err, errlen, "%s: out of memory", path);
	} else if ((got = read(fd, buf, st.st_size)) != st.st_size) {
		errmsg(err, errlen, "%s: short read (%zd of %lld bytes)", path, got,
		     (long long)st.st_size);
		free(buf);
		buf = NULL;
	}
	*len = buf ? (size_t)st.st_size : 0;
	close(fd);
	return buf;
}

int loader_load_file(const char *path, struct guest_mem *mem, struct load_info *info,
		     char *err, size_t errlen)
{
	char why[256];
	size_t len;
	void *buf = loader_read_file(path, &len, err, errlen);
	int ret;

	if (!buf)
		return -1;
	ret = loader_load_image(buf, len, mem, info, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "%s: %s", path, why);
	free(buf);
	return ret;
}
