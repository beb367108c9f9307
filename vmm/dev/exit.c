// SPDX-License-Identifier: MIT
/* The test-exit port: the guest's 32-bit status becomes minivmm's. */
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/exitstatus.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

static void exit_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		    unsigned int size, void *state)
{
	uint32_t status = 0;

	(void)offset;
	(void)write;	/* write-only: the bus answers reads */
	(void)state;
	memcpy(&status, data, size < 4 ? size : 4);
	if (status > 255) {
		/* An exit code holds 8 bits: say so rather than wrap 256 to 0. */
		vm_say(vcpu_vm(v), GMSG_EXIT_STATUS,
		       "vCPU %u: guest exit status %u does not fit an exit code; exiting %d",
		       vcpu_index(v), status, EXITSTATUS_GUEST_FAILED);
		status = EXITSTATUS_GUEST_FAILED;
	}
	vm_request_stop(vcpu_vm(v), (int)status);
}

static const struct bus_desc exit_desc = {
	.name = "exit", .kind = STATS_PIO_OTHER, .flags = BUS_F_WRITE_ONLY, .io = exit_io,
};

int exit_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_EXIT, 4, &exit_desc, NULL, err, errlen);
}
