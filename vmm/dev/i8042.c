// SPDX-License-Identifier: MIT
/* The i8042 stub: pure logic, then the device that puts it on the bus. */
#include "vmm/dev/devices.h"
#include "vmm/dev/i8042.h"
#include "vmm/exitstatus.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

uint8_t i8042_read(uint16_t port)
{
	(void)port;	/* status: no byte for the host, none for the guest; data: nothing */
	return 0;
}

bool i8042_write(uint16_t port, uint8_t val)
{
	/* "Pulse output port": bits 3:0 select the lines, 0 = pulse; line 0 is reset. */
	return port == I8042_CMD_PORT && (val & 0xf0) == 0xf0 && !(val & 0x01);
}

/* Stateless: the two ports are two ranges with the port as state. */
static void i8042_io(struct vcpu *v, uint64_t offset, bool write, void *data, unsigned int size,
		     void *state)
{
	uint16_t port = (uint16_t)(uintptr_t)state;
	uint8_t *bytes = data;

	(void)offset;	/* 0: each range is one port */
	for (unsigned int i = 0; i < size; i++) {
		if (!write)
			bytes[i] = i8042_read(port);
		else if (i8042_write(port, bytes[i]))
			vm_request_reset(vcpu_vm(v));
	}
}

static const struct bus_desc i8042_desc = {
	.name = "i8042", .kind = STATS_PIO_OTHER, .io = i8042_io,
};

int i8042_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, I8042_DATA_PORT, 1, &i8042_desc,
			 (void *)(uintptr_t)I8042_DATA_PORT, err, errlen) ||
	       bus_claim(vm_bus(vm), BUS_PIO, I8042_CMD_PORT, 1, &i8042_desc,
			 (void *)(uintptr_t)I8042_CMD_PORT, err, errlen);
}
