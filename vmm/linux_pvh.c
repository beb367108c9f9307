// SPDX-License-Identifier: MIT
/*
 * A vmlinux for the PVH entry, parsed by hand (no libelf state, so the
 * fuzzer sees every branch): ELF64 x86-64, or ELF32 i386 since both share
 * the note layout. Every offset from the file is checked before it is used,
 * and nothing is written to guest RAM until the whole image is judged good.
 */
#include <elf.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/errmsg.h"
#include "vmm/linux_abi.h"
#include "vmm/linux_pvh.h"

struct elf_view {
	const uint8_t *b;
	size_t len;
	unsigned int cls;	/* 32 or 64 */
	uint64_t phoff;
	unsigned int phnum;
};

/* One program header, whichever class it came from. */
struct phdr {
	uint32_t type;
	uint64_t offset, paddr, filesz, memsz, align;
};

bool linux_pvh_is_elf(const void *buf, size_t len)
{
	return len >= EI_NIDENT && !memcmp(buf, ELFMAG, SELFMAG);
}

static int view_ehdr(const uint8_t *b, size_t len, struct elf_view *v, char *err, size_t errlen)
{
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	unsigned int machine, type, phentsize, want_machine = v->cls == 64 ? EM_X86_64 : EM_386;
	size_t want_phent = v->cls == 64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);

	if (len < (v->cls == 64 ? sizeof(e64) : sizeof(e32)))
		return errmsg(err, errlen, "truncated vmlinux: %zu bytes, the ELF%u header needs %zu",
			      len, v->cls, v->cls == 64 ? sizeof(e64) : sizeof(e32));
	if (v->cls == 64) {
		memcpy(&e64, b, sizeof(e64));
		machine = e64.e_machine, type = e64.e_type, phentsize = e64.e_phentsize;
		v->phoff = e64.e_phoff, v->phnum = e64.e_phnum;
	} else {
		memcpy(&e32, b, sizeof(e32));
		machine = e32.e_machine, type = e32.e_type, phentsize = e32.e_phentsize;
		v->phoff = e32.e_phoff, v->phnum = e32.e_phnum;
	}
	if (machine != want_machine)
		return errmsg(err, errlen, "vmlinux: ELF%u machine %u, expected %u (%s)", v->cls,
			      machine, want_machine, v->cls == 64 ? "x86-64" : "i386");
	if (type != ET_EXEC)
		return errmsg(err, errlen, "vmlinux: ELF type %u is not an executable (ET_EXEC)", type);
	if (phentsize != want_phent)
		return errmsg(err, errlen, "vmlinux: program header entry size %u, expected %zu",
			      phentsize, want_phent);
	if (!v->phnum)
		return errmsg(err, errlen, "vmlinux: no program headers");
	if (v->phoff > len || (uint64_t)v->phnum * want_phent > len - v->phoff)
		return errmsg(err, errlen, "truncated vmlinux: %u program headers at offset %llu run past the end of the %zu-byte file",
			      v->phnum, (unsigned long long)v->phoff, len);
	return 0;
}

static int view_elf(const void *buf, size_t len, struct elf_view *v, char *err, size_t errlen)
{
	const uint8_t *b = buf;

	memset(v, 0, sizeof(*v));
	if (!linux_pvh_is_elf(buf, len))
		return errmsg(err, errlen, "not an ELF vmlinux (bad magic)");
	if (b[EI_CLASS] != ELFCLASS64 && b[EI_CLASS] != ELFCLASS32)
		return errmsg(err, errlen, "vmlinux: ELF class %u is neither ELF32 nor ELF64",
			      b[EI_CLASS]);
	if (b[EI_DATA] != ELFDATA2LSB)
		return errmsg(err, errlen, "vmlinux: big-endian ELF, x86 kernels are little-endian");
	v->b = b;
	v->len = len;
	v->cls = b[EI_CLASS] == ELFCLASS64 ? 64 : 32;
	return view_ehdr(b, len, v, err, errlen);
}

static struct phdr get_phdr(const struct elf_view *v, unsigned int i)
{
	Elf64_Phdr p64;
	Elf32_Phdr p32;

	if (v->cls == 64) {
		memcpy(&p64, v->b + v->phoff + (uint64_t)i * sizeof(p64), sizeof(p64));
		return (struct phdr){ p64.p_type, p64.p_offset, p64.p_paddr, p64.p_filesz,
				      p64.p_memsz, p64.p_align };
	}
	memcpy(&p32, v->b + v->phoff + (uint64_t)i * sizeof(p32), sizeof(p32));
	return (struct phdr){ p32.p_type, p32.p_offset, p32.p_paddr, p32.p_filesz,
			      p32.p_memsz, p32.p_align };
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static uint32_t desc_u32(const uint8_t *d, uint32_t descsz, uint32_t word)
{
	uint32_t v = 0;

	if (descsz >= (word + 1) * 4)
		memcpy(&v, d + word * 4, 4);
	return v;
}

static int xen_note(uint32_t type, const uint8_t *d, uint32_t descsz, struct linux_pvh_info *info,
		    bool *found, char *err, size_t errlen)
{
	uint64_t entry = 0;

	if (type == XEN_ELFNOTE_PHYS32_RELOC) {
		/* Noted only: minivmm loads at p_paddr, where a relocatable kernel runs too. */
		info->relocatable = true;
		info->reloc_align = desc_u32(d, descsz, 0);
		info->reloc_min = desc_u32(d, descsz, 1);
		info->reloc_max = desc_u32(d, descsz, 2);
		return 0;
	}
	if (type != XEN_ELFNOTE_PHYS32_ENTRY || *found)
		return 0;
	if (descsz != 4 && descsz != 8)
		return errmsg(err, errlen, "not a PVH kernel: its PHYS32_ENTRY note has %u bytes, expected 4 or 8",
			      descsz);
	memcpy(&entry, d, descsz);	/* little-endian host */
	if (entry > UINT32_MAX)
		return errmsg(err, errlen, "not a PVH kernel: PHYS32_ENTRY 0x%llx is above 4 GiB",
			      (unsigned long long)entry);
	info->entry = entry;
	*found = true;
	return 0;
}

/* Walk one PT_NOTE segment; namesz/descsz are 32-bit, so no sum below overflows. */
static int walk_notes(const struct elf_view *v, const struct phdr *ph, unsigned int idx,
		      struct linux_pvh_info *info, bool *found, char *err, size_t errlen)
{
	uint64_t a = ph->align == 8 ? 8 : 4, pos = ph->offset, end;
	Elf32_Nhdr n;

	if (ph->offset > v->len || ph->filesz > v->len - ph->offset)
		return errmsg(err, errlen, "vmlinux: PT_NOTE %u [0x%llx, +0x%llx) runs past the end of the %zu-byte file",
			      idx, (unsigned long long)ph->offset, (unsigned long long)ph->filesz, v->len);
	end = ph->offset + ph->filesz;
	while (end - pos >= sizeof(n)) {
		uint64_t name, desc;

		memcpy(&n, v->b + pos, sizeof(n));
		name = pos + sizeof(n);
		desc = name + align_up(n.n_namesz, a);
		if (desc > end || n.n_descsz > end - desc)
			return errmsg(err, errlen, "vmlinux: note at 0x%llx (name %u, desc %u bytes) runs past its PT_NOTE segment",
				      (unsigned long long)pos, n.n_namesz, n.n_descsz);
		if (n.n_namesz == sizeof(XEN_ELFNOTE_NAME) &&
		    !memcmp(v->b + name, XEN_ELFNOTE_NAME, sizeof(XEN_ELFNOTE_NAME)) &&
		    xen_note(n.n_type, v->b + desc, n.n_descsz, info, found, err, errlen))
			return -1;
		pos = desc + align_up(n.n_descsz, a);
		if (pos > end)
			break;	/* the last note's padding may be missing */
	}
	return 0;
}

static int find_entry(const struct elf_view *v, struct linux_pvh_info *info, char *err,
		      size_t errlen)
{
	unsigned int notes = 0;
	bool found = false;

	for (unsigned int i = 0; i < v->phnum; i++) {
		struct phdr ph = get_phdr(v, i);

		if (ph.type != PT_NOTE)
			continue;
		notes++;
		if (walk_notes(v, &ph, i, info, &found, err, errlen))
			return -1;
	}
	if (!found)
		return errmsg(err, errlen, "not a PVH kernel: no XEN_ELFNOTE_PHYS32_ENTRY note (type 18, \"Xen\") in its %u PT_NOTE segment%s (Linux needs CONFIG_PVH=y)",
			      notes, notes == 1 ? "" : "s");
	return 0;
}

int linux_pvh_find_entry(const void *buf, size_t len, struct linux_pvh_info *info,
			 char *err, size_t errlen)
{
	struct elf_view v;

	memset(info, 0, sizeof(*info));
	if (view_elf(buf, len, &v, err, errlen))
		return -1;
	info->elf_class = v.cls;
	return find_entry(&v, info, err, errlen);
}

static int check_segment(const struct elf_view *v, const struct phdr *ph, unsigned int i,
			 const struct guest_mem *mem, char *err, size_t errlen)
{
	unsigned long long pa = ph->paddr, msz = ph->memsz, fsz = ph->filesz;

	if (fsz > msz)
		return errmsg(err, errlen, "vmlinux segment %u: file size 0x%llx exceeds memory size 0x%llx",
			      i, fsz, msz);
	if (ph->offset > v->len || fsz > v->len - ph->offset)
		return errmsg(err, errlen, "vmlinux segment %u: file bytes 0x%llx+0x%llx run past the end of the %zu-byte file",
			      i, (unsigned long long)ph->offset, fsz, v->len);
	if (pa + msz < pa)
		return errmsg(err, errlen, "vmlinux segment %u: address 0x%llx + size 0x%llx overflows",
			      i, pa, msz);
	if (pa < MVM_RESERVED_END)
		return errmsg(err, errlen, "vmlinux segment %u at 0x%llx lies below 1 MiB, where minivmm keeps its tables",
			      i, pa);
	if (!mem_gpa_to_host(mem, pa, msz))
		return errmsg(err, errlen, "vmlinux segment %u [0x%llx, 0x%llx) lies outside guest RAM (%llu MiB)",
			      i, pa, pa + msz, (unsigned long long)(mem->size >> 20));
	return 0;
}

/* Validate every PT_LOAD with bytes; the entry must fall in one's file bytes. */
static int check_segments(const struct elf_view *v, const struct guest_mem *mem,
			  struct linux_pvh_info *info, char *err, size_t errlen)
{
	bool entry_ok = false;

	info->kernel_start = UINT64_MAX;
	for (unsigned int i = 0; i < v->phnum; i++) {
		struct phdr ph = get_phdr(v, i);

		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		if (check_segment(v, &ph, i, mem, err, errlen))
			return -1;
		info->segments++;
		entry_ok |= info->entry >= ph.paddr && info->entry - ph.paddr < ph.filesz;
		if (ph.paddr < info->kernel_start)
			info->kernel_start = ph.paddr;
		if (ph.paddr + ph.memsz > info->kernel_end)
			info->kernel_end = ph.paddr + ph.memsz;
	}
	if (!info->segments)
		return errmsg(err, errlen, "vmlinux: no PT_LOAD segment with bytes: nothing to load");
	if (!entry_ok)
		return errmsg(err, errlen, "vmlinux: PVH entry 0x%llx is outside every loaded segment's file bytes",
			      (unsigned long long)info->entry);
	return 0;
}

/*
 * Every PT_LOAD goes to its p_paddr: Linux's .data..percpu has p_vaddr 0.
 * A 6.12 kernel's PHYS32_RELOC note would let it run elsewhere; its link
 * address is one of the places it accepts, so minivmm does not move it.
 */
int linux_pvh_load(const void *buf, size_t len, struct guest_mem *mem,
		   struct linux_pvh_info *info, char *err, size_t errlen)
{
	struct elf_view v;

	if (linux_pvh_find_entry(buf, len, info, err, errlen))
		return -1;
	view_elf(buf, len, &v, err, errlen);	/* checked just above */
	if (check_segments(&v, mem, info, err, errlen))
		return -1;
	for (unsigned int i = 0; i < v.phnum; i++) {
		struct phdr ph = get_phdr(&v, i);
		uint8_t *bss;

		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		if (ph.filesz && mem_write(mem, ph.paddr, v.b + ph.offset, ph.filesz))
			return errmsg(err, errlen, "vmlinux segment %u: write to guest RAM failed", i);
		bss = ph.memsz > ph.filesz ?
			mem_gpa_to_host(mem, ph.paddr + ph.filesz, ph.memsz - ph.filesz) : NULL;
		if (bss)
			memset(bss, 0, ph.memsz - ph.filesz);
	}
	return 0;
}
