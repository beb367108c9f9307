// SPDX-License-Identifier: MIT
/*
 * The no-op port and MMIO page: the cheapest exits minivmm can answer, the
 * floor every other user-space exit is compared with.
 */
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/vm.h"

static void null_io(struct vcpu *v, uint64_t addr, bool write, void *data,
		    unsigned int size, void *opaque)
{
	(void)v;
	(void)addr;
	(void)opaque;
	if (!write)
		memset(data, 0, size);
}

int null_dev_register(struct vm *vm)
{
	if (bus_register(&vm->bus, BUS_PIO, MVM_PORT_NULL, 1, null_io, NULL, "null"))
		return -1;
	return bus_register(&vm->bus, BUS_MMIO, MVM_MMIO_NULL, MVM_PAGE_SIZE, null_io, NULL,
			    "null-mmio");
}
