// SPDX-License-Identifier: MIT
/* Which kind of Linux kernel a file is, and the path from it to guest RAM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmm/errmsg.h"
#include "vmm/linux.h"
#include "vmm/linux_bzimage.h"
#include "vmm/linux_pvh.h"
#include "vmm/tsc.h"

bool linux_probe(const void *buf, size_t len)
{
	struct linux_pvh_info info;
	char err[8];

	if (linux_bzimage_probe(buf, len))
		return true;
	return linux_pvh_is_elf(buf, len) && !linux_pvh_find_entry(buf, len, &info, err, sizeof(err));
}

static void fill(struct linux_image *out, const struct linux_pvh_info *info, size_t len)
{
	out->entry = info->entry;
	out->kernel_start = info->kernel_start;
	out->kernel_end = info->kernel_end;
	out->relocatable = info->relocatable;
	out->vmlinux_len = len;
}

static int load_bzimage(const void *buf, size_t len, struct guest_mem *mem,
			struct linux_image *out, char *err, size_t errlen)
{
	struct linux_bzimage bz;
	struct linux_pvh_info info;
	uint8_t *vmlinux;
	size_t vlen;
	uint64_t t0;
	char why[384];
	int r;

	if (linux_bzimage_parse(buf, len, &bz, err, errlen))
		return -1;
	t0 = host_monotonic_ns();
	if (linux_bzimage_unpack(&bz, LINUX_UNPACK_MAX, &vmlinux, &vlen, err, errlen))
		return -1;
	out->unpack_ns = host_monotonic_ns() - t0;
	out->cmdline_max = bz.cmdline_size;
	snprintf(out->format, sizeof(out->format), "bzImage %u.%02u, %s", bz.version >> 8,
		 bz.version & 0xff, linux_comp_name(bz.comp));
	if (!linux_pvh_is_elf(vmlinux, vlen))
		r = errmsg(err, errlen, "bzImage payload unpacked to %zu bytes that are not an ELF vmlinux",
			   vlen);
	else if ((r = linux_pvh_load(vmlinux, vlen, mem, &info, why, sizeof(why))))
		errmsg(err, errlen, "bzImage's %s", why);
	else
		fill(out, &info, vlen);
	free(vmlinux);
	return r;
}

int linux_load(const void *buf, size_t len, struct guest_mem *mem, struct linux_image *out,
	       char *err, size_t errlen)
{
	struct linux_pvh_info info;

	memset(out, 0, sizeof(*out));
	if (linux_bzimage_probe(buf, len))
		return load_bzimage(buf, len, mem, out, err, errlen);
	if (!linux_pvh_is_elf(buf, len))
		return errmsg(err, errlen, "not a Linux kernel: neither a bzImage (no \"HdrS\" at 0x202) nor an ELF vmlinux");
	if (linux_pvh_load(buf, len, mem, &info, err, errlen))
		return -1;
	fill(out, &info, len);
	out->cmdline_max = LINUX_CMDLINE_MAX_DEF;
	snprintf(out->format, sizeof(out->format), "ELF%u vmlinux", info.elf_class);
	return 0;
}

int linux_load_image(const void *buf, size_t len, struct guest_mem *mem,
		     struct load_info *info, char *err, size_t errlen)
{
	struct linux_image img;

	if (linux_load(buf, len, mem, &img, err, errlen))
		return -1;
	info->entry = (struct image_entry){
		.mode = IMAGE_ENTRY_FLAT32, .what = "32-bit PVH state", .rip = img.entry,
	};
	info->image_end = img.kernel_end;
	info->cmdline_max = img.cmdline_max;
	info->unpack_ns = img.unpack_ns;
	_Static_assert(sizeof(info->what) == sizeof(img.format), "the same description");
	memcpy(info->what, img.format, sizeof(info->what));
	return 0;
}
