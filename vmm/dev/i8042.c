// SPDX-License-Identifier: MIT
/* Pure i8042 logic; vmm/dev/linux_devices.c puts it on the bus. */
#include "vmm/dev/i8042.h"

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
