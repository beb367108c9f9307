// SPDX-License-Identifier: MIT
/* The test-exit port: the guest's 32-bit status becomes minivmm's. */
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/vcpu.h"

static void exit_io(struct vcpu *v, uint64_t port, bool write, void *data,
		    unsigned int size, void *opaque)
{
	uint32_t status = 0;

	(void)port;
	(void)opaque;
	if (!write) {
		memset(data, 0xff, size);
		return;
	}
	memcpy(&status, data, size < 4 ? size : 4);
	if (status > 255) {
		/* An exit code holds 8 bits: say so rather than wrap 256 to 0. */
		ratelimit_say(&v->vm->guest_msgs, &v->vm->out_lock, GMSG_EXIT_STATUS,
			      "vCPU %u: guest exit status %u does not fit an exit code; exiting 1",
			      v->index, status);
		status = 1;
	}
	vm_request_stop(v->vm, (int)status);
}

int exit_dev_register(struct vm *vm)
{
	return bus_register(&vm->bus, BUS_PIO, MVM_PORT_EXIT, 4, exit_io, NULL, "exit");
}
