/* SPDX-License-Identifier: MIT */
/*
 * A Linux kernel's boot, once vmm/linux.c has put the kernel in RAM: its
 * initrd, its command line (minivmm's default, then the user's) and the
 * PVH start info vCPU 0 finds in EBX. Everything is checked before KVM is
 * opened, so a bad initrd or command line is refused on any host.
 */
#ifndef VMM_LINUX_VM_H
#define VMM_LINUX_VM_H

#include <stddef.h>

struct vm;
struct load_info;

/* 0, or -1 with `err` (exit 2): the initrd, --mem, the command line, the start info. */
int linux_boot_setup(struct vm *vm, struct load_info *info, char *err, size_t errlen);

#endif
