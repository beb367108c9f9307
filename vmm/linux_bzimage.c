// SPDX-License-Identifier: MIT
/*
 * bzImage payloads: every header field that says where the payload is gets
 * checked against the file, and every decoder's output against the size
 * Linux's build appends to the payload (4 bytes, little-endian, after the
 * compressed stream). The decoders write into a buffer of that size + 1, so
 * a stream that unpacks to more is caught, never silently cut.
 */
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "vmm/errmsg.h"
#include "vmm/linux_abi.h"
#include "vmm/linux_bzimage.h"

#define SIZE_TRAILER	4u
#define XZ_MEMLIMIT	(256ull << 20)	/* Linux's xz uses a 32 MiB dictionary */

struct magic {
	enum linux_comp comp;
	const char *bytes;
	size_t len;
};

/* The magics Linux's own decompressors look for (lib/decompress.c). */
static const struct magic magics[] = {
	{ LINUX_COMP_XZ, "\xfd" "7zXZ\0", 6 },
	{ LINUX_COMP_ZSTD, "\x28\xb5\x2f\xfd", 4 },
	{ LINUX_COMP_GZIP, "\x1f\x8b", 2 },
	{ LINUX_COMP_GZIP, "\x1f\x9e", 2 },
	{ LINUX_COMP_LZ4, "\x02\x21\x4c\x18", 4 },
	{ LINUX_COMP_LZMA, "\x5d\x00\x00", 3 },
	{ LINUX_COMP_BZIP2, "BZh", 3 },
	{ LINUX_COMP_LZO, "\x89LZO", 4 },
};

const char *linux_comp_name(enum linux_comp comp)
{
	static const char *const names[] = {
		[LINUX_COMP_UNKNOWN] = "unknown", [LINUX_COMP_XZ] = "xz",
		[LINUX_COMP_ZSTD] = "zstd", [LINUX_COMP_GZIP] = "gzip",
		[LINUX_COMP_LZ4] = "lz4", [LINUX_COMP_LZMA] = "lzma",
		[LINUX_COMP_BZIP2] = "bzip2", [LINUX_COMP_LZO] = "lzo",
	};

	return (unsigned int)comp < sizeof(names) / sizeof(names[0]) ? names[comp] : "unknown";
}

enum linux_comp linux_comp_detect(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (len >= magics[i].len && !memcmp(p, magics[i].bytes, magics[i].len))
			return magics[i].comp;
	return LINUX_COMP_UNKNOWN;
}

static struct linux_setup_header read_header(const uint8_t *b)
{
	struct linux_setup_header h;

	memcpy(&h, b + LINUX_SETUP_HDR_OFF, sizeof(h));
	return h;
}

bool linux_bzimage_probe(const void *buf, size_t len)
{
	struct linux_setup_header h;

	if (len < LINUX_SETUP_HDR_OFF + offsetof(struct linux_setup_header, version))
		return false;
	memcpy(&h, (const uint8_t *)buf + LINUX_SETUP_HDR_OFF,
	       offsetof(struct linux_setup_header, version));
	return h.boot_flag == LINUX_BOOT_FLAG && h.header == LINUX_HDRS_MAGIC;
}

static int check_header(const struct linux_setup_header *h, char *err, size_t errlen)
{
	if (h->boot_flag != LINUX_BOOT_FLAG)
		return errmsg(err, errlen, "not a bzImage: boot flag 0x%04x at 0x1fe, expected 0x%04x",
			      h->boot_flag, LINUX_BOOT_FLAG);
	if (h->header != LINUX_HDRS_MAGIC)
		return errmsg(err, errlen, "not a bzImage: no \"HdrS\" at 0x202 (found 0x%08x)",
			      h->header);
	if (h->version < LINUX_PROTO_PAYLOAD)
		return errmsg(err, errlen, "bzImage boot protocol %u.%02u is too old: minivmm needs 2.08+ (payload_offset/payload_length)",
			      h->version >> 8, h->version & 0xff);
	if (!(h->loadflags & LINUX_LOADED_HIGH))
		return errmsg(err, errlen, "zImage (loadflags 0x%02x lacks LOADED_HIGH): only a bzImage has a payload minivmm can unpack",
			      h->loadflags);
	return 0;
}

static int locate_payload(const struct linux_setup_header *h, size_t len,
			  uint64_t *off, char *err, size_t errlen)
{
	uint64_t sects = h->setup_sects ? h->setup_sects : LINUX_SETUP_SECTS_DEF;
	uint64_t pm = (sects + 1) * LINUX_SECTOR;	/* protected-mode code */

	if (pm > len)
		return errmsg(err, errlen, "truncated bzImage: %zu bytes, but %llu setup sectors end at %llu",
			      len, (unsigned long long)sects, (unsigned long long)pm);
	*off = pm + h->payload_offset;
	if (*off > len || h->payload_length > len - *off)
		return errmsg(err, errlen, "bzImage payload [0x%llx, +0x%x) runs past the end of the %zu-byte file",
			      (unsigned long long)*off, h->payload_length, len);
	if (h->payload_length <= SIZE_TRAILER)
		return errmsg(err, errlen, "bzImage payload of %u bytes is too short for a stream and its 4-byte size",
			      h->payload_length);
	return 0;
}

int linux_bzimage_parse(const void *buf, size_t len, struct linux_bzimage *bz,
			char *err, size_t errlen)
{
	struct linux_setup_header h;
	uint64_t off = 0;

	memset(bz, 0, sizeof(*bz));
	if (len < LINUX_SETUP_HDR_END)
		return errmsg(err, errlen, "truncated bzImage: %zu bytes, the setup header ends at %zu",
			      len, (size_t)LINUX_SETUP_HDR_END);
	h = read_header(buf);
	if (check_header(&h, err, errlen) || locate_payload(&h, len, &off, err, errlen))
		return -1;
	bz->version = h.version;
	bz->cmdline_size = h.cmdline_size;
	bz->payload = (const uint8_t *)buf + off;
	bz->payload_len = h.payload_length;
	bz->comp = linux_comp_detect(bz->payload, bz->payload_len);
	return 0;
}

/* --- decoders: each fills out[0..cap) and says how much it produced --- */

static const char *lzma_ret_text(lzma_ret r)
{
	switch (r) {
	case LZMA_MEM_ERROR: return "out of memory (LZMA_MEM_ERROR)";
	case LZMA_MEMLIMIT_ERROR: return "needs more than 256 MiB of memory (LZMA_MEMLIMIT_ERROR)";
	case LZMA_FORMAT_ERROR: return "not in the .xz format (LZMA_FORMAT_ERROR)";
	case LZMA_OPTIONS_ERROR: return "unsupported options (LZMA_OPTIONS_ERROR)";
	case LZMA_DATA_ERROR: return "compressed data is corrupt (LZMA_DATA_ERROR)";
	case LZMA_BUF_ERROR: return "stream ends early (LZMA_BUF_ERROR)";
	case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check (LZMA_UNSUPPORTED_CHECK)";
	default: return "internal error (LZMA_PROG_ERROR)";
	}
}

/* 1: the stream ended; 0: the output filled first; -1: `err`. */
static int unpack_xz(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		     size_t *got, char *err, size_t errlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, XZ_MEMLIMIT, 0);

	if (r != LZMA_OK)
		return errmsg(err, errlen, "xz: %s", lzma_ret_text(r));
	s.next_in = in;
	s.avail_in = in_len;
	s.next_out = out;
	s.avail_out = cap;
	/* LZMA_OK until no progress is possible, then LZMA_BUF_ERROR. */
	do
		r = lzma_code(&s, LZMA_FINISH);
	while (r == LZMA_OK && s.avail_out);
	*got = s.total_out;
	lzma_end(&s);
	if (r == LZMA_STREAM_END)
		return 1;
	if ((r == LZMA_OK || r == LZMA_BUF_ERROR) && *got == cap)
		return 0;
	return errmsg(err, errlen, "xz: %s after %zu bytes out", lzma_ret_text(r), *got);
}

static int unpack_zstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		       size_t *got, char *err, size_t errlen)
{
	size_t r = ZSTD_decompress(out, cap, in, in_len);

	if (!ZSTD_isError(r)) {
		*got = r;
		return 1;
	}
	*got = 0;
	if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
		return 0;
	return errmsg(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
}

static int unpack_gzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		       size_t *got, char *err, size_t errlen)
{
	z_stream s = { 0 };
	int r;

	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)
		return errmsg(err, errlen, "gzip: zlib: %s", s.msg ? s.msg : "inflateInit2 failed");
	s.next_in = (Bytef *)in;
	s.avail_in = in_len > UINT32_MAX ? UINT32_MAX : (uInt)in_len;
	s.next_out = out;
	s.avail_out = (uInt)cap;	/* cap <= 1 GiB + 1 */
	r = inflate(&s, Z_FINISH);
	*got = s.total_out;
	if (r == Z_STREAM_END || (r == Z_BUF_ERROR && !s.avail_out)) {
		inflateEnd(&s);
		return r == Z_STREAM_END;
	}
	errmsg(err, errlen, "gzip: %s after %zu bytes out",
	       s.msg ? s.msg : r == Z_BUF_ERROR ? "stream ends early" : zError(r), *got);
	inflateEnd(&s);
	return -1;
}

typedef int (*unpack_fn)(const uint8_t *, size_t, uint8_t *, size_t, size_t *, char *, size_t);

static unpack_fn decoder_for(enum linux_comp comp)
{
	switch (comp) {
	case LINUX_COMP_XZ: return unpack_xz;
	case LINUX_COMP_ZSTD: return unpack_zstd;
	case LINUX_COMP_GZIP: return unpack_gzip;
	default: return NULL;
	}
}

static int check_decodable(const struct linux_bzimage *bz, uint32_t want, size_t max,
			   char *err, size_t errlen)
{
	const uint8_t *p = bz->payload;

	if (bz->comp == LINUX_COMP_UNKNOWN)
		return errmsg(err, errlen, "bzImage payload starts with %02x %02x %02x %02x: not a compression format minivmm knows",
			      p[0], p[1], p[2], p[3]);
	if (!decoder_for(bz->comp))
		return errmsg(err, errlen, "bzImage payload is compressed with %s, which minivmm cannot unpack (it unpacks xz, zstd and gzip)",
			      linux_comp_name(bz->comp));
	if (!want)
		return errmsg(err, errlen, "bzImage payload's size trailer says 0 bytes unpacked");
	if (want > max)
		return errmsg(err, errlen, "bzImage payload unpacks to %u MiB, more than minivmm's %zu MiB limit",
			      (unsigned int)(((uint64_t)want + (1u << 20) - 1) >> 20), max >> 20);
	return 0;
}

int linux_bzimage_unpack(const struct linux_bzimage *bz, size_t max, uint8_t **out,
			 size_t *out_len, char *err, size_t errlen)
{
	size_t in_len = bz->payload_len - SIZE_TRAILER, got = 0;
	const char *name = linux_comp_name(bz->comp);
	uint32_t want;
	uint8_t *buf;
	int r;

	*out = NULL;
	*out_len = 0;
	memcpy(&want, bz->payload + in_len, sizeof(want));	/* little-endian host */
	if (check_decodable(bz, want, max, err, errlen))
		return -1;
	buf = malloc((size_t)want + 1);
	if (!buf)
		return errmsg(err, errlen, "out of memory for the %u-byte vmlinux", want);
	r = decoder_for(bz->comp)(bz->payload, in_len, buf, (size_t)want + 1, &got, err, errlen);
	if (r == 1 && got == want) {
		*out = buf;
		*out_len = want;
		return 0;
	}
	free(buf);
	if (r < 0)
		return -1;
	if (r == 0 || got > want)
		return errmsg(err, errlen, "%s stream unpacks to more than the %u bytes its size trailer says",
			      name, want);
	return errmsg(err, errlen, "%s stream unpacks to %zu bytes, its size trailer says %u",
		      name, got, want);
}
