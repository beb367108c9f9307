// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "vmm/acpi.h"
#include "vmm/errmsg.h"
#include "vmm/linux.h"
#include "vmm/linux_cmdline.h"
#include "vmm/linux_vm.h"
#include "vmm/loader.h"
#include "vmm/vm.h"

/* Refuse a --mem the kernel and initrd cannot boot in, naming every size. */
static int check_ram(const struct vm *vm, const struct load_info *info, size_t initrd_len,
		     char *err, size_t errlen)
{
	uint64_t need = linux_min_ram(info->image_end, initrd_len);

	if (need <= vm->mem.size)
		return 0;
	return errmsg(err, errlen,
		      "--mem %llu MiB is too small for %s (the kernel ends at %llu MiB) and a %zu KiB "
		      "initrd: give --mem %lluM or more",
		      (unsigned long long)(vm->mem.size >> 20), vm->cfg.elf_path,
		      (unsigned long long)(info->image_end >> 20), initrd_len >> 10,
		      (unsigned long long)(need >> 20));
}

int linux_boot_setup(struct vm *vm, struct load_info *info, char *err, size_t errlen)
{
	struct linux_boot_cfg bc = {
		.cmdline_max = info->cmdline_max, .rsdp_gpa = ACPI_RSDP_GPA,
		.kernel_end = info->image_end,
	};
	char cmdline[VMM_ARGS_MAX];
	void *initrd = NULL;
	int ret = -1;

	if (vm->cfg.initrd_path &&
	    !(initrd = loader_read_file(vm->cfg.initrd_path, &bc.initrd_len, err, errlen)))
		return -1;
	bc.initrd = initrd;
	if (check_ram(vm, info, bc.initrd_len, err, errlen) ||
	    linux_cmdline_build(vm->cfg.cmdline, info->cmdline_max, cmdline, sizeof(cmdline),
				err, errlen))
		goto out;
	bc.cmdline = cmdline;
	if (linux_write_start_info(&vm->mem, &bc, &info->entry.rbx, err, errlen))
		goto out;
	ret = 0;
out:
	free(initrd);
	return ret;
}
