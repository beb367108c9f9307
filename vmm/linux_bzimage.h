/* SPDX-License-Identifier: MIT */
/*
 * bzImage: finding the compressed vmlinux inside the setup header's payload
 * fields and unpacking it on the host (xz, zstd, gzip).
 */
#ifndef VMM_LINUX_BZIMAGE_H
#define VMM_LINUX_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest vmlinux a payload may unpack to: an error past it, never a cut. */
#ifndef LINUX_UNPACK_MAX
#define LINUX_UNPACK_MAX	(1ull << 30)	/* the fuzzer builds with less */
#endif

enum linux_comp {
	LINUX_COMP_UNKNOWN = 0,
	LINUX_COMP_XZ,
	LINUX_COMP_ZSTD,
	LINUX_COMP_GZIP,
	LINUX_COMP_LZ4,		/* recognised, not unpacked */
	LINUX_COMP_LZMA,
	LINUX_COMP_BZIP2,
	LINUX_COMP_LZO,
};

struct linux_bzimage {
	uint16_t version;		/* boot protocol, 0x020f = 2.15 */
	uint32_t cmdline_size;		/* longest command line, NUL excluded */
	const uint8_t *payload;		/* inside the caller's buffer */
	size_t payload_len;		/* the whole payload, size trailer included */
	enum linux_comp comp;
};

/* "HdrS" and the 0xAA55 boot flag where the boot protocol puts them. */
bool linux_bzimage_probe(const void *buf, size_t len);
/* Check the header and locate the payload. 0, or -1 with `err`. */
int linux_bzimage_parse(const void *buf, size_t len, struct linux_bzimage *bz,
			char *err, size_t errlen);
/* "xz", "zstd", ...: for messages and the banner. */
const char *linux_comp_name(enum linux_comp comp);
/* What compression the bytes start with (LINUX_COMP_UNKNOWN if none). */
enum linux_comp linux_comp_detect(const uint8_t *p, size_t len);
/*
 * Unpack the payload into a malloc'd buffer of exactly the size its 4-byte
 * trailer announces (at most `max` bytes). 0, or -1 with `err`.
 */
int linux_bzimage_unpack(const struct linux_bzimage *bz, size_t max, uint8_t **out,
			 size_t *out_len, char *err, size_t errlen);

#endif
