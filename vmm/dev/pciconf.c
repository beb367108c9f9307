// SPDX-License-Identifier: MIT
/*
 * PCI configuration mechanism #1 (0xcf8 address, 0xcfc-0xcff data) with no
 * devices behind it: every read is all ones, which a scan takes as "no
 * device here". Claimed so that a guest's bus scan is not reported as
 * unclaimed accesses.
 */
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/vm.h"

#define PCI_CONF_BASE	0xcf8
#define PCI_CONF_LEN	8

static void pciconf_io(struct vcpu *v, uint64_t port, bool write, void *data,
		       unsigned int size, void *opaque)
{
	(void)v;
	(void)port;
	(void)opaque;
	if (!write)
		memset(data, 0xff, size);
}

int pciconf_dev_register(struct vm *vm)
{
	return bus_register(&vm->bus, BUS_PIO, PCI_CONF_BASE, PCI_CONF_LEN, pciconf_io, NULL,
			    "pci-conf");
}
