/* SPDX-License-Identifier: MIT */
/*
 * Synthetic Linux kernels for the linux_* suites: a tiny ELF vmlinux with a
 * PVH note, and a bzImage around it whose payload is compressed at test time.
 */
#ifndef TESTS_UNIT_LINUX_FIXTURE_H
#define TESTS_UNIT_LINUX_FIXTURE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_TEXT_GPA	0x200000ull	/* segment 0: FAKE_TEXT_LEN bytes of 0x90 */
#define FAKE_TEXT_LEN	0x100u
#define FAKE_DATA_GPA	0x201000ull	/* segment 1: p_vaddr 0, like .data..percpu */
#define FAKE_DATA_FILE	0x40u		/* bytes of 0x5a, then zeroes to... */
#define FAKE_DATA_MEM	0x2000u
#define FAKE_ENTRY	(FAKE_TEXT_GPA + 0x10)
#define FAKE_END	(FAKE_DATA_GPA + FAKE_DATA_MEM)
#define FAKE_NOTE_OFF	0x800u
#define FAKE_TEXT_OFF	0x1000u
#define FAKE_DATA_OFF	0x1100u
#define FAKE_LEN	0x1200u

enum fake_flags {
	FAKE_NO_PVH = 1 << 0,		/* no PHYS32_ENTRY note */
	FAKE_RELOC = 1 << 1,		/* a PHYS32_RELOC note (2 MiB, 16 MiB, 1 GiB) */
	FAKE_ENTRY_4 = 1 << 2,		/* 4-byte entry descriptor instead of 8 */
};

struct fake_vmlinux {
	uint8_t b[FAKE_LEN];
	size_t len;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;			/* [0] text, [1] data, [2] notes */
};

struct fake_vmlinux32 {
	uint8_t b[FAKE_LEN];
	size_t len;
	Elf32_Ehdr *eh;
	Elf32_Phdr *ph;
};

void fake_vmlinux_build(struct fake_vmlinux *v, unsigned int flags);
void fake_vmlinux32_build(struct fake_vmlinux32 *v);

enum fake_comp { FAKE_XZ, FAKE_ZSTD, FAKE_GZIP };

/* A bzImage (protocol 2.15, one setup sector) in malloc'd memory. */
struct fake_bzimage {
	uint8_t *b;
	size_t len;
	size_t payload_off;		/* file offset of the payload */
	size_t stream_len;		/* compressed bytes before the 4-byte size */
};

#define FAKE_BZ_CMDLINE	2047u
#define FAKE_BZ_PM_OFF	0x400u		/* (1 + 1) * 512 */
#define FAKE_BZ_PAYLOAD	0x20u		/* payload_offset, from the protected-mode code */

/* Compress `in` with `comp` and wrap it (in, in_len: the vmlinux or any bytes). */
void fake_bzimage_build(struct fake_bzimage *bz, enum fake_comp comp, const void *in,
			size_t in_len);
/* Offset 0x1f1+ field access. */
void fake_bzimage_put16(struct fake_bzimage *bz, size_t off, uint16_t v);
void fake_bzimage_put32(struct fake_bzimage *bz, size_t off, uint32_t v);
void fake_bzimage_free(struct fake_bzimage *bz);

#endif
