// SPDX-License-Identifier: MIT
/* The control port: requests only the VMM can carry out (struct mvm_ctrl). */
#include <stddef.h>
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/mem.h"
#include "vmm/vcpu_ops.h"

#define PAUSE_MAX_US	10000000u

/* The pause protocol itself, deadlock-free, is vcpu_pause_sibling()'s. */
static int32_t ctrl_pause(struct vcpu *caller, const struct mvm_ctrl *c)
{
	if (c->arg0 >= vm_nr_vcpus(vcpu_vm(caller)) || c->arg0 == vcpu_index(caller) ||
	    !c->arg1 || c->arg1 > PAUSE_MAX_US)
		return MVM_CTRL_EINVAL;
	if (vcpu_pause_sibling(caller, (unsigned int)c->arg0, (unsigned int)c->arg1))
		return MVM_CTRL_EINVAL;
	return 0;
}

static void ctrl_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		    unsigned int size, void *state)
{
	struct mvm_ctrl c;
	uint32_t gpa = 0;

	(void)offset;
	(void)write;	/* write-only: the bus answers reads */
	(void)state;
	if (size != 4)
		return;		/* no GPA, nowhere to write a status: ignore */
	memcpy(&gpa, data, 4);
	if (mem_read(vm_mem(vcpu_vm(v)), gpa, &c, sizeof(c))) {
		vm_say(vcpu_vm(v), GMSG_CTRL_OUTSIDE_RAM,
		       "vCPU %u: control request at GPA 0x%x is outside RAM", vcpu_index(v), gpa);
		return;
	}
	c.status = c.op == MVM_CTRL_PAUSE_VCPU ? ctrl_pause(v, &c) : MVM_CTRL_EINVAL;
	mem_write(vm_mem(vcpu_vm(v)), gpa + offsetof(struct mvm_ctrl, status), &c.status,
		  sizeof(c.status));
}

static const struct bus_desc ctrl_desc = {
	.name = "ctrl", .kind = STATS_PIO_OTHER, .flags = BUS_F_WRITE_ONLY, .io = ctrl_io,
};

int ctrl_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_CTRL, 4, &ctrl_desc, NULL, err, errlen);
}
