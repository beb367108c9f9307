// SPDX-License-Identifier: MIT
/* The one ELF reader (vmm/elfview.h says what it is for). */
#include <elf.h>
#include <string.h>

#include "vmm/elfview.h"
#include "vmm/errmsg.h"

bool elfview_is_elf(const void *buf, size_t len)
{
	return len >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG);
}

static void read_ehdr(struct elf_view *v)
{
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;

	if (v->cls == 64) {
		memcpy(&e64, v->b, sizeof(e64));
		v->machine = e64.e_machine, v->type = e64.e_type, v->phentsize = e64.e_phentsize;
		v->phnum = e64.e_phnum, v->entry = e64.e_entry, v->phoff = e64.e_phoff;
	} else {
		memcpy(&e32, v->b, sizeof(e32));
		v->machine = e32.e_machine, v->type = e32.e_type, v->phentsize = e32.e_phentsize;
		v->phnum = e32.e_phnum, v->entry = e32.e_entry, v->phoff = e32.e_phoff;
	}
}

int elfview_open(const void *buf, size_t len, const char *name, struct elf_view *v,
		 char *err, size_t errlen)
{
	const uint8_t *b = buf;
	size_t need;

	memset(v, 0, sizeof(*v));
	if (!elfview_is_elf(buf, len))
		return errmsg(err, errlen, "not an %s file (bad magic)", name);
	if (len <= EI_DATA)
		return errmsg(err, errlen, "truncated %s: %zu bytes", name, len);
	if (b[EI_CLASS] != ELFCLASS64 && b[EI_CLASS] != ELFCLASS32)
		return errmsg(err, errlen, "%s: ELF class %u is neither ELF32 nor ELF64", name,
			      b[EI_CLASS]);
	v->cls = b[EI_CLASS] == ELFCLASS64 ? 64 : 32;
	need = v->cls == 64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (len < need)
		return errmsg(err, errlen, "truncated %s: %zu bytes, the ELF%u header needs %zu",
			      name, len, v->cls, need);
	v->b = b;
	v->len = len;
	v->data = b[EI_DATA];
	read_ehdr(v);
	return 0;
}

int elfview_check_ehdr(const struct elf_view *v, const struct elf_expect *want, char *err,
		       size_t errlen)
{
	const char *p = want->prefix;

	if (v->data != ELFDATA2LSB)
		return errmsg(err, errlen, "%sbig-endian %s: %s", p, want->name, want->endian_why);
	if (v->machine != want->machine)
		return errmsg(err, errlen, "%swrong machine %u: %s = %u)", p, v->machine,
			      want->machine_why, want->machine);
	if (v->type != ET_EXEC)
		return errmsg(err, errlen, "%sELF type %u is not an executable (ET_EXEC)", p, v->type);
	if (v->phentsize != want->phentsize)
		return errmsg(err, errlen, "%sprogram header entry size %u, expected %zu", p,
			      v->phentsize, want->phentsize);
	if (want->need_phdrs && !v->phnum)
		return errmsg(err, errlen, "%sno program headers", p);
	if (!elfview_phdrs_fit(v))
		return errmsg(err, errlen, "%struncated: program headers (%u at offset %llu) run past the end of the %zu-byte file",
			      p, v->phnum, (unsigned long long)v->phoff, v->len);
	return 0;
}

bool elfview_phdrs_fit(const struct elf_view *v)
{
	return v->phentsize == (v->cls == 64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) &&
	       v->phoff <= v->len && (uint64_t)v->phnum * v->phentsize <= v->len - v->phoff;
}

struct elf_phdr elfview_phdr(const struct elf_view *v, unsigned int i)
{
	Elf64_Phdr p64;
	Elf32_Phdr p32;

	if (v->cls == 64) {
		memcpy(&p64, v->b + v->phoff + (uint64_t)i * sizeof(p64), sizeof(p64));
		return (struct elf_phdr){ p64.p_type, p64.p_offset, p64.p_paddr, p64.p_filesz,
					  p64.p_memsz, p64.p_align };
	}
	memcpy(&p32, v->b + v->phoff + (uint64_t)i * sizeof(p32), sizeof(p32));
	return (struct elf_phdr){ p32.p_type, p32.p_offset, p32.p_paddr, p32.p_filesz,
				  p32.p_memsz, p32.p_align };
}

static int check_segment(const struct elf_view *v, const struct elf_phdr *ph, unsigned int i,
			 const struct guest_mem *mem, const struct elf_load_rules *r,
			 char *err, size_t errlen)
{
	unsigned long long pa = ph->paddr, msz = ph->memsz, fsz = ph->filesz;

	if (fsz > msz)
		return errmsg(err, errlen, "%s %u: file size 0x%llx exceeds memory size 0x%llx",
			      r->seg, i, fsz, msz);
	if (ph->offset > v->len || fsz > v->len - ph->offset)
		return errmsg(err, errlen, "%s %u: file bytes 0x%llx+0x%llx run past the end of the %zu-byte file",
			      r->seg, i, (unsigned long long)ph->offset, fsz, v->len);
	if (pa + msz < pa)
		return errmsg(err, errlen, "%s %u: address 0x%llx + size 0x%llx overflows",
			      r->seg, i, pa, msz);
	if (pa < r->min_gpa && r->low_end && (pa < r->low_start || msz > r->low_end - pa))
		return errmsg(err, errlen, "%s %u [0x%llx, 0x%llx) lies below 0x%llx and outside [0x%llx, 0x%llx), %s",
			      r->seg, i, pa, pa + msz, (unsigned long long)r->min_gpa,
			      (unsigned long long)r->low_start, (unsigned long long)r->low_end,
			      r->below_why);
	if (pa < r->min_gpa && !r->low_end)
		return errmsg(err, errlen, "%s %u at 0x%llx lies below 0x%llx, %s", r->seg, i, pa,
			      (unsigned long long)r->min_gpa, r->below_why);
	if (msz && !mem_gpa_to_host(mem, pa, msz))
		return errmsg(err, errlen, "%s %u [0x%llx, 0x%llx) lies outside guest RAM (%llu MiB)",
			      r->seg, i, pa, pa + msz, (unsigned long long)(mem->size >> 20));
	return 0;
}

int elfview_check_loads(const struct elf_view *v, const struct guest_mem *mem,
			const struct elf_load_rules *r, uint64_t entry, struct elf_loads *out,
			char *err, size_t errlen)
{
	*out = (struct elf_loads){ .start = UINT64_MAX };
	for (unsigned int i = 0; i < v->phnum; i++) {
		struct elf_phdr ph = elfview_phdr(v, i);
		uint64_t in = r->entry_in_file ? ph.filesz : ph.memsz;

		if (ph.type != PT_LOAD || (r->skip_empty && !ph.memsz))
			continue;
		if (check_segment(v, &ph, i, mem, r, err, errlen))
			return -1;
		out->segments++;
		out->entry_in |= entry >= ph.paddr && entry - ph.paddr < in;
		if (ph.memsz && ph.paddr < out->start)
			out->start = ph.paddr;
		if (ph.memsz && ph.paddr + ph.memsz > out->end)
			out->end = ph.paddr + ph.memsz;
	}
	return 0;
}

void elfview_copy_loads(const struct elf_view *v, struct guest_mem *mem)
{
	for (unsigned int i = 0; i < v->phnum; i++) {
		struct elf_phdr ph = elfview_phdr(v, i);
		uint8_t *dst;

		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		dst = mem_gpa_to_host(mem, ph.paddr, ph.memsz);	/* checked before */
		if (!dst)
			continue;
		memcpy(dst, v->b + ph.offset, ph.filesz);
		memset(dst + ph.filesz, 0, ph.memsz - ph.filesz);
	}
}
