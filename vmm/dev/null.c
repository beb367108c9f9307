// SPDX-License-Identifier: MIT
/*
 * The no-op port and MMIO page: the cheapest exits minivmm can answer, the
 * floor every other user-space exit is compared with.
 */
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/vcpu_ops.h"

static void null_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		    unsigned int size, void *state)
{
	(void)v;
	(void)offset;
	(void)state;
	if (!write)
		memset(data, 0, size);
}

static const struct bus_desc null_pio = {
	.name = "null", .kind = STATS_PIO_NULL, .io = null_io,
};

static const struct bus_desc null_mmio = {
	.name = "null-mmio", .kind = STATS_MMIO_NULL, .io = null_io,
};

int null_dev_create(struct vm *vm, char *err, size_t errlen)
{
	if (bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_NULL, 1, &null_pio, NULL, err, errlen))
		return -1;
	return bus_claim(vm_bus(vm), BUS_MMIO, MVM_MMIO_NULL, MVM_PAGE_SIZE, &null_mmio, NULL,
			 err, errlen);
}
