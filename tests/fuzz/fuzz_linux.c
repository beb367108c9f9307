// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for vmm/linux*.c: any byte string is a candidate Linux
 * kernel (bzImage or PVH vmlinux). linux_load must load it inside guest RAM
 * above 1 MiB or refuse it with a message; while it runs the first MiB is
 * read-only, so a write there crashes at once. A loaded kernel then gets a
 * start info with the input itself as its initrd. Built with a 64 MiB unpack
 * limit (Makefile) so that a short input cannot make a 1 GiB buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "minivmm/abi.h"
#include "vmm/linux.h"
#include "vmm/linux_abi.h"

#define RAM_SIZE	(8u << 20)

static struct guest_mem mem;

static void check_start_info(const struct linux_image *img, const uint8_t *data, size_t size)
{
	struct linux_boot_cfg cfg = { .cmdline = "console=ttyS0 reboot=t",
		.cmdline_max = img->cmdline_max, .initrd = data, .initrd_len = size,
		.rsdp_gpa = 0xe0000, .kernel_end = img->kernel_end };
	struct hvm_start_info si;
	struct hvm_modlist_entry mod;
	uint64_t gpa = 0;
	char err[512] = "";

	if (linux_write_start_info(&mem, &cfg, &gpa, err, sizeof(err))) {
		if (!err[0])
			abort();
		return;
	}
	if (mem_read(&mem, gpa, &si, sizeof(si)) || si.magic != HVM_START_MAGIC ||
	    si.nr_modules != (size ? 1u : 0u))
		abort();
	if (size && (mem_read(&mem, si.modlist_paddr, &mod, sizeof(mod)) ||
		     mod.paddr < img->kernel_end || mod.paddr + mod.size > RAM_SIZE ||
		     memcmp(mem_gpa_to_host(&mem, mod.paddr, size), data, size)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct linux_image img;
	char err[512];

	if (!mem.host && mem_init(&mem, RAM_SIZE, err, sizeof(err)))
		abort();
	if (mprotect(mem.host, MVM_RESERVED_END, PROT_READ))
		abort();
	(void)linux_probe(data, size);
	err[0] = '\0';
	if (linux_load(data, size, &mem, &img, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every refusal names its reason */
		return 0;
	}
	if (img.entry < MVM_RESERVED_END || img.entry >= img.kernel_end ||
	    img.kernel_start < MVM_RESERVED_END || img.kernel_end > RAM_SIZE || !img.format[0])
		abort();
	if (mprotect(mem.host, MVM_RESERVED_END, PROT_READ | PROT_WRITE))
		abort();
	check_start_info(&img, data, size);
	return 0;
}
