// SPDX-License-Identifier: MIT
/* Builders for tests/unit/linux_fixture.h. */
#include <check.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tests/unit/linux_fixture.h"
#include "vmm/linux_abi.h"

/* One ELF note, 4-byte aligned as Linux emits them; returns its size. */
static size_t put_note(uint8_t *p, const char *name, uint32_t type, const void *desc,
		       uint32_t descsz)
{
	Elf32_Nhdr n = { .n_namesz = strlen(name) + 1, .n_descsz = descsz, .n_type = type };
	size_t name_pad = (n.n_namesz + 3) & ~3u;

	memcpy(p, &n, sizeof(n));
	memcpy(p + sizeof(n), name, n.n_namesz);
	memcpy(p + sizeof(n) + name_pad, desc, descsz);
	return sizeof(n) + name_pad + ((descsz + 3) & ~3u);
}

static size_t put_notes(uint8_t *p, unsigned int flags)
{
	static const uint8_t build_id[20] = { 0x6a, 0x2b };
	uint64_t entry = FAKE_ENTRY;
	uint32_t reloc[3] = { 2u << 20, 16u << 20, 1u << 30 };
	size_t n = put_note(p, "GNU", NT_GNU_BUILD_ID, build_id, sizeof(build_id));

	n += put_note(p + n, "Xen", 6, "linux", 6);	/* GUEST_OS: ignored */
	if (flags & FAKE_RELOC)
		n += put_note(p + n, "Xen", XEN_ELFNOTE_PHYS32_RELOC, reloc, sizeof(reloc));
	if (!(flags & FAKE_NO_PVH))
		n += put_note(p + n, "Xen", XEN_ELFNOTE_PHYS32_ENTRY, &entry,
			      flags & FAKE_ENTRY_4 ? 4 : 8);
	return n;
}

static void fill_ident(uint8_t *id, int cls)
{
	memcpy(id, ELFMAG, SELFMAG);
	id[EI_CLASS] = cls;
	id[EI_DATA] = ELFDATA2LSB;
	id[EI_VERSION] = EV_CURRENT;
}

static void fill_bytes(uint8_t *b)
{
	memset(b + FAKE_TEXT_OFF, 0x90, FAKE_TEXT_LEN);
	memset(b + FAKE_DATA_OFF, 0x5a, FAKE_DATA_FILE);
}

void fake_vmlinux_build(struct fake_vmlinux *v, unsigned int flags)
{
	size_t notes;

	memset(v, 0, sizeof(*v));
	v->len = FAKE_LEN;
	v->eh = (Elf64_Ehdr *)v->b;
	v->ph = (Elf64_Phdr *)(v->b + sizeof(Elf64_Ehdr));
	fill_ident(v->eh->e_ident, ELFCLASS64);
	v->eh->e_type = ET_EXEC;
	v->eh->e_machine = EM_X86_64;
	v->eh->e_version = EV_CURRENT;
	v->eh->e_entry = FAKE_TEXT_GPA;		/* the 64-bit entry: not what PVH uses */
	v->eh->e_phoff = sizeof(Elf64_Ehdr);
	v->eh->e_ehsize = sizeof(Elf64_Ehdr);
	v->eh->e_phentsize = sizeof(Elf64_Phdr);
	v->eh->e_phnum = 3;
	notes = put_notes(v->b + FAKE_NOTE_OFF, flags);
	v->ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, FAKE_TEXT_OFF, 0xffffffff80200000ull,
		FAKE_TEXT_GPA, FAKE_TEXT_LEN, FAKE_TEXT_LEN, 0x1000 };
	v->ph[1] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_W, FAKE_DATA_OFF, 0, FAKE_DATA_GPA,
		FAKE_DATA_FILE, FAKE_DATA_MEM, 0x1000 };
	v->ph[2] = (Elf64_Phdr){ PT_NOTE, PF_R, FAKE_NOTE_OFF, 0, FAKE_TEXT_GPA + FAKE_NOTE_OFF,
		notes, notes, 4 };
	fill_bytes(v->b);
}

void fake_vmlinux32_build(struct fake_vmlinux32 *v)
{
	size_t notes;

	memset(v, 0, sizeof(*v));
	v->len = FAKE_LEN;
	v->eh = (Elf32_Ehdr *)v->b;
	v->ph = (Elf32_Phdr *)(v->b + sizeof(Elf32_Ehdr));
	fill_ident(v->eh->e_ident, ELFCLASS32);
	v->eh->e_type = ET_EXEC;
	v->eh->e_machine = EM_386;
	v->eh->e_version = EV_CURRENT;
	v->eh->e_phoff = sizeof(Elf32_Ehdr);
	v->eh->e_ehsize = sizeof(Elf32_Ehdr);
	v->eh->e_phentsize = sizeof(Elf32_Phdr);
	v->eh->e_phnum = 3;
	notes = put_notes(v->b + FAKE_NOTE_OFF, FAKE_ENTRY_4);
	v->ph[0] = (Elf32_Phdr){ PT_LOAD, FAKE_TEXT_OFF, 0xc0200000u, FAKE_TEXT_GPA,
		FAKE_TEXT_LEN, FAKE_TEXT_LEN, PF_R | PF_X, 0x1000 };
	v->ph[1] = (Elf32_Phdr){ PT_LOAD, FAKE_DATA_OFF, 0, FAKE_DATA_GPA, FAKE_DATA_FILE,
		FAKE_DATA_MEM, PF_R | PF_W, 0x1000 };
	v->ph[2] = (Elf32_Phdr){ PT_NOTE, FAKE_NOTE_OFF, 0, 0, notes, notes, PF_R, 4 };
	fill_bytes(v->b);
}

static size_t compress_xz(const void *in, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 0;

	ck_assert_int_eq(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, len, out, &pos,
						 cap), LZMA_OK);
	return pos;
}

static size_t compress_zstd(const void *in, size_t len, uint8_t *out, size_t cap)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t r;

	/* The zstd tool Linux's build runs adds the checksum; so does this. */
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	r = ZSTD_compress2(c, out, cap, in, len);
	ZSTD_freeCCtx(c);
	ck_assert(!ZSTD_isError(r));
	return r;
}

static size_t compress_gzip(const void *in, size_t len, uint8_t *out, size_t cap)
{
	z_stream s = { 0 };
	size_t n;

	ck_assert_int_eq(deflateInit2(&s, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	s.next_in = (Bytef *)in;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = cap;
	ck_assert_int_eq(deflate(&s, Z_FINISH), Z_STREAM_END);
	n = s.total_out;
	deflateEnd(&s);
	return n;
}

void fake_bzimage_put16(struct fake_bzimage *bz, size_t off, uint16_t v)
{
	memcpy(bz->b + off, &v, sizeof(v));
}

void fake_bzimage_put32(struct fake_bzimage *bz, size_t off, uint32_t v)
{
	memcpy(bz->b + off, &v, sizeof(v));
}

void fake_bzimage_build(struct fake_bzimage *bz, enum fake_comp comp, const void *in,
			size_t in_len)
{
	size_t cap = in_len + in_len / 2 + 4096, n;
	uint32_t size = in_len;

	bz->payload_off = FAKE_BZ_PM_OFF + FAKE_BZ_PAYLOAD;
	bz->b = calloc(1, bz->payload_off + cap + 4);
	ck_assert_ptr_nonnull(bz->b);
	n = comp == FAKE_XZ ? compress_xz(in, in_len, bz->b + bz->payload_off, cap) :
	    comp == FAKE_ZSTD ? compress_zstd(in, in_len, bz->b + bz->payload_off, cap) :
	    compress_gzip(in, in_len, bz->b + bz->payload_off, cap);
	memcpy(bz->b + bz->payload_off + n, &size, 4);
	bz->stream_len = n;
	bz->len = bz->payload_off + n + 4;
	bz->b[0x1f1] = 1;				/* setup_sects */
	fake_bzimage_put16(bz, 0x1fe, LINUX_BOOT_FLAG);
	fake_bzimage_put32(bz, 0x202, LINUX_HDRS_MAGIC);
	fake_bzimage_put16(bz, 0x206, 0x020f);
	bz->b[0x211] = LINUX_LOADED_HIGH;
	fake_bzimage_put32(bz, 0x238, FAKE_BZ_CMDLINE);
	fake_bzimage_put32(bz, 0x248, FAKE_BZ_PAYLOAD);
	fake_bzimage_put32(bz, 0x24c, n + 4);
}

void fake_bzimage_free(struct fake_bzimage *bz)
{
	free(bz->b);
	bz->b = NULL;
}
