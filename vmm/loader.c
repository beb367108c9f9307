// SPDX-License-Identifier: MIT
/*
 * The image formats, in one table: the first whose probe accepts the file
 * loads it. Every format yields the same struct load_info (segments loaded,
 * entry state), so adding one is a file and a row here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/elf64.h"
#include "vmm/errmsg.h"
#include "vmm/linux.h"
#include "vmm/loader.h"
#include "vmm/multiboot.h"
#include "vmm/options.h"

#define LOADER_MAX_FILE	(256u << 20)

/* Most specific first; the ELF64 payload takes the rest and names what is wrong. */
static const struct image_format formats[] = {
	{
		/* Before Multiboot: a vmlinux is an ELF too, told apart by its PVH note. */
		.name = "Linux", .kind = IMAGE_LINUX,
		.probe = linux_probe, .load = linux_load_image,
		.default_mem = VMM_LINUX_DEFAULT_MEM, .default_pv = PV_HYPERV,
	},
	{
		/* What QEMU's -cpu host would show it: KVM's leaves alone. */
		.name = "Multiboot", .kind = IMAGE_MULTIBOOT,
		.probe = multiboot_probe, .load = multiboot_load_image,
		.default_mem = VMM_MULTIBOOT_DEFAULT_MEM, .default_pv = PV_KVM,
	},
	{
		.name = "ELF64 payload", .kind = IMAGE_ELF64,
		.probe = NULL, .load = elf64_load_image, .default_pv = PV_HYPERV_KVM,
	},
};

const struct image_format *loader_format(const void *image, size_t len)
{
	const struct image_format *f = formats;

	while (f->probe && !f->probe(image, len))
		f++;
	return f;
}

enum image_kind loader_image_kind(const void *image, size_t len)
{
	return loader_format(image, len)->kind;
}

int loader_load_image(const void *image, size_t len, struct guest_mem *mem,
		      struct load_info *info, char *err, size_t errlen)
{
	const struct image_format *f = loader_format(image, len);

	memset(info, 0, sizeof(*info));
	info->kind = f->kind;
	return f->load(image, len, mem, info, err, errlen);
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
