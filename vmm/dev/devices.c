// SPDX-License-Identifier: MIT
/* Which devices each guest kind gets: the one place to add a device. */
#include "vmm/dev/devices.h"

/* guest.elf: the ports of include/minivmm/abi.h. */
static const dev_create_fn payload_devices[] = {
	console_dev_create,
	exit_dev_create,
	results_dev_create,
	null_dev_create,
	ctrl_dev_create,
	NULL,
};

/*
 * What kvm-unit-tests and other Multiboot kernels probe (docs/kut.md): the
 * PM1a blocks and the CMOS clock are what its s3 test suspends and wakes by.
 */
static const dev_create_fn multiboot_devices[] = {
	console_dev_create,
	exit_dev_create,
	fwcfg_dev_create,
	acpi_pm_dev_create,
	pmtimer_dev_create,
	cmos_rtc_dev_create,
	pciconf_dev_create,
	NULL,
};

/*
 * Linux (docs/linux-devices.md): COM1 with IRQ 4 fed from stdin, the exit
 * port (a test inside Linux can end the run), the results port (a Linux
 * program's records: docs/linux-work.md), the PM1a blocks and PM timer
 * the FADT names, the i8042 for reset, the CMOS clock, PCI config space
 * with nothing behind.
 */
static const dev_create_fn linux_devices[] = {
	linux_console_dev_create,
	exit_dev_create,
	results_dev_create,
	acpi_pm_dev_create,
	pmtimer_dev_create,
	i8042_dev_create,
	cmos_rtc_dev_create,
	pciconf_dev_create,
	NULL,
};

static const dev_create_fn *const devices_of_kind[] = {
	[IMAGE_ELF64] = payload_devices,
	[IMAGE_MULTIBOOT] = multiboot_devices,
	[IMAGE_LINUX] = linux_devices,
};
_Static_assert(sizeof(devices_of_kind) / sizeof(devices_of_kind[0]) == IMAGE_KINDS,
	       "every image kind needs its row of devices");

int devices_create(struct vm *vm, enum image_kind kind, char *err, size_t errlen)
{
	const dev_create_fn *dev = devices_of_kind[kind];

	for (; *dev; dev++)
		if ((*dev)(vm, err, errlen))
			return -1;
	return 0;
}
