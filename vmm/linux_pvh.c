// SPDX-License-Identifier: MIT
/*
 * A vmlinux for the PVH entry, read through vmm/elfview.c (the reader
 * every ELF format shares): ELF64 x86-64, or ELF32 i386 since both share
 * the note layout. Every offset from the file is checked before it is used,
 * and nothing is written to guest RAM until the whole image is judged good.
 */
#include <elf.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/elfview.h"
#include "vmm/errmsg.h"
#include "vmm/linux_abi.h"
#include "vmm/linux_pvh.h"
#include "vmm/mem.h"

bool linux_pvh_is_elf(const void *buf, size_t len)
{
	return len >= EI_NIDENT && elfview_is_elf(buf, len);
}

static const struct elf_expect vmlinux64 = {
	.prefix = "vmlinux: ", .name = "ELF64", .machine = EM_X86_64,
	.phentsize = sizeof(Elf64_Phdr), .need_phdrs = true,
	.endian_why = "x86 kernels are little-endian",
	.machine_why = "an ELF64 vmlinux is x86-64 (EM_X86_64",
};

static const struct elf_expect vmlinux32 = {
	.prefix = "vmlinux: ", .name = "ELF32", .machine = EM_386,
	.phentsize = sizeof(Elf32_Phdr), .need_phdrs = true,
	.endian_why = "x86 kernels are little-endian",
	.machine_why = "an ELF32 vmlinux is i386 (EM_386",
};

static int view_elf(const void *buf, size_t len, struct elf_view *v, char *err, size_t errlen)
{
	if (!linux_pvh_is_elf(buf, len))
		return errmsg(err, errlen, "not an ELF vmlinux (bad magic)");
	return elfview_open(buf, len, "vmlinux", v, err, errlen) ||
	       elfview_check_ehdr(v, v->cls == 64 ? &vmlinux64 : &vmlinux32, err, errlen);
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
static int walk_notes(const struct elf_view *v, const struct elf_phdr *ph, unsigned int idx,
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
		desc = name + mem_align_up(n.n_namesz, a);
		if (desc > end || n.n_descsz > end - desc)
			return errmsg(err, errlen, "vmlinux: note at 0x%llx (name %u, desc %u bytes) runs past its PT_NOTE segment",
				      (unsigned long long)pos, n.n_namesz, n.n_descsz);
		if (n.n_namesz == sizeof(XEN_ELFNOTE_NAME) &&
		    !memcmp(v->b + name, XEN_ELFNOTE_NAME, sizeof(XEN_ELFNOTE_NAME)) &&
		    xen_note(n.n_type, v->b + desc, n.n_descsz, info, found, err, errlen))
			return -1;
		pos = desc + mem_align_up(n.n_descsz, a);
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
		struct elf_phdr ph = elfview_phdr(v, i);

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

/* Below 1 MiB minivmm keeps its tables; the PVH entry must be in file bytes. */
static const struct elf_load_rules vmlinux_rules = {
	.seg = "vmlinux segment", .min_gpa = MVM_RESERVED_END,
	.below_why = "where minivmm keeps its tables", .skip_empty = true, .entry_in_file = true,
};

static int check_segments(const struct elf_view *v, const struct guest_mem *mem,
			  struct linux_pvh_info *info, char *err, size_t errlen)
{
	struct elf_loads loads;

	if (elfview_check_loads(v, mem, &vmlinux_rules, info->entry, &loads, err, errlen))
		return -1;
	if (!loads.segments)
		return errmsg(err, errlen, "vmlinux: no PT_LOAD segment with bytes: nothing to load");
	if (!loads.entry_in)
		return errmsg(err, errlen, "vmlinux: PVH entry 0x%llx is outside every loaded segment's file bytes",
			      (unsigned long long)info->entry);
	info->segments = loads.segments;
	info->kernel_start = loads.start;
	info->kernel_end = loads.end;
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
	elfview_copy_loads(&v, mem);
	return 0;
}
