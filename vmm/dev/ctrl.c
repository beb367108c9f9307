// SPDX-License-Identifier: MIT
/* The control port: requests only the VMM can carry out (struct mvm_ctrl). */
#include <stddef.h>
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/vcpu.h"

#define PAUSE_MAX_US	10000000u

/*
 * A request returns only once its target's hold has begun, and a vCPU blocked
 * in a request cannot begin one: two vCPUs pausing each other (or a longer
 * cycle) would wait for ever. Each caller says it waits before it looks at
 * its target (sequentially consistent), so in any cycle at least one caller
 * sees its target waiting and is refused.
 */
static int32_t ctrl_pause(struct vcpu *caller, const struct mvm_ctrl *c)
{
	struct vm *vm = caller->vm;
	struct vcpu *target;

	if (c->arg0 >= vm->cfg.nr_vcpus || c->arg0 == caller->index ||
	    !c->arg1 || c->arg1 > PAUSE_MAX_US)
		return MVM_CTRL_EINVAL;
	target = &vm->vcpus[c->arg0];
	atomic_store(&caller->pv.awaiting_hold, true);
	if (atomic_load(&target->pv.awaiting_hold)) {
		atomic_store(&caller->pv.awaiting_hold, false);
		return MVM_CTRL_EINVAL;
	}
	/* A flush asked of us while we ran may be what holds up our target. */
	vcpu_flush_pending(caller);
	/* The caller waits outside guest mode: say so to its siblings too. */
	pvtime_hold_begin(caller);
	vcpu_pause(target, (unsigned int)c->arg1);
	pvtime_hold_end(caller);
	atomic_store(&caller->pv.awaiting_hold, false);
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
	if (mem_read(&v->vm->mem, gpa, &c, sizeof(c))) {
		ratelimit_say(&v->vm->guest_msgs, &v->vm->out_lock, GMSG_CTRL_OUTSIDE_RAM,
			      "vCPU %u: control request at GPA 0x%x is outside RAM", v->index, gpa);
		return;
	}
	c.status = c.op == MVM_CTRL_PAUSE_VCPU ? ctrl_pause(v, &c) : MVM_CTRL_EINVAL;
	mem_write(&v->vm->mem, gpa + offsetof(struct mvm_ctrl, status), &c.status,
		  sizeof(c.status));
}

static const struct bus_desc ctrl_desc = {
	.name = "ctrl", .kind = STATS_PIO_OTHER, .flags = BUS_F_WRITE_ONLY, .io = ctrl_io,
};

int ctrl_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return dev_claim(vm, BUS_PIO, MVM_PORT_CTRL, 4, &ctrl_desc, NULL, err, errlen);
}
