// SPDX-License-Identifier: MIT
/*
 * COM1 transmit. The VMM's device is always ready and line-buffers per
 * vCPU, so there is no LSR polling (an extra exit per byte) and no guest-side
 * line buffer: lines from different vCPUs cannot interleave.
 */
#include <minivmm/abi.h>

#include "lib/console.h"
#include "lib/io.h"

void console_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		outb(MVM_PORT_COM1, (u8)s[i]);
}
