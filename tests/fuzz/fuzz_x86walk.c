// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the guest page-table walker (vmm/x86.c). An input
 * is CR3, a GVA, a length and the first bytes of guest RAM (the rest zero):
 * page tables the guest controls. The RAM is a heap buffer of exactly its
 * size, so ASan stops any access outside it. Every read is checked against
 * a reference that translates byte by byte: x86_read_gva must succeed
 * exactly when every byte is mapped to RAM, and return those bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/x86.h"

#define RAM_SIZE	(64u << 10)
#define MAX_LEN		(3 * 4096u)	/* up to four pages touched */

struct walk_input {
	uint64_t cr3, gva;
	uint16_t len;
} __attribute__((packed));

/* One byte through the 4-level tables, written apart from x86.c; -1 if unmapped. */
static int ref_byte(const uint8_t *ram, uint64_t cr3, uint64_t gva, uint8_t *out)
{
	uint64_t table = cr3 & 0x000ffffffffff000ull, e = 0;

	if ((uint64_t)((int64_t)(gva << 16) >> 16) != gva)
		return -1;
	for (int shift = 39; shift >= 12; shift -= 9) {
		uint64_t at = table + ((gva >> shift) & 511) * 8;

		if (at > RAM_SIZE - 8)
			return -1;
		memcpy(&e, ram + at, 8);
		if (!(e & 1) || (shift == 39 && (e & 0x80)))
			return -1;
		table = e & 0x000ffffffffff000ull;
		if (shift != 39 && shift != 12 && (e & 0x80)) {
			table &= ~((1ull << shift) - 1);
			table |= gva & ((1ull << shift) - 1) & ~0xfffull;
			break;
		}
	}
	table |= gva & 0xfff;
	if (table >= RAM_SIZE)
		return -1;
	*out = ram[table];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t got[MAX_LEN];
	struct walk_input in;
	struct guest_mem mem;
	size_t len;
	int ok = 1, ret;

	if (size < sizeof(in))
		return 0;
	memcpy(&in, data, sizeof(in));
	data += sizeof(in);
	size -= sizeof(in);
	len = in.len % (MAX_LEN + 1);
	mem.size = RAM_SIZE;
	mem.host = calloc(1, RAM_SIZE);
	if (!mem.host)
		abort();
	memcpy(mem.host, data, size < RAM_SIZE ? size : RAM_SIZE);
	ret = x86_read_gva(&mem, in.cr3, in.gva, got, len);
	for (size_t i = 0; i < len && ok; i++) {
		uint8_t want;

		ok = !ref_byte(mem.host, in.cr3, in.gva + i, &want);
		if (ok && !ret && got[i] != want)
			abort();	/* read a byte other than the one mapped there */
	}
	if (ok != !ret)
		abort();	/* refused a mapped range, or read an unmapped one */
	free(mem.host);
	return 0;
}
