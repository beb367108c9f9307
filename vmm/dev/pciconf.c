// SPDX-License-Identifier: MIT
/*
 * PCI configuration mechanism #1 (0xcf8 address, 0xcfc-0xcff data) with no
 * devices behind it: every read is all ones, which a scan takes as "no
 * device here". Claimed so that a guest's bus scan is not reported as
 * unclaimed accesses. No handler: the bus answers every access itself.
 */
#include "vmm/dev/devices.h"
#include "vmm/vcpu_ops.h"

#define PCI_CONF_BASE	0xcf8
#define PCI_CONF_LEN	8

static const struct bus_desc pciconf_desc = {
	.name = "pci-conf", .kind = STATS_PIO_OTHER,
};

int pciconf_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, PCI_CONF_BASE, PCI_CONF_LEN, &pciconf_desc, NULL,
			 err, errlen);
}
