/* SPDX-License-Identifier: MIT */
/*
 * The devices of each guest kind, in one table (vmm/dev/devices.c). A device
 * is one file: a `create` that allocates its own state (and lock, if
 * several vCPUs may touch it) and claims its ranges on vm_bus(vm) with a
 * struct bus_desc (bus_claim()); the bus frees the state at vm_destroy()
 * through the descriptor's destroy hook. A device reaches the VM through
 * vmm/vcpu_ops.h and vmm/vcpu_req.h only. Adding a device is that file and one row in
 * the table, never an edit of exits.c or vm.h.
 */
#ifndef VMM_DEV_DEVICES_H
#define VMM_DEV_DEVICES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/bus.h"
#include "vmm/image.h"

struct vm;

/* Make the device and claim its ranges; 0, or -1 with `err` filled. */
typedef int (*dev_create_fn)(struct vm *vm, char *err, size_t errlen);

/* Every device of the guest kind, in table order; 0, or -1 with `err` filled. */
int devices_create(struct vm *vm, enum image_kind kind, char *err, size_t errlen);

int console_dev_create(struct vm *vm, char *err, size_t errlen);
int exit_dev_create(struct vm *vm, char *err, size_t errlen);
/* The exit port's status for `code`: as is, or (code << 1) | 1 with `qemu`; *fits false if too big. */
int exit_dev_status(uint32_t code, bool qemu, bool *fits);
/* --pc-testdev, Multiboot kernels only (vmm/dev/pc_testdev.h). */
int pc_testdev_dev_create(struct vm *vm, char *err, size_t errlen);
int results_dev_create(struct vm *vm, char *err, size_t errlen);
int null_dev_create(struct vm *vm, char *err, size_t errlen);
int ctrl_dev_create(struct vm *vm, char *err, size_t errlen);
/* Multiboot kernels only: PCI config space with nothing behind it. */
int pciconf_dev_create(struct vm *vm, char *err, size_t errlen);
int fwcfg_dev_create(struct vm *vm, char *err, size_t errlen);
int pmtimer_dev_create(struct vm *vm, char *err, size_t errlen);
/*
 * Linux guests (docs/linux-devices.md): COM1 with IRQ 4 and stdin fed to
 * it (or without stdin), the ACPI PM1a blocks acpi_build_linux() names
 * (S5 = poweroff), an i8042 stub (0xfe = reset).
 */
int linux_console_dev_create(struct vm *vm, char *err, size_t errlen);
int linux_console_output_dev_create(struct vm *vm, char *err, size_t errlen);
int acpi_pm_dev_create(struct vm *vm, char *err, size_t errlen);
int i8042_dev_create(struct vm *vm, char *err, size_t errlen);
int cmos_rtc_dev_create(struct vm *vm, char *err, size_t errlen);

#endif
