// SPDX-License-Identifier: MIT
/* The results port: `outl` of a record's GPA; the VMM copies and checks it. */
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/vcpu.h"

static void reject(struct vcpu *v, uint64_t gpa, const char *why)
{
	struct vm *vm = v->vm;

	pthread_mutex_lock(&vm->results.lock);
	vm->results.rejected++;
	pthread_mutex_unlock(&vm->results.lock);
	ratelimit_say(&vm->guest_msgs, &vm->out_lock, GMSG_RECORD_REJECTED,
		      "vCPU %u: result record at GPA 0x%llx rejected: %s",
		      v->index, (unsigned long long)gpa, why);
}

static void results_io(struct vcpu *v, uint64_t port, bool write, void *data,
		       unsigned int size, void *opaque)
{
	uint32_t gpa = 0;
	char why[128];

	(void)port;
	(void)opaque;
	if (!write) {
		memset(data, 0xff, size);
		return;
	}
	if (size != 4) {
		reject(v, 0, "the GPA must be written with a 32-bit out");
		return;
	}
	memcpy(&gpa, data, 4);
	if (!results_take(&v->vm->results, &v->vm->mem, gpa, why, sizeof(why)))
		reject(v, gpa, why);
}

int results_dev_register(struct vm *vm)
{
	return bus_register(&vm->bus, BUS_PIO, MVM_PORT_RESULTS, 4, results_io, NULL, "results");
}
