// SPDX-License-Identifier: MIT
/*
 * The test-exit port: the guest's 32-bit status becomes minivmm's, as is,
 * or with --qemu-exit as QEMU's isa-debug-exit reports it: (code << 1) | 1.
 */
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/exitstatus.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

/* The exit status for the guest's code, and whether that code fits one. */
int exit_dev_status(uint32_t code, bool qemu, bool *fits)
{
	uint32_t max = qemu ? 127 : 255;

	*fits = code <= max;
	if (!*fits)
		code = EXITSTATUS_GUEST_FAILED;
	return qemu ? (int)((code << 1) | 1) : (int)code;
}

static void exit_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		    unsigned int size, void *state)
{
	bool qemu = vm_qemu_exit(vcpu_vm(v)), fits;
	uint32_t code = 0;
	int status;

	(void)offset;
	(void)write;	/* write-only: the bus answers reads */
	(void)state;
	memcpy(&code, data, size < 4 ? size : 4);
	status = exit_dev_status(code, qemu, &fits);
	if (!fits)
		/* An exit code holds 8 bits: say so rather than wrap 256 to 0. */
		vm_say(vcpu_vm(v), GMSG_EXIT_STATUS,
		       "vCPU %u: guest exit status %u does not fit an exit code%s; exiting %d",
		       vcpu_index(v), code, qemu ? " as (code << 1) | 1" : "", status);
	vm_request_stop(vcpu_vm(v), status);
}

static const struct bus_desc exit_desc = {
	.name = "exit", .kind = STATS_PIO_OTHER, .flags = BUS_F_WRITE_ONLY, .io = exit_io,
};

int exit_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_EXIT, 4, &exit_desc, NULL, err, errlen);
}
